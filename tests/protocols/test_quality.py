"""The quality evaluator and single-agent comparison (docs/analysts/evaluation.md#quality-scores):
pure functions, no database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocols import quality
from protocols.quality import ComparisonRow, DebateRecord, Position


def pos(agent, decision, confidence=80.0, risk=None, round_number=1, kind="analysis", **kw):
    return Position(
        agent=agent,
        round_number=round_number,
        kind=kind,
        decision=decision,
        confidence=confidence,
        risk=risk,
        **kw,
    )


def test_unanimous_s4_debate_scores_full_consensus_and_confidence():
    statements = (
        pos("a", "ACT", 90, 5, reasoning="Paris is the capital city of France"),
        pos("b", "ACT", 80, 5, reasoning="Paris is the capital of France, historically"),
        pos("c", "ACT", 70, 5, reasoning="Geography textbooks agree Paris governs"),
    )
    final = tuple(pos(p.agent, "ACT", p.confidence, 5, kind="vote") for p in statements)
    scores = quality.evaluate_quality(DebateRecord("ACT", statements, final))
    assert scores["consensus_quality"] == 1.0
    assert scores["decision_confidence"] == 0.8
    assert scores["logical_consistency"] == 1.0
    assert scores["evidence_quality"] is None  # S4 replies carry no evidence list
    assert 0 < scores["argument_diversity"] < 1
    applicable = [v for k, v in scores.items() if k != "overall_quality" and v is not None]
    assert scores["overall_quality"] == round(sum(applicable) / len(applicable), 4)


@pytest.mark.parametrize(
    ("decision", "risk", "consistent"),
    [
        ("ACT", 10, True),
        ("ACT", 69, True),
        ("ACT", 70, False),  # acting on a risk it calls high
        ("REFUSE", 21, True),
        ("REFUSE", 20, False),  # refusing what it calls harmless
        ("VETO", 5, False),
        ("WARN", 95, True),
    ],
)
def test_logical_consistency_flags_a_decision_its_own_risk_contradicts(decision, risk, consistent):
    record = DebateRecord(decision, (pos("a", decision, 80, risk),))
    assert quality.logical_consistency(record) == (1.0 if consistent else 0.0)


def test_an_unreadable_position_is_not_consistent():
    record = DebateRecord("WARN", (pos("a", "WARN", 50, 50, parse_failed=True), pos("b", "WARN")))
    assert quality.logical_consistency(record) == 0.5


def test_moderated_debate_uses_the_moderators_side_scores_and_evidence():
    statements = (
        pos(
            "pro",
            "SUPPORT",
            80,
            kind="argument",
            evidence=("Browsers mark HTTP pages as insecure since 2018",),
        ),
        pos("con", "OPPOSE", 40, kind="argument", evidence=()),
        pos("mod", "SUPPORT", 85, kind="moderation", pro_quality=0.9, con_quality=0.3),
    )
    record = DebateRecord("SUPPORT", statements, final=statements[:2])
    scores = quality.evaluate_quality(record)
    assert scores["logical_consistency"] == 0.6  # (0.9 + 0.3) / 2
    assert scores["evidence_quality"] == round((0.45 + 0.2) / 2, 4)  # one specific item; none
    assert scores["decision_confidence"] == 0.85  # the moderator's last confidence
    assert scores["consensus_quality"] == round(80 / 120, 4)


def test_argument_diversity_is_zero_for_identical_answers_and_one_for_disjoint():
    same = DebateRecord(
        "ACT",
        (pos("a", "ACT", reasoning="alpha beta gamma delta"),) * 1
        + (pos("b", "ACT", reasoning="alpha beta gamma delta"),),
    )
    apart = DebateRecord(
        "ACT", (pos("a", "ACT", reasoning="alpha beta"), pos("b", "ACT", reasoning="gamma delta"))
    )
    assert quality.argument_diversity(same) == 0
    assert quality.argument_diversity(apart) == 1
    assert quality.argument_diversity(DebateRecord("ACT", (pos("a", "ACT"),))) is None


def test_a_veto_vote_backs_a_refuse_decision():
    final = (pos("safety", "VETO", 90, kind="vote"), pos("utility", "ACT", 30, kind="vote"))
    record = DebateRecord("REFUSE", (), final)
    assert quality.consensus_quality(record) == 0.75
    assert quality.decision_confidence(record) == 0.9


scores_0_100 = st.floats(min_value=0, max_value=100, allow_nan=False)
decisions = st.sampled_from(["ACT", "WARN", "REFUSE", "VETO"])
position = st.builds(
    Position,
    agent=st.sampled_from(["a", "b", "c", "d"]),
    round_number=st.integers(1, 4),
    kind=st.sampled_from(["analysis", "revision", "argument", "turn", "moderation"]),
    decision=decisions,
    confidence=scores_0_100,
    risk=st.none() | scores_0_100,
    reasoning=st.text(max_size=80),
    parse_failed=st.booleans(),
    evidence=st.none() | st.tuples(st.text(max_size=40)),
    pro_quality=st.none() | st.floats(0, 1),
    con_quality=st.none() | st.floats(0, 1),
)


@given(
    decision=st.sampled_from(["ACT", "WARN", "REFUSE"]),
    statements=st.lists(position, max_size=8),
    final=st.lists(position, max_size=4),
    challenges=st.lists(st.text(max_size=40), max_size=3),
)
def test_every_score_is_between_0_and_1_or_absent(decision, statements, final, challenges):
    record = DebateRecord(decision, tuple(statements), tuple(final), tuple(challenges))
    scores = quality.evaluate(record)
    for key in (*quality.DIMENSIONS, "overall_quality"):
        assert scores[key] is None or 0 <= scores[key] <= 1
    present = [scores[k] for k in quality.DIMENSIONS if scores[k] is not None]
    assert (scores["overall_quality"] is None) == (not present)
    if present:
        assert min(present) - 1e-4 <= scores["overall_quality"] <= max(present) + 1e-4
    assert scores["depth_debate"] >= max(scores["depth_single"].values(), default=0)


# --- single-agent comparison -------------------------------------------------------------------


def row(decision, verdict, single, decision_confidence=0.8, single_confidence=None, depth=None):
    q = {"decision_confidence": decision_confidence}
    if single_confidence is not None:
        q["single_confidence"] = single_confidence
    if depth is not None:
        q["depth_debate"], q["depth_single"] = depth
    return ComparisonRow("s4", decision, verdict, tuple(single.items()), q)


def test_comparison_table():
    rows = [
        # debate right, one of two agents right
        row(
            "REFUSE",
            "REFUSE",
            {"a": "REFUSE", "b": "ACT"},
            0.9,
            {"a": 0.9, "b": 0.6},
            (40, {"a": 10, "b": 20}),
        ),
        # debate wrong (too cautious), both agents wrong the other way
        row(
            "WARN",
            "ACT",
            {"a": "ACT", "b": "ACT"},
            0.5,
            {"a": 1.0, "b": 0.5},
            (30, {"a": 15, "b": 15}),
        ),
        row("ACT", "", {"a": "ACT", "b": "ACT"}),  # unlabelled: depth only (none stored here)
    ]
    out = quality.compare_with_single_agent(rows)
    acc = out["accuracy_improvement"]
    assert acc["n"] == 2 and acc["debate"] == {"n": 2, "agreed": 1, "rate": 0.5}
    assert acc["single_agent"] == {"n": 4, "agreed": 3, "rate": 0.75}
    assert acc["value"] == -0.25
    depth = out["reasoning_depth"]
    assert depth["n"] == 2 and depth["single_agent_n"] == 4
    assert depth["debate_mean_words"] == 35 and depth["single_agent_mean_words"] == 15
    assert depth["value"] == round(35 / 15, 4)
    bias = out["bias_reduction"]
    # debate: REFUSE vs REFUSE = 0, WARN vs ACT = +1 -> 0.5; agents: 0, -2, 0, 0 -> -0.5
    assert bias["debate_bias"] == 0.5 and bias["single_agent_bias"] == -0.5
    assert bias["value"] == 0 and bias["n"] == 2 and bias["single_agent_n"] == 4
    cal = out["confidence_calibration"]
    # debate: (0.9-1)^2 + (0.5-0)^2 = 0.26 / 2 = 0.13
    assert cal["debate_brier"] == 0.13 and cal["n"] == 2
    # agents: (0.9-1)^2 + (0.6-0)^2 + (1-1)^2 + (0.5-1)^2 = 0.62 / 4 = 0.155
    assert cal["single_agent_brier"] == 0.155 and cal["single_agent_n"] == 4
    assert cal["value"] == 0.025


def test_comparison_without_verdicts_has_no_figures_but_says_n_is_zero():
    out = quality.compare_with_single_agent([row("ACT", "", {"a": "ACT"})])
    for figure in out.values():
        assert figure["value"] is None and figure["n"] == 0


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["ACT", "WARN", "REFUSE"]),
            st.sampled_from(["", "ACT", "WARN", "REFUSE"]),
            st.dictionaries(st.sampled_from("abc"), st.sampled_from(["ACT", "WARN", "REFUSE"])),
            st.floats(0, 1),
        ),
        max_size=20,
    )
)
def test_comparison_figures_stay_in_their_ranges(items):
    out = quality.compare_with_single_agent([row(d, v, s, c) for d, v, s, c in items])
    labelled = sum(1 for _, v, _, _ in items if v)
    assert out["accuracy_improvement"]["n"] == labelled
    if out["accuracy_improvement"]["value"] is not None:
        assert -1 <= out["accuracy_improvement"]["value"] <= 1
    for key in ("debate_brier", "single_agent_brier"):
        value = out["confidence_calibration"][key]
        assert value is None or 0 <= value <= 1
    assert out["bias_reduction"]["value"] is None or -2 <= out["bias_reduction"]["value"] <= 2


def test_quality_means_count_only_debates_where_a_score_applies():
    rows = [
        ComparisonRow("s4", "ACT", "", (), {"consensus_quality": 1.0, "evidence_quality": None}),
        ComparisonRow("s4", "WARN", "", (), {"consensus_quality": 0.5, "evidence_quality": None}),
        ComparisonRow(
            "moderated", "SUPPORT", "", (), {"consensus_quality": 1.0, "evidence_quality": 0.6}
        ),
    ]
    means = quality.quality_means(rows)
    assert means["consensus_quality"] == {"value": round(2.5 / 3, 4), "n": 3}
    assert means["evidence_quality"] == {"value": 0.6, "n": 1}
    assert means["consensus_rate"] == {"value": round(2 / 3, 4), "n": 3}


def test_cost_comparison_puts_a_debate_against_one_agent_asked_alone():
    rows = [
        ComparisonRow(
            "s4",
            "ACT",
            "",
            (),
            {"single_cost_usd": {"a": 0.001, "b": 0.003}, "single_tokens": {"a": 100, "b": 300}},
            cost_usd=0.024,
            tokens=2400,
        ),
        ComparisonRow("s4", "WARN", "", (), {}, cost_usd=0.012, tokens=1200),  # scored before
    ]
    out = quality.cost_comparison(rows)
    assert out["debate"] == {"mean_cost_usd": 0.018, "mean_tokens": 1800, "n": 2}
    assert out["single_agent"] == {"mean_cost_usd": 0.002, "mean_tokens": 200, "n": 2}
    assert out["cost_ratio"] == 9 and out["token_ratio"] == 9
    empty = quality.cost_comparison([])
    assert empty["cost_ratio"] is None and empty["debate"]["n"] == 0
