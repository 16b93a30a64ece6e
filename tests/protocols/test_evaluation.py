"""Baselines and dynamics of a finished debate: pure functions, no database."""

from __future__ import annotations

import pytest

from protocols import evaluation as ev
from protocols.evaluation import Answer


def s4(agent, decision, risk=20, confidence=80):
    return Answer(agent=agent, decision=decision, confidence=confidence, risk=risk)


def test_s4_majority_goes_through_the_s4_rules():
    # 1 ACT, 1 WARN, 1 REFUSE: a split, which the rules decide as WARN (not a plurality pick).
    answers = [s4("a", "ACT"), s4("b", "WARN"), s4("c", "REFUSE")]
    assert ev.majority_decision("s4", answers) == "WARN"
    # a single VETO decides REFUSE, however the others answered
    assert ev.majority_decision("s4", [s4("a", "ACT"), s4("b", "ACT"), s4("c", "VETO", 90)]) == (
        "REFUSE"
    )


def test_debate_that_ends_more_cautious_than_its_majority():
    independent = [s4("a", "ACT"), s4("b", "ACT"), s4("c", "REFUSE", 80)]
    final = [s4("a", "REFUSE"), s4("b", "ACT"), s4("c", "VETO", 90)]
    result = ev.compute_baselines("s4", "REFUSE", independent, final)
    assert result.majority_decision == "ACT"
    assert result.outcome_change == ev.MORE_CAUTIOUS
    assert result.single_agent == {"a": "ACT", "b": "ACT", "c": "REFUSE"}
    changes = {a.agent: (a.independent, a.final, a.change) for a in result.agents}
    assert changes == {
        "a": ("ACT", "REFUSE", ev.MORE_CAUTIOUS),
        "b": ("ACT", "ACT", ev.SAME),
        "c": ("REFUSE", "REFUSE", ev.SAME),  # a VETO is a REFUSE for the agent alone
    }
    stored = result.as_json()
    assert stored["outcome_change"] == "more_cautious"
    assert stored["agents"][0] == {
        "agent": "a",
        "independent": "ACT",
        "final": "REFUSE",
        "change": "more_cautious",
    }
    assert stored["rules_version"] == ev.rules_version("s4") != ""


def test_less_cautious_and_unchanged_outcomes():
    independent = [s4("a", "WARN"), s4("b", "WARN"), s4("c", "ACT")]
    assert ev.compute_baselines("s4", "ACT", independent, []).outcome_change == (ev.LESS_CAUTIOUS)
    assert ev.compute_baselines("s4", "WARN", independent, []).outcome_change == ev.SAME


def test_round_robin_majority_is_its_consensus_check_on_round_one():
    answers = [
        Answer("a", "BUY", 70),
        Answer("b", "BUY", 70),
        Answer("c", "BUY", 70),
        Answer("d", "SELL", 70),
    ]
    assert ev.majority_decision("round_robin", answers, {"consensus_threshold": 0.75}) == "BUY"
    assert ev.majority_decision("round_robin", answers, {"consensus_threshold": 0.8}) == (
        "NO_CONSENSUS"
    )
    unreadable = [Answer("a", "HOLD", 50, parse_failed=True)]
    assert ev.single_agent_decision("round_robin", unreadable[0]) == "NO_CONSENSUS"
    result = ev.compute_baselines(
        "round_robin", "SELL", answers, [Answer("a", "SELL", 80)], {"consensus_threshold": 0.75}
    )
    assert result.outcome_change == ev.CHANGED  # BUY/SELL are not on the caution scale


def test_moderated_majority_weighs_first_arguments_by_the_moderated_rules():
    strong = ("a 2023 survey of 1,200 firms found 40% savings",)
    answers = [
        Answer("p", "SUPPORT", 90, role="proponent", evidence=strong),
        Answer("o", "OPPOSE", 90, role="opponent"),
        Answer("c", "NEUTRAL", 50, role="critic"),
    ]
    assert ev.majority_decision("moderated", answers) == "SUPPORT"
    assert ev.single_agent_decision("moderated", answers[2]) == "UNCERTAIN"
    balanced = [answers[0], Answer("o", "OPPOSE", 90, role="opponent", evidence=strong)]
    assert ev.majority_decision("moderated", balanced) == "UNCERTAIN"


