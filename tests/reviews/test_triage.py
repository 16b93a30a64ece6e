"""Which outcomes need a human and how urgently: the pure rules in reviews/triage.py."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from debates.reviewing import triage as debate_triage
from protocols.s4 import rules
from reviews import triage
from tests.reviews.conftest import high_risk_dissent_metadata


def _decide(*votes) -> dict:
    return rules.decide([rules.Vote(*v) for v in votes]).metadata


def _reasons(flags) -> list[str]:
    return [f.reason for f in flags]


def test_a_unanimous_confident_outcome_needs_no_review():
    metadata = _decide(("A", "ACT", 90, 5), ("B", "ACT", 95, 5), ("C", "ACT", 92, 5))
    assert debate_triage.flags_for(metadata, []) == []


def test_a_three_way_split_is_a_split_vote_naming_the_breakdown():
    metadata = _decide(("A", "ACT", 70, 30), ("B", "WARN", 65, 40), ("C", "REFUSE", 70, 45))
    [flag] = debate_triage.flags_for(metadata, [])
    assert flag.reason == triage.SPLIT_VOTE
    assert flag.summary == "Split vote: 1 ACT, 1 WARN, 1 REFUSE"
    assert flag.priority == 54  # 50 + 4 (max risk 45)


def test_a_tie_that_defaulted_to_refuse_is_a_split_vote_too():
    metadata = _decide(("A", "ACT", 70, 30), ("B", "REFUSE", 70, 40))
    [flag] = debate_triage.flags_for(metadata, [])
    assert (flag.reason, flag.details["consensus_type"]) == (triage.SPLIT_VOTE, "tie")
    assert "defaulted to REFUSE" in flag.summary


def test_a_veto_names_the_agent_and_comes_first():
    metadata = _decide(
        ("Utility", "ACT", 70, 30), ("Accuracy", "WARN", 50, 40), ("Safety", "VETO", 40, 90)
    )
    flags = debate_triage.flags_for(metadata, [])
    assert _reasons(flags) == [triage.SAFETY_VETO, triage.LOW_CONFIDENCE]
    assert flags[0].summary == "VETO by Safety (risk 90)"
    assert flags[0].priority == 89


def test_an_outvoted_high_risk_vote_is_a_high_risk_dissent():
    [flag] = debate_triage.flags_for(high_risk_dissent_metadata(), [])
    assert flag.reason == triage.HIGH_RISK_DISSENT
    assert flag.summary == "Outvoted: Safety Agent voted REFUSE with risk 80"
    assert flag.priority == 88


def test_a_high_risk_vote_that_agrees_with_the_decision_is_not_a_dissent():
    metadata = _decide(("A", "REFUSE", 80, 90), ("B", "REFUSE", 80, 80), ("C", "ACT", 80, 10))
    assert triage.HIGH_RISK_DISSENT not in _reasons(debate_triage.flags_for(metadata, []))


def test_low_confidence_parse_failures_and_injection_are_each_raised():
    metadata = {
        **_decide(("A", "WARN", 50, 40), ("B", "WARN", 50, 40)),
        "parse_failures": ["r1:accuracy", "r2:safety>utility"],
        "injection_suspected": True,
    }
    findings = [{"kind": "instruction_override", "pattern": "x", "excerpt": "ignore"}]
    flags = {f.reason: f for f in debate_triage.flags_for(metadata, findings)}
    assert set(flags) == {triage.PROMPT_INJECTION, triage.PARSE_FAILURE, triage.LOW_CONFIDENCE}
    assert flags[triage.PARSE_FAILURE].summary == (
        "2 replies could not be parsed (fail-safe REFUSE): r1:accuracy, r2:safety>utility"
    )
    assert flags[triage.PROMPT_INJECTION].summary.endswith("instruction_override")
    assert flags[triage.LOW_CONFIDENCE].summary == "Average confidence 50 % is below 60 %"


def test_reasons_a_protocol_raises_are_honoured_and_unknown_ones_are_kept_as_flags():
    metadata = {
        "max_risk": 30,
        "review_reasons": [
            "uncertain",
            {"reason": "no_consensus", "summary": "No consensus after 5 rounds"},
            "contradiction_unresolved",
            "uncertain",
        ],
    }
    flags = {f.reason: f for f in debate_triage.flags_for(metadata, [])}
    assert set(flags) == {triage.UNCERTAIN, triage.NO_CONSENSUS, triage.FLAG_FOR_REVIEW}
    assert flags[triage.NO_CONSENSUS].summary == "No consensus after 5 rounds"
    assert flags[triage.FLAG_FOR_REVIEW].details["raised_as"] == "contradiction_unresolved"
    assert flags[triage.FLAG_FOR_REVIEW].priority == 63


def test_priority_puts_veto_and_high_risk_above_every_split_whatever_the_risk():
    lowest_urgent = min(
        triage.priority_for(r, 0) for r in (triage.SAFETY_VETO, triage.HIGH_RISK_DISSENT)
    )
    highest_split = triage.priority_for(triage.SPLIT_VOTE, 100)
    assert lowest_urgent > highest_split
    assert triage.priority_for(triage.SPLIT_VOTE, 79) > triage.priority_for(triage.SPLIT_VOTE, 20)


def test_priority_tolerates_missing_or_odd_risk_values():
    assert triage.priority_for(triage.SPLIT_VOTE, None) == 50
    assert triage.priority_for(triage.SPLIT_VOTE, "high") == 50
    assert triage.priority_for(triage.SPLIT_VOTE, 250) == 60


vote = st.tuples(
    st.sampled_from(rules.VOTE_DECISIONS),
    st.integers(0, 100),
    st.integers(0, 100),
)


@given(st.lists(vote, min_size=1, max_size=6))
def test_every_rules_outcome_gets_flags_sorted_by_priority_once_per_reason(votes):
    metadata = _decide(*[(f"agent{i}", d, c, r) for i, (d, c, r) in enumerate(votes)])
    flags = debate_triage.flags_for(metadata, [])
    reasons = _reasons(flags)
    assert len(reasons) == len(set(reasons))
    assert [f.priority for f in flags] == sorted((f.priority for f in flags), reverse=True)
    assert (triage.SAFETY_VETO in reasons) == metadata["veto_applied"]
    assert (triage.SPLIT_VOTE in reasons) == (metadata["consensus_type"] in ("split", "tie"))
    assert all(0 < f.priority <= 90 for f in flags)


# --- failures -----------------------------------------------------------------------------------


def test_a_failure_is_ranked_by_the_highest_risk_stated_before_it_failed():
    flag = triage.failure_flag(
        reason=triage.DEBATE_FAILED,
        error="Gave up after 3 restarts.",
        attempts=3,
        recoveries=3,
        max_risk=85,
    )
    assert (flag.reason, flag.priority, flag.summary) == (
        "debate_failed",
        78,
        "Gave up after 3 restarts.",
    )
    assert flag.details == {
        "error": "Gave up after 3 restarts.",
        "attempts": 3,
        "recoveries": 3,
        "max_risk": 85,
    }
    run = triage.failure_flag(reason=triage.RUN_FAILED, error="", attempts=0, recoveries=3)
    assert (run.priority, run.summary) == (70, "Contradiction run failed")


def test_a_failure_comes_after_vetoes_and_before_every_decision_that_stands():
    riskless_failure = triage.priority_for(triage.DEBATE_FAILED, 0)
    assert triage.priority_for(triage.SAFETY_VETO, 0) > riskless_failure
    assert riskless_failure > triage.priority_for(triage.PARSE_FAILURE, 90)
    assert riskless_failure > triage.priority_for(triage.SPLIT_VOTE, 100)


def test_a_protocol_cannot_raise_a_failure_for_a_completed_debate():
    flags = debate_triage.flags_for({"review_reasons": ["debate_failed", "run_failed"]}, [])
    assert [(f.reason, f.details["raised_as"]) for f in flags] == [
        (triage.FLAG_FOR_REVIEW, "debate_failed")
    ]
