"""The moderated debate's decision rules (docs/concepts/moderated.md#decision-rule): scoring and
the 1.2x rule at its edges."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocols.moderated.rules import (
    EVIDENCE_BASE,
    NEUTRAL_QUALITY,
    PLAIN_ITEM_SCORE,
    SPECIFIC_ITEM_SCORE,
    Argument,
    Evaluation,
    decide,
    evidence_quality,
)

# Four specific items: evidence quality 1.0, so strength = weight x confidence x quality.
FULL_EVIDENCE = (
    "A 2023 survey of 400 teams found fewer incidents.",
    "The published audit report lists twelve cases.",
    "Official statistics show a 30% drop since adoption.",
    "See https://example.org/study for the trial data.",
)


def arg(
    side="SUPPORT", confidence=0.5, role=None, round_number=1, evidence=FULL_EVIDENCE, agent=None
):
    role = role or {"SUPPORT": "proponent", "OPPOSE": "opponent"}.get(side, "critic")
    return Argument(
        agent=agent or f"{role}-{round_number}",
        role=role,
        side=side,
        round_number=round_number,
        confidence=confidence,
        supporting_evidence=tuple(evidence),
    )


def evaluation(round_number=1, confidence=0.5, pro=1.0, con=1.0, leaning="NEUTRAL", **kw):
    return Evaluation(
        round_number=round_number,
        confidence=confidence,
        pro_quality=pro,
        con_quality=con,
        leaning=leaning,
        **kw,
    )


def decide_one_round(pro_conf, con_conf, **kw):
    return decide(
        [arg("SUPPORT", pro_conf), arg("OPPOSE", con_conf)],
        [evaluation()],
        consensus_threshold=0.8,
        max_rounds=2,
        **kw,
    )


# --- the 1.2x rule at its boundaries ---------------------------------------------------------


@pytest.mark.parametrize(
    ("pro", "con", "expected"),
    [
        (0.6, 0.5, "UNCERTAIN"),  # exactly 1.2x: not more than 1.2x
        (0.6001, 0.5, "SUPPORT"),  # just above
        (0.5999, 0.5, "UNCERTAIN"),  # just below
        (0.5, 0.6, "UNCERTAIN"),  # exactly 1.2x the other way
        (0.5, 0.6001, "OPPOSE"),
        (0.84, 0.7, "UNCERTAIN"),  # 0.7 x 1.2 is 0.8399999... in floats: still exactly 1.2x
        (0.3, 0.3, "UNCERTAIN"),
        (0.0, 0.0, "UNCERTAIN"),  # nothing on either side
        (0.1, 0.0, "SUPPORT"),  # anything beats nothing
    ],
)
def test_a_side_wins_only_with_more_than_one_point_two_times_the_other(pro, con, expected):
    assert decide_one_round(pro, con).decision == expected


# The raw strengths are compared (`pro_score > con_score * 1.2`): no rounding first
# (docs/concepts/moderated.md#compared-unrounded).
# No evidence (quality 0.2) and logic 1.0, so strength = confidence x 0.2.
@pytest.mark.parametrize(
    ("pro", "con", "expected"),
    [
        (0.30005, 0.25, "SUPPORT"),  # 0.06001 vs 0.05: both show as 0.06 / 0.05, still SUPPORT
        (0.3, 0.25, "UNCERTAIN"),  # 0.06 vs 0.05: exactly 1.2x
        (0.29995, 0.25, "UNCERTAIN"),  # 0.05999 vs 0.05
        (0.25, 0.30005, "OPPOSE"),  # the same boundary the other way
        (0.300005, 0.25, "SUPPORT"),  # 0.060001: below the 4th decimal, still above 1.2x
    ],
)
def test_strengths_are_compared_unrounded_and_rounded_only_for_display(pro, con, expected):
    d = decide(
        [arg("SUPPORT", pro, evidence=()), arg("OPPOSE", con, evidence=())],
        [evaluation()],
        consensus_threshold=0.8,
        max_rounds=2,
    )
    assert d.decision == expected
    assert d.metadata["pro_strength"] == round(pro * 0.2, 4)
    assert d.metadata["pro_strength_exact"] == format(
        Decimal(repr(pro)) * Decimal("0.2"), "f"
    ).rstrip("0").rstrip(".")


def test_a_decision_decided_below_the_displayed_precision_says_so_in_figures():
    d = decide(
        [arg("SUPPORT", 0.30005, evidence=()), arg("OPPOSE", 0.25, evidence=())],
        [evaluation()],
        consensus_threshold=0.8,
        max_rounds=2,
    )
    assert (d.metadata["pro_strength"], d.metadata["con_strength"]) == (0.06, 0.05)
    assert (d.metadata["pro_strength_exact"], d.metadata["con_strength_exact"]) == (
        "0.06001",
        "0.05",
    )
    assert d.metadata["strength_ratio"] == 1.2002
    assert d.reasoning.startswith("SUPPORT: the pro side's weighted strength 0.06 is 1.20x")


def test_uncertain_goes_to_review_with_the_reason_and_confidence_one_half():
    d = decide_one_round(0.6, 0.5)
    assert d.metadata["review_reasons"] == ["uncertain"]
    assert d.metadata["consensus_type"] == "uncertain"
    assert d.metadata["decision_confidence"] == 0.5
    assert "neither side" in d.reasoning and "1.2x" in d.reasoning


def test_a_clear_decision_reports_both_strengths_and_needs_no_review():
    d = decide_one_round(0.9, 0.3)
    assert d.decision == "SUPPORT"
    assert (d.metadata["pro_strength"], d.metadata["con_strength"]) == (0.9, 0.3)
    assert d.metadata["strength_ratio"] == 3.0
    assert d.metadata["decision_confidence"] == 0.75  # 0.9 / (0.9 + 0.3)
    assert d.metadata["review_reasons"] == []
    assert "3.00x" in d.reasoning


def test_decision_confidence_is_capped_at_ninety_five_percent():
    assert decide_one_round(0.9, 0.0).metadata["decision_confidence"] == 0.95


# --- evidence quality, written down ----------------------------------------------------------


def test_evidence_quality_follows_the_written_formula():
    plain = "It keeps later options open for people."
    specific = "A 2021 survey found most users agree."
    assert evidence_quality([]) == EVIDENCE_BASE
    assert evidence_quality([plain]) == pytest.approx(EVIDENCE_BASE + PLAIN_ITEM_SCORE)
    assert evidence_quality([specific]) == pytest.approx(EVIDENCE_BASE + SPECIFIC_ITEM_SCORE)
    assert evidence_quality(FULL_EVIDENCE) == 1.0
    assert evidence_quality([*FULL_EVIDENCE, plain, specific]) == 1.0  # capped


def test_short_and_repeated_evidence_counts_for_nothing_more():
    item = "Official statistics show a 30% drop."
    assert evidence_quality(["studies show", "trust me"]) == EVIDENCE_BASE
    assert evidence_quality([item, item.upper(), f"  {item}  "]) == evidence_quality([item])


@pytest.mark.parametrize(
    "item",
    [
        "Prices rose 12 percent last year in cities.",
        "The documentation at www.example.org says so",
        "According to the regulator this is allowed.",
        "A peer-reviewed study reached this view.",
    ],
)
def test_figures_links_and_named_sources_make_evidence_specific(item):
    assert evidence_quality([item]) == pytest.approx(EVIDENCE_BASE + SPECIFIC_ITEM_SCORE)


def test_more_evidence_wins_when_confidence_and_logic_are_equal():
    d = decide(
        [arg("SUPPORT", 0.7, evidence=FULL_EVIDENCE), arg("OPPOSE", 0.7, evidence=())],
        [evaluation()],
        consensus_threshold=0.8,
        max_rounds=2,
    )
    assert d.decision == "SUPPORT"
    assert d.metadata["evidence_quality"] == {"opponent": EVIDENCE_BASE, "proponent": 1.0}


# --- logical consistency: the moderator's quality per side ------------------------------------


def test_the_moderators_quality_scores_weigh_each_sides_arguments():
    args = [arg("SUPPORT", 0.7), arg("OPPOSE", 0.7)]
    d = decide(args, [evaluation(pro=0.4, con=0.9)], consensus_threshold=0.8, max_rounds=2)
    assert d.decision == "OPPOSE"
    assert d.metadata["logical_consistency"] == {"opponent": 0.9, "proponent": 0.4}


def test_a_side_the_moderator_did_not_rate_gets_the_neutral_quality():
    d = decide(
        [arg("SUPPORT", 0.5), arg("OPPOSE", 0.5)],
        [evaluation(pro=None, con=1.0)],
        consensus_threshold=0.8,
        max_rounds=2,
    )
    scores = {s["side"]: s for s in d.metadata["argument_scores"]}
    assert scores["SUPPORT"]["logical_consistency"] == NEUTRAL_QUALITY
    assert scores["SUPPORT"]["logic_rated_by_moderator"] is False
    assert d.decision == "OPPOSE"  # 0.5 vs 0.25


def test_each_round_is_weighed_by_that_rounds_evaluation_and_all_rounds_count():
    args = [
        arg("SUPPORT", 0.5, round_number=1),
        arg("OPPOSE", 0.5, round_number=1),
        arg("SUPPORT", 0.5, round_number=2),
        arg("OPPOSE", 0.5, round_number=2),
    ]
    evals = [evaluation(1, pro=1.0, con=0.5), evaluation(2, pro=0.5, con=1.0)]
    d = decide(args, evals, consensus_threshold=0.8, max_rounds=2)
    assert (d.metadata["pro_strength"], d.metadata["con_strength"]) == (0.75, 0.75)
    assert d.decision == "UNCERTAIN"


# --- roles ------------------------------------------------------------------------------------


def test_advocate_and_critic_count_half_for_the_side_they_declare_and_neutral_not_at_all():
    args = [
        arg("SUPPORT", 0.5),
        arg("OPPOSE", 0.5),
        arg("OPPOSE", 0.8, role="critic"),
        arg("NEUTRAL", 1.0, role="advocate"),
    ]
    d = decide(args, [evaluation()], consensus_threshold=0.8, max_rounds=3)
    assert (d.metadata["pro_strength"], d.metadata["con_strength"]) == (0.5, 0.9)
    assert d.decision == "OPPOSE"


def test_an_argument_for_no_known_role_or_side_is_rejected():
    with pytest.raises(ValueError):
        Argument(agent="x", role="moderator", side="SUPPORT", round_number=1, confidence=0.5)
    with pytest.raises(ValueError):
        Argument(agent="x", role="proponent", side="MAYBE", round_number=1, confidence=0.5)
    with pytest.raises(ValueError):
        Argument(agent="x", role="proponent", side="SUPPORT", round_number=1, confidence=80)


# --- how the debate ended, and review -----------------------------------------------------------


def test_moderator_confidence_above_threshold_is_moderator_consensus_and_early_if_rounds_left():
    args = [arg("SUPPORT", 0.9), arg("OPPOSE", 0.3)]
    early = decide(args, [evaluation(confidence=0.81)], consensus_threshold=0.8, max_rounds=2)
    assert early.metadata["consensus_type"] == "moderator_consensus"
    assert early.metadata["stopped_early"] is True
    assert early.metadata["stop_reason"] == "moderator_confidence"
    assert "stopped there" in early.reasoning


def test_moderator_confidence_at_the_threshold_is_not_consensus():
    args = [arg("SUPPORT", 0.9), arg("OPPOSE", 0.3)]
    evals = [evaluation(1, confidence=0.6), evaluation(2, confidence=0.8)]
    d = decide(args, evals, consensus_threshold=0.8, max_rounds=2)
    assert d.metadata["consensus_type"] == "weighted_margin"
    assert d.metadata["stopped_early"] is False
    assert d.metadata["stop_reason"] == "max_rounds"
    assert d.metadata["moderator_confidence_by_round"] == [0.6, 0.8]


def test_a_moderator_leaning_against_the_decision_sends_it_to_review():
    d = decide(
        [arg("SUPPORT", 0.9), arg("OPPOSE", 0.3)],
        [evaluation(leaning="OPPOSE")],
        consensus_threshold=0.8,
        max_rounds=2,
    )
    assert d.decision == "SUPPORT"
    assert d.metadata["review_reasons"] == ["moderator_disagrees"]


def test_unreadable_replies_are_reported_for_review():
    d = decide_one_round(0.9, 0.3, parse_failures=["r1:opponent"])
    assert d.metadata["review_reasons"] == ["parse_failure"]
    assert d.metadata["parse_failures"] == ["r1:opponent"]


# --- properties -------------------------------------------------------------------------------

confidences = st.floats(min_value=0, max_value=1, allow_nan=False)
qualities = st.one_of(st.none(), confidences)
MIRROR = {"SUPPORT": "OPPOSE", "OPPOSE": "SUPPORT", "UNCERTAIN": "UNCERTAIN"}


@given(confidences, confidences, qualities, qualities)
def test_swapping_the_sides_mirrors_the_decision(pro_conf, con_conf, pro_q, con_q):
    kw = {"consensus_threshold": 0.8, "max_rounds": 2}
    d = decide(
        [arg("SUPPORT", pro_conf), arg("OPPOSE", con_conf)],
        [evaluation(pro=pro_q, con=con_q)],
        **kw,
    )
    mirrored = decide(
        [arg("SUPPORT", con_conf), arg("OPPOSE", pro_conf)],
        [evaluation(pro=con_q, con=pro_q)],
        **kw,
    )
    assert mirrored.decision == MIRROR[d.decision]
    assert d.metadata["decision_confidence"] <= 0.95


@given(st.permutations(range(4)))
def test_the_order_of_arguments_does_not_matter(order):
    args = [
        arg("SUPPORT", 0.7, round_number=1),
        arg("OPPOSE", 0.4, round_number=1),
        arg("SUPPORT", 0.6, round_number=2),
        arg("OPPOSE", 0.5, round_number=2),
    ]
    evals = [evaluation(1, pro=0.8, con=0.6), evaluation(2, pro=0.7, con=0.7)]
    base = decide(args, evals, consensus_threshold=0.8, max_rounds=2)
    shuffled = decide([args[i] for i in order], evals[::-1], consensus_threshold=0.8, max_rounds=2)
    assert shuffled == base


def test_the_page_and_transcript_show_the_unrounded_strengths_when_rounding_hides_the_margin():
    from protocols.moderated.presentation import ModeratedPresentation

    md = decide(
        [arg("SUPPORT", 0.30005, evidence=()), arg("OPPOSE", 0.25, evidence=())],
        [evaluation()],
        consensus_threshold=0.8,
        max_rounds=2,
    ).metadata
    facts = {f.label: f.value for f in ModeratedPresentation().decision_facts(None, md, [], [])}
    assert facts["Weighted strength"].endswith("; compared unrounded: pro 0.06001, con 0.05")
    assert "compared unrounded: pro 0.06001, con 0.05" in "\n".join(
        ModeratedPresentation().text_summary(md)
    )
    plain = decide_one_round(0.9, 0.3).metadata  # nothing hidden: no note
    facts = {f.label: f.value for f in ModeratedPresentation().decision_facts(None, plain, [], [])}
    assert "unrounded" not in facts["Weighted strength"]
