"""Consensus (pure): confidence weighting, what goes to review, adjusted reports, narrative."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from contradictions.arbitration import Verdict
from contradictions.authority import Authority, Ranking
from contradictions.consensus import Case, Report, ReviewChoice, build_consensus
from contradictions.detection import Claim, detect

RANKING = Ranking((Authority("GCC-STAT", (), 1), Authority("World Bank", (), 2)))


def claim(ref, value, source, period, confidence):
    return Claim(
        ref=ref,
        report=f"r{ref}",
        agent=f"Agent{ref}",
        metric="Unemployment",
        value=D(str(value)),
        unit="%",
        source=source,
        period=period,
        citation=f"{source} {period}",
        confidence=confidence,
    )


def verdict(resolution, action, confidence, *, value=None, parse_failed=False):
    chosen = int(resolution[5]) if resolution.startswith("agent") else None
    return Verdict(
        resolution,
        action,
        confidence,
        "Because the data says so. More.",
        None if value is None else D(str(value)),
        "",
        chosen,
        parse_failed,
        "reply could not be parsed" if parse_failed else "",
    )


def run(claims, v, review=None, extra_claims=()):
    [case] = detect(claims).contradictions
    reports = [Report(f"r{c.ref}", c.agent, c.confidence, (c,)) for c in claims]
    reports += [Report(f"r{c.ref}", c.agent, c.confidence, (c,)) for c in extra_claims]
    return build_consensus(
        reports=reports, cases=[Case("k1", case, v, review)], ranking=RANKING, min_confidence=0.6
    )


TWO = [claim(1, 0.10, "GCC-STAT", "2024", 0.8), claim(2, 0.12, "World Bank", "2024", 0.9)]


def findings(result):
    return {f["finding"]: f for r in result.adjusted_reports for f in r["findings"]}


def test_an_accepted_choice_keeps_the_chosen_value_and_replaces_the_other_with_its_origin():
    result = run(TWO, verdict("agent1_correct", "use_agent1", 0.85, value=0.10))
    assert (result.resolved, result.flagged) == (1, 0)
    f = findings(result)
    assert f[1]["status"] == "kept"
    assert f[2]["status"] == "replaced"
    assert f[2]["value"] == 0.1 and f[2]["source"] == "GCC-STAT"
    assert f[2]["original"]["value"] == 0.12 and f[2]["original"]["source"] == "World Bank"
    assert "GCC-STAT, 2024" in result.narrative and "World Bank, 2024" in result.narrative


def test_both_valid_annotates_every_claim_with_the_others_and_their_context():
    claims = [
        claim(1, 0.10, "GCC-STAT", "Q1-2024", 0.9),
        claim(2, 0.12, "World Bank", "2024", 0.85),
    ]
    result = run(claims, verdict("both_valid", "use_both", 0.8, value=0.12))
    f = findings(result)
    assert f[1]["status"] == f[2]["status"] == "annotated"
    assert f[1]["value"] == 0.1 and "0.12% (Agent2; World Bank, 2024)" in f[1]["context"]
    assert (
        "Unemployment ranges 0.1-0.12% depending on source and period: GCC-STAT reports "
        "0.1% for Q1-2024; World Bank reports 0.12% for 2024."
    ) in result.narrative


@pytest.mark.parametrize(
    ("v", "why"),
    [
        (verdict("agent1_correct", "use_agent1", 0.5), "below 0.6"),
        (verdict("neither_valid", "flag_for_review", 0.9), "none of the values"),
        (verdict("agent1_correct", "flag_for_review", 0.9), "flagged it for review"),
        (
            verdict("flag_for_review", "flag_for_review", 0.0, parse_failed=True),
            "could not be read",
        ),
        (verdict("agent1_correct", "use_agent1", 0.9, value=0.11), "no agent reported"),
    ],
)
def test_what_arbitration_cannot_settle_is_flagged_and_annotated_as_under_review(v, why):
    result = run(TWO, v)
    assert (result.resolved, result.flagged) == (0, 1)
    [outcome] = result.cases
    assert outcome.status == "flagged" and why in outcome.reason
    assert all(
        f["pending_review"] and f["status"] == "annotated" for f in findings(result).values()
    )


def test_an_arbitrator_siding_against_a_confident_majority_is_a_split():
    claims = [
        claim(1, 0.10, "GCC-STAT", "2024", 0.9),
        claim(2, 0.10, "GCC-STAT", "2024", 0.9),
        claim(3, 0.15, "World Bank", "2024", 0.6),
    ]
    # 0.6 + 0.8 = 1.4 for agent 3 against 1.8 for the two who agree.
    result = run(claims, verdict("agent3_correct", "use_agent3", 0.8))
    assert result.flagged == 1 and "split" in result.cases[0].reason
    # The same arbitrator backing the majority is accepted: 1.8 + 0.8 against 0.6.
    result = run(claims, verdict("agent1_correct", "use_agent1", 0.8))
    assert result.resolved == 1
    f = findings(result)
    assert (f[1]["status"], f[2]["status"], f[3]["status"]) == ("kept", "kept", "replaced")


def test_a_confident_arbitrator_may_overrule_a_single_more_confident_agent():
    # Agent 1: 0.8 + 0.85 = 1.65 against agent 2's 0.9.
    assert run(TWO, verdict("agent1_correct", "use_agent1", 0.85)).resolved == 1


def test_an_analysts_pick_applies_like_an_accepted_verdict_and_is_named():
    review = ReviewChoice(action="use_agent2", chosen=2, reviewer="alice", note="WB is newer.")
    result = run(TWO, verdict("agent1_correct", "use_agent1", 0.5), review=review)
    assert (result.resolved, result.flagged, result.reviewed) == (0, 1, 1)
    f = findings(result)
    assert f[2]["status"] == "kept" and f[1]["status"] == "replaced"
    assert f[1]["decided_by"] == "review" and not f[1]["pending_review"]
    assert "decided by alice: WB is newer." in result.narrative


def test_a_dismissed_item_leaves_both_values_with_their_context():
    review = ReviewChoice(reviewer="alice", note="n/a", dismissed=True)
    result = run(TWO, verdict("agent1_correct", "use_agent1", 0.5), review=review)
    assert result.cases[0].status == "dismissed"
    assert {f["status"] for f in findings(result).values()} == {"annotated"}


def test_no_contradictions_keep_every_claim_and_say_nothing_was_arbitrated():
    claims = [claim(1, 0.10, "GCC-STAT", "2024", 0.8), claim(2, 0.10, "GCC-STAT", "2024", 0.85)]
    result = build_consensus(
        reports=[Report(f"r{c.ref}", c.agent, c.confidence, (c,)) for c in claims], cases=[]
    )
    assert (result.resolved, result.flagged) == (0, 0)
    assert result.narrative == "No contradictions among 2 reports (2 claims): nothing to arbitrate."
    assert {f["status"] for f in findings(result).values()} == {"kept"}


def test_claims_outside_any_contradiction_are_kept_unchanged():
    other = Claim(
        ref=9,
        report="r9",
        agent="Agent9",
        metric="GDP",
        value=D("2.1"),
        unit="%",
        source="GCC-STAT",
        period="2024",
        confidence=0.7,
    )
    result = run(TWO, verdict("agent1_correct", "use_agent1", 0.85), extra_claims=[other])
    assert findings(result)[9]["status"] == "kept" and findings(result)[9]["value"] == 2.1
