"""Tests for the pure-Python debate decision rules (no Django, no database)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.s4.rules import (
    DECISIONS,
    HIGH_RISK_THRESHOLD,
    LOW_CONFIDENCE_THRESHOLD,
    VOTE_DECISIONS,
    Decision,
    Vote,
    decide,
)

UTILITY = "Utility Agent"
ACCURACY = "Accuracy Agent"
SAFETY = "Safety Agent"
THREE_AGENTS = (UTILITY, ACCURACY, SAFETY)


def votes_from_counts(act: int, warn: int, refuse: int, names=None) -> list[Vote]:
    """Build calm, confident votes with the given ACT/WARN/REFUSE counts."""
    decisions = ["ACT"] * act + ["WARN"] * warn + ["REFUSE"] * refuse
    if names is None:
        names = [f"Agent {i}" for i in range(len(decisions))]
    return [
        Vote(agent=name, decision=d, confidence=80, risk=20)
        for name, d in zip(names, decisions, strict=True)
    ]


# --- Decision matrix (docs/concepts/s4.md#decision-matrix) ----------------------

MATRIX = [
    pytest.param((3, 0, 0), "ACT", "unanimous", 100.0, id="3-0-0-unanimous-act"),
    pytest.param((2, 1, 0), "ACT", "strong_majority", 66.7, id="2-1-0-strong-majority-act"),
    pytest.param((2, 0, 1), "ACT", "strong_majority", 66.7, id="2-0-1-act-refuse-is-outlier"),
    pytest.param((1, 2, 0), "WARN", "strong_majority", 66.7, id="1-2-0-strong-majority-warn"),
    pytest.param((0, 3, 0), "WARN", "unanimous", 100.0, id="0-3-0-unanimous-caution"),
    pytest.param((0, 2, 1), "WARN", "strong_majority", 66.7, id="0-2-1-strong-majority-warn"),
    pytest.param((1, 1, 1), "WARN", "split", 33.3, id="1-1-1-split-admits-uncertainty"),
    pytest.param((0, 1, 2), "REFUSE", "strong_majority", 66.7, id="0-1-2-strong-majority-refuse"),
    pytest.param((0, 0, 3), "REFUSE", "unanimous", 100.0, id="0-0-3-unanimous-refusal"),
]


@pytest.mark.parametrize(("counts", "expected", "consensus", "agreement"), MATRIX)
def test_decision_matrix_row_holds(counts, expected, consensus, agreement):
    result = decide(votes_from_counts(*counts, names=THREE_AGENTS))
    assert result.decision == expected
    assert result.metadata["consensus_type"] == consensus
    assert result.metadata["rule"] == consensus
    assert result.metadata["agreement_percentage"] == agreement
    assert result.metadata["veto_applied"] is False
    act, warn, refuse = counts
    assert result.metadata["vote_breakdown"] == {
        "ACT": act,
        "WARN": warn,
        "REFUSE": refuse,
        "VETO": 0,
    }


@pytest.mark.parametrize(
    "others",
    [
        pytest.param(("ACT", "ACT"), id="veto-with-act-act"),
        pytest.param(("ACT", "WARN"), id="veto-with-act-warn"),
        pytest.param(("WARN", "REFUSE"), id="veto-with-warn-refuse"),
        pytest.param(("REFUSE", "REFUSE"), id="veto-with-refuse-refuse"),
    ],
)
def test_decision_matrix_any_veto_refuses(others):
    votes = [
        Vote(UTILITY, others[0], 70, 20),
        Vote(ACCURACY, others[1], 70, 20),
        Vote(SAFETY, "VETO", 10, 90, "Unsafe"),
    ]
    result = decide(votes)
    assert result.decision == "REFUSE"
    assert result.metadata["consensus_type"] == "veto"
    assert result.metadata["agreement_percentage"] is None


# --- Worked examples (docs/concepts/s4.md#worked-examples) ------------------------


def test_worked_example_unanimous_act_for_factual_query():
    result = decide(
        [
            Vote(UTILITY, "ACT", 95, 5),
            Vote(ACCURACY, "ACT", 98, 3),
            Vote(SAFETY, "ACT", 90, 2),
        ]
    )
    assert result.decision == "ACT"
    assert result.metadata["agreement_percentage"] == 100.0
    assert result.metadata["consensus_type"] == "unanimous"
    assert result.reasoning.startswith("Unanimous decision:")
    assert "ACT" in result.reasoning
    assert result.metadata["max_risk"] == 5
    assert result.metadata["avg_confidence"] == 94.3
    assert result.metadata["dissenting_votes"] == 0


def test_worked_example_strong_majority_proceeds_with_act_and_notes_dissent():
    result = decide(
        [
            Vote(UTILITY, "ACT", 80, 15, "Clear actionable advice"),
            Vote(ACCURACY, "ACT", 75, 20, "Can provide balanced comparison"),
            Vote(SAFETY, "WARN", 65, 35, "Depends on user's goals"),
        ]
    )
    assert result.decision == "ACT"
    assert result.metadata["agreement_percentage"] == 66.7
    assert result.metadata["consensus_type"] == "strong_majority"
    assert result.metadata["dissenting_votes"] == 1
    assert result.metadata["majority_decision"] == "ACT"
    assert result.reasoning.startswith("Strong majority (2/3")
    assert "despite 1 dissenting vote" in result.reasoning
    assert result.metadata["max_risk"] == 35
    assert result.metadata["avg_confidence"] == 73.3


def test_worked_example_split_vote_defaults_to_warn():
    result = decide(
        [
            Vote(UTILITY, "ACT", 70, 30, "I can explain pros and cons"),
            Vote(ACCURACY, "WARN", 60, 40, "Too many unknowns"),
            Vote(SAFETY, "REFUSE", 55, 60, "Risk of financial harm"),
        ]
    )
    assert result.decision == "WARN"
    assert result.metadata["agreement_percentage"] == 33.3
    assert result.metadata["consensus_type"] == "split"
    assert result.reasoning.startswith("Agents disagree: 1 ACT, 1 WARN, 1 REFUSE.")
    assert "WARN as the safest default" in result.reasoning
    assert result.metadata["majority_decision"] is None
    assert result.metadata["avg_confidence"] == 61.7
    assert result.metadata["low_confidence_warning"] is False


def test_worked_example_safety_veto_refuses():
    result = decide(
        [
            Vote(UTILITY, "ACT", 40, 50, "Could explain chemistry in general terms"),
            Vote(ACCURACY, "REFUSE", 30, 70, "Cannot verify safety of such information"),
            Vote(SAFETY, "VETO", 5, 95, "Clear potential for harm"),
        ]
    )
    assert result.decision == "REFUSE"
    assert result.reasoning.startswith("Safety Agent exercised VETO: Clear potential for harm")
    assert result.metadata["veto_agent"] == SAFETY
    assert result.metadata["veto_risk"] == 95
    assert result.metadata["agreement_percentage"] is None


# --- Veto ---------------------------------------------------------------------------


def test_safety_veto_overrides_unanimous_act():
    votes = [
        Vote(UTILITY, "ACT", 95, 5),
        Vote(ACCURACY, "ACT", 95, 5),
        Vote("Extra Agent", "ACT", 95, 5),
        Vote(SAFETY, "VETO", 60, 80, "Enables illegal activity"),
    ]
    result = decide(votes)
    assert result.decision == "REFUSE"
    assert result.metadata["rule"] == "veto"
    assert result.metadata["majority_decision"] is None
    assert result.metadata["dissenting_votes"] == 3


def test_veto_metadata_is_complete():
    result = decide(
        [
            Vote(UTILITY, "ACT", 65, 10),
            Vote(ACCURACY, "ACT", 70, 20),
            Vote(SAFETY, "VETO", 5, 85, "This enables illegal activity"),
        ]
    )
    meta = result.metadata
    assert meta["veto_applied"] is True
    assert meta["consensus_type"] == "veto"
    assert meta["rule"] == "veto"
    assert meta["veto_agent"] == SAFETY
    assert meta["veto_agents"] == [SAFETY]
    assert meta["veto_risk"] == 85
    assert meta["veto_reason"] == "Risk threshold exceeded (>= 50)"
    assert meta["agreement_percentage"] is None
    assert meta["vote_breakdown"] == {"ACT": 2, "WARN": 0, "REFUSE": 0, "VETO": 1}
    assert meta["total_votes"] == 3
    assert meta["max_risk"] == 85
    assert meta["avg_confidence"] == 46.7
    assert result.reasoning.startswith("Safety Agent exercised VETO: This enables illegal")


def test_veto_reasoning_uses_the_real_agent_name():
    result = decide([Vote("Ethics Agent", "VETO", 50, 70, "Harmful"), Vote(UTILITY, "ACT", 90, 5)])
    assert result.reasoning.startswith("Ethics Agent exercised VETO: Harmful")


def test_several_vetoes_name_the_highest_risk_agent_and_list_all():
    result = decide(
        [
            Vote("Beta", "VETO", 50, 80, "beta reason"),
            Vote("Alpha", "VETO", 50, 90, "alpha reason"),
            Vote("Gamma", "VETO", 50, 90, "gamma reason"),
        ]
    )
    meta = result.metadata
    assert meta["veto_agent"] == "Alpha"  # highest risk, tie broken by name
    assert meta["veto_agents"] == ["Alpha", "Beta", "Gamma"]
    assert meta["veto_risk"] == 90
    assert result.reasoning.startswith("Alpha exercised VETO: alpha reason")


def test_no_veto_leaves_veto_fields_empty():
    meta = decide(votes_from_counts(3, 0, 0)).metadata
    assert meta["veto_applied"] is False
    assert meta["veto_agent"] is None
    assert meta["veto_agents"] == []
    assert meta["veto_risk"] is None
    assert meta["veto_reason"] is None


# --- Ties and splits beyond three agents ----------------------------------------


def test_tie_with_four_agents_refuses():
    result = decide(votes_from_counts(2, 0, 2))
    assert result.decision == "REFUSE"
    assert result.metadata["consensus_type"] == "tie"
    assert result.metadata["agreement_percentage"] == 50.0
    assert result.metadata["majority_decision"] is None
    assert result.reasoning.startswith("Tie:")


def test_tie_between_act_and_warn_with_four_agents_still_refuses():
    result = decide(votes_from_counts(2, 2, 0))
    assert result.decision == "REFUSE"
    assert result.metadata["consensus_type"] == "tie"


def test_tie_with_two_agents_refuses():
    result = decide(votes_from_counts(1, 1, 0))
    assert result.decision == "REFUSE"
    assert result.metadata["consensus_type"] == "tie"
    assert result.metadata["dissenting_votes"] == 2


def test_split_with_four_agents_two_one_one_warns():
    result = decide(votes_from_counts(2, 1, 1))
    assert result.decision == "WARN"
    assert result.metadata["consensus_type"] == "split"
    assert result.metadata["agreement_percentage"] == 50.0
    assert result.metadata["majority_decision"] == "ACT"
    assert result.reasoning.startswith("Agents disagree: 2 ACT, 1 WARN, 1 REFUSE.")


def test_three_of_four_is_a_strong_majority():
    result = decide(votes_from_counts(0, 1, 3))
    assert result.decision == "REFUSE"
    assert result.metadata["consensus_type"] == "strong_majority"
    assert result.metadata["agreement_percentage"] == 75.0


def test_single_vote_is_unanimous():
    result = decide([Vote(SAFETY, "WARN", 80, 20)])
    assert result.decision == "WARN"
    assert result.metadata["consensus_type"] == "unanimous"
    assert result.reasoning.startswith("Unanimous caution:")


# --- Risk and confidence notes ---------------------------------------------------


def test_high_risk_vote_is_flagged_when_outvoted():
    result = decide(
        [
            Vote(UTILITY, "ACT", 80, 10),
            Vote(ACCURACY, "ACT", 80, 10),
            Vote(SAFETY, "REFUSE", 80, 80, "Looks dangerous"),
        ]
    )
    assert result.decision == "ACT"
    meta = result.metadata
    assert meta["high_risk_votes"] == [{"agent": SAFETY, "decision": "REFUSE", "risk": 80}]
    assert meta["high_risk_outvoted"] == [SAFETY]
    assert meta["max_risk"] == 80
    assert "High-risk assessment outvoted: Safety Agent voted REFUSE" in result.reasoning


def test_high_risk_vote_on_winning_side_is_listed_but_not_called_outvoted():
    result = decide(
        [
            Vote(UTILITY, "ACT", 80, 10),
            Vote(ACCURACY, "REFUSE", 80, 90),
            Vote(SAFETY, "REFUSE", 80, 76),
        ]
    )
    assert result.decision == "REFUSE"
    assert [v["agent"] for v in result.metadata["high_risk_votes"]] == [ACCURACY, SAFETY]
    assert result.metadata["high_risk_outvoted"] == []
    assert "outvoted" not in result.reasoning


def test_risk_exactly_at_threshold_is_not_high_risk():
    result = decide([Vote(UTILITY, "ACT", 80, HIGH_RISK_THRESHOLD), Vote(SAFETY, "ACT", 80, 0)])
    assert result.metadata["high_risk_votes"] == []


def test_low_average_confidence_adds_warning():
    result = decide(
        [
            Vote(UTILITY, "ACT", 50, 10),
            Vote(ACCURACY, "ACT", 55, 10),
            Vote(SAFETY, "ACT", 60, 10),
        ]
    )
    assert result.decision == "ACT"
    assert result.metadata["avg_confidence"] == 55
    assert result.metadata["low_confidence_warning"] is True
    assert "Low confidence warning: average confidence 55 % is below 60 %" in result.reasoning


def test_confidence_at_threshold_gives_no_warning():
    result = decide([Vote(UTILITY, "ACT", LOW_CONFIDENCE_THRESHOLD, 10)])
    assert result.metadata["low_confidence_warning"] is False
    assert "Low confidence" not in result.reasoning


# --- Metadata shape ---------------------------------------------------------------


def test_individual_votes_are_sorted_by_agent_name():
    result = decide(
        [
            Vote(UTILITY, "ACT", 70, 25),
            Vote(ACCURACY, "ACT", 78.5, 22),
            Vote(SAFETY, "WARN", 75, 15),
        ]
    )
    assert result.metadata["individual_votes"] == [
        {"agent": ACCURACY, "decision": "ACT", "confidence": 78.5, "risk": 22},
        {"agent": SAFETY, "decision": "WARN", "confidence": 75, "risk": 15},
        {"agent": UTILITY, "decision": "ACT", "confidence": 70, "risk": 25},
    ]


def test_whole_numbers_are_reported_as_ints():
    meta = decide([Vote(UTILITY, "ACT", 72.0, 45.0), Vote(SAFETY, "ACT", 72, 10)]).metadata
    assert meta["max_risk"] == 45 and isinstance(meta["max_risk"], int)
    assert meta["avg_confidence"] == 72 and isinstance(meta["avg_confidence"], int)
    assert isinstance(meta["individual_votes"][0]["confidence"], int)
    assert isinstance(meta["agreement_percentage"], float)


def test_metadata_is_json_serialisable():
    result = decide(
        [
            Vote(UTILITY, "ACT", 70.25, 80.5),
            Vote(ACCURACY, "WARN", 60, 40),
            Vote(SAFETY, "VETO", 5, 95, "No"),
        ]
    )
    assert json.loads(json.dumps(result.metadata, allow_nan=False)) == result.metadata


# --- Validation ---------------------------------------------------------------------


def test_empty_votes_raise_value_error():
    with pytest.raises(ValueError):
        decide([])


@pytest.mark.parametrize("decision", ["act", "MAYBE", "", None, "Veto"])
def test_bad_decision_raises_value_error(decision):
    with pytest.raises(ValueError):
        Vote(UTILITY, decision, 50, 50)


@pytest.mark.parametrize("value", [-0.1, 100.1, -1, 101, float("nan"), float("inf")])
def test_confidence_out_of_range_raises_value_error(value):
    with pytest.raises(ValueError):
        Vote(UTILITY, "ACT", value, 50)


@pytest.mark.parametrize("value", [-0.1, 100.1, -1, 101, float("nan"), float("-inf")])
def test_risk_out_of_range_raises_value_error(value):
    with pytest.raises(ValueError):
        Vote(UTILITY, "ACT", 50, value)


def test_scores_at_range_limits_are_accepted():
    Vote(UTILITY, "ACT", 0, 100)
    Vote(UTILITY, "ACT", 100.0, 0.0)


@pytest.mark.parametrize("value", ["50", None, True])
def test_non_numeric_score_raises_type_error(value):
    with pytest.raises(TypeError):
        Vote(UTILITY, "ACT", value, 50)


def test_empty_agent_name_raises_value_error():
    with pytest.raises(ValueError):
        Vote("  ", "ACT", 50, 50)


def test_duplicate_agent_names_raise_value_error():
    with pytest.raises(ValueError, match="duplicate"):
        decide([Vote(UTILITY, "ACT", 80, 10), Vote(UTILITY, "WARN", 70, 20)])


def test_plain_dicts_are_rejected():
    with pytest.raises(TypeError):
        decide([{"agent": UTILITY, "decision": "ACT", "confidence": 80, "risk": 10}])


def test_decision_rejects_veto_as_final_outcome():
    with pytest.raises(ValueError):
        Decision("VETO", "no", {})


# --- Properties ---------------------------------------------------------------------

scores = st.one_of(
    st.integers(min_value=0, max_value=100),
    st.floats(min_value=0, max_value=100, allow_nan=False, allow_infinity=False),
)


@st.composite
def vote_lists(draw, decisions=VOTE_DECISIONS, min_size=1, max_size=7):
    names = draw(
        st.lists(
            st.text(alphabet="ABCDEFGHIJ xyz", min_size=1, max_size=6).filter(str.strip),
            min_size=min_size,
            max_size=max_size,
            unique=True,
        )
    )
    return [
        Vote(
            agent=name,
            decision=draw(st.sampled_from(decisions)),
            confidence=draw(scores),
            risk=draw(scores),
            reasoning=draw(st.sampled_from(["", "because", "risk noted"])),
        )
        for name in names
    ]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), votes=vote_lists())
def test_result_does_not_depend_on_vote_order(data, votes):
    shuffled = data.draw(st.permutations(votes))
    assert decide(shuffled) == decide(votes)


@given(votes=vote_lists())
def test_decide_is_deterministic(votes):
    first = decide(votes)
    second = decide(list(votes))
    assert first == second
    dumped = [json.dumps(r.metadata, sort_keys=True) for r in (first, second)]
    assert dumped[0] == dumped[1]


@given(votes=vote_lists(), veto=vote_lists(decisions=("VETO",), max_size=2))
def test_any_veto_means_refuse(votes, veto):
    names = {v.agent for v in votes}
    votes = votes + [v for v in veto if v.agent not in names]
    result = decide(votes)
    if any(v.decision == "VETO" for v in votes):
        assert result.decision == "REFUSE"
        assert result.metadata["veto_applied"] is True
        assert result.metadata["veto_agent"] in result.metadata["veto_agents"]


@given(votes=vote_lists())
def test_decision_is_always_act_warn_or_refuse(votes):
    result = decide(votes)
    assert result.decision in DECISIONS
    assert result.metadata["total_votes"] == len(votes)
    assert sum(result.metadata["vote_breakdown"].values()) == len(votes)
    json.dumps(result.metadata, allow_nan=False)


@given(votes=vote_lists(decisions=DECISIONS))
def test_agreement_percentage_is_within_bounds_without_veto(votes):
    pct = decide(votes).metadata["agreement_percentage"]
    assert isinstance(pct, float)
    assert 0 <= pct <= 100


@given(votes=vote_lists())
def test_unanimous_iff_all_votes_share_one_non_veto_decision(votes):
    result = decide(votes)
    decisions = {v.decision for v in votes}
    all_same = len(decisions) == 1 and "VETO" not in decisions
    assert (result.metadata["consensus_type"] == "unanimous") == all_same
    if all_same:
        assert result.decision == votes[0].decision