@pytest.mark.parametrize(
    ("independent", "final", "verdict", "effect"),
    [
        ("ACT", "REFUSE", "REFUSE", ev.CORRECTED),
        ("REFUSE", "ACT", "REFUSE", ev.TALKED_OUT),
        ("WARN", "WARN", "WARN", ev.STAYED_RIGHT),
        ("ACT", "ACT", "REFUSE", ev.STAYED_WRONG),
        ("ACT", "WARN", "REFUSE", ev.CHANGED_WRONG),
        ("ACT", "REFUSE", "", None),
    ],
)
def test_verdict_effect(independent, final, verdict, effect):
    assert ev.verdict_effect(independent, final, verdict) == effect


def test_dynamics_with_verdict_reads_the_stored_form():
    stored = ev.compute_baselines(
        "s4", "REFUSE", [s4("a", "ACT"), s4("b", "REFUSE")], [s4("a", "REFUSE"), s4("b", "ACT")]
    ).as_json()
    rows = ev.dynamics_with_verdict(stored, "REFUSE")
    assert [(r["agent"], r["effect"]) for r in rows] == [("a", ev.CORRECTED), ("b", ev.TALKED_OUT)]


def test_no_answers_and_unknown_protocols_are_rejected():
    with pytest.raises(ValueError, match="at least one"):
        ev.majority_decision("s4", [])
    with pytest.raises(ValueError, match="no baseline rules"):
        ev.majority_decision("chess", [s4("a", "ACT")])
    assert ev.rules_version("chess") == ""


def test_rules_version_changes_with_the_rules_source():
    assert ev.rules_version("s4") == ev.rules_version("vote")
    assert ev.rules_version("s4") != ev.rules_version("round_robin")
    assert len(ev.rules_version("moderated")) == 12


def row(decision, majority, verdict, agents, protocol="s4", cost=0.01, duration=2.0):
    return ev.DebateRow(protocol, decision, majority, verdict, cost, duration, tuple(agents))


def test_ground_truth_figures_count_every_figure_with_its_n():
    rows = [
        # labelled: the debate right, the majority wrong; a corrected, b talked out
        row(
            "REFUSE", "ACT", "REFUSE", [("a", "m1", "ACT", "REFUSE"), ("b", "m2", "REFUSE", "ACT")]
        ),
        # labelled and overridden: the debate wrong, the majority right
        row(
            "ACT",
            "WARN",
            "WARN",
            [("a", "m1", "WARN", "WARN"), ("b", "m2", "ACT", "ACT")],
            protocol="round_robin",
        ),
        # not labelled: counts for cost and latency only
        row("ACT", "ACT", "", [("a", "m1", "ACT", "ACT")], cost=0.04, duration=None),
    ]
    figures = ev.ground_truth_figures(rows)
    overall = figures.overall
    assert overall.labelled == 2 and overall.decisions == 3
    assert overall.debate.as_json() == {"n": 2, "agreed": 1, "rate": 0.5}
    assert overall.majority.as_json() == {"n": 2, "agreed": 1, "rate": 0.5}
    assert overall.single_agent.as_json() == {"n": 4, "agreed": 2, "rate": 0.5}
    assert (overall.overrides, overall.override_rate) == (1, 0.5)
    assert (overall.corrected, overall.talked_out) == (1, 1)
    assert overall.cost_per_decision_usd == 0.02
    assert overall.latency_per_decision_s == 2.0  # the debate without a duration is left out
    by_protocol = {g.key: g for g in figures.by_protocol}
    assert by_protocol["s4"].debate.rate == 1.0 and by_protocol["round_robin"].debate.rate == 0.0
    by_agent = {g.key: g for g in figures.by_agent}
    assert by_agent["a"].single_agent.as_json() == {"n": 2, "agreed": 1, "rate": 0.5}
    assert by_agent["a"].corrected == 1 and by_agent["b"].talked_out == 1
    assert by_agent["b"].decisions == 2 and by_agent["a"].decisions == 3
    assert [g.key for g in figures.by_model] == ["m1", "m2"]
    assert figures.as_json()["by_model"][1]["single_agent"] == {"n": 2, "agreed": 1, "rate": 0.5}


def test_no_labelled_debates_gives_no_rates():
    figures = ev.ground_truth_figures([row("ACT", "ACT", "", [])])
    assert figures.overall.debate.rate is None and figures.overall.override_rate is None
    assert ev.ground_truth_figures([]).overall.cost_per_decision_usd is None
