"""Choosing and running the other protocols against the real database, with the offline model:
options checked and stored, `auto`, multi-model routing, what is stored, resume, export."""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.exceptions import ValidationError

from agents import gateway
from agents.models import Agent
from debates import running, selectors, services
from debates.models import Debate, LLMCall, Participant, Round, Statement, Vote
from debates.transcript import render_text
from tests.debates.test_services import CountingLLM, WorkerDied

TESLA = "Should I invest in Tesla (TSLA) considering all factors?"
HTTPS = "Should every website use HTTPS?"
LEARN = "Should I learn Python or JavaScript first?"


def run(query: str, protocol: str, **kwargs) -> Debate:
    debate = services.debate_create(query=query, protocol=protocol, enqueue=False, **kwargs)
    running.debate_run(debate_id=debate.id)
    return selectors.debate_get(debate.id)


# --- options ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("protocol", "options", "message"),
    [
        ("moderated", {"max_rounds": "two"}, "max_rounds must be a whole number, got 'two'."),
        ("moderated", {"max_rounds": 2.5}, "max_rounds must be a whole number"),
        ("moderated", {"max_rounds": True}, "max_rounds must be a whole number"),
        ("moderated", {"max_rounds": 9}, "max_rounds must be between 1 and 5, got 9."),
        ("moderated", {"consensus_threshold": 0.2}, "must be between 0.5 and 1, got 0.2"),
        (
            "round_robin",
            {"stances": "colours"},
            "stances must be one of auto, investment, decision, got 'colours'.",
        ),
        (
            "round_robin",
            {"rounds": 3},
            "Unknown option(s) for round_robin: rounds. Allowed: "
            "consensus_threshold, max_rounds, min_turns_per_agent, model, stances.",
        ),
        (
            "round_robin",
            {"max_rounds": 2, "min_turns_per_agent": 3},
            "min_turns_per_agent (3) cannot exceed max_rounds (2)",
        ),
        ("s4", {"model": "x" * 201}, "model must be at most 200 characters"),
    ],
    ids=[
        "text-for-int",
        "fraction-for-int",
        "bool-for-int",
        "int-too-big",
        "float-too-small",
        "not-a-choice",
        "unknown",
        "across-options",
        "text-too-long",
    ],
)
def test_bad_options_are_rejected_saying_what_to_fix_and_nothing_is_stored(
    default_agents, protocol, options, message
):
    with pytest.raises(ValidationError) as info:
        services.debate_create(query="Is it raining?", protocol=protocol, options=options)
    assert any(message in m for m in info.value.message_dict["options"])
    assert Debate.objects.count() == 0 and Participant.objects.count() == 0


def test_every_bad_option_is_reported_at_once(default_agents):
    with pytest.raises(ValidationError) as info:
        services.debate_create(
            query="Is it raining?",
            protocol="round_robin",
            options={"max_rounds": 0, "stances": 3, "speed": "fast"},
        )
    assert len(info.value.message_dict["options"]) == 3


def test_options_are_stored_converted_with_every_default(default_agents):
    debate = services.debate_create(
        query=TESLA,
        protocol="round_robin",
        enqueue=False,
        options={"max_rounds": "4", "consensus_threshold": "1"},
    )
    debate.refresh_from_db()
    assert debate.options == {
        "max_rounds": 4,
        "consensus_threshold": 1.0,
        "min_turns_per_agent": 2,
        "stances": "auto",
        "model": "",
    }


# --- auto -------------------------------------------------------------------------------------


def test_auto_picks_round_robin_on_a_trigger_keyword_and_records_why(default_agents):
    debate = services.debate_create(query=TESLA, protocol="auto", enqueue=False)
    debate.refresh_from_db()
    assert debate.protocol == "round_robin"
    assert debate.metadata["protocol_choice"] == {
        "requested": "auto",
        "chosen": "round_robin",
        "reason": "matched 'invest' (\"invest\"), a widening of the trigger keyword "
        "'investment' to its stem",
        "matched_keywords": ["invest"],
        "matches": [
            {
                "keyword": "invest",
                "text": "invest",
                "listed_keyword": None,
                "widening": "a widening of the trigger keyword 'investment' to its stem",
            }
        ],
    }
    assert [p.slug for p in debate.participants.all()] == ["valuation", "sentiment", "fundamental"]


def test_auto_picks_s4_without_a_trigger_keyword(default_agents):
    debate = services.debate_create(
        query="What is the capital of France?", protocol="auto", enqueue=False
    )
    assert debate.protocol == "s4"
    assert debate.metadata["protocol_choice"]["chosen"] == "s4"
    assert "no debate trigger keyword" in debate.metadata["protocol_choice"]["reason"]


def test_auto_checks_options_against_the_protocol_it_chose(default_agents):
    with pytest.raises(ValidationError) as info:
        services.debate_create(
            query="What is the capital of France?", protocol="auto", options={"max_rounds": 3}
        )
    message = info.value.message_dict["options"][0]
    assert message.startswith("auto chose s4 (no debate trigger keyword")
    assert "Unknown option(s) for s4: max_rounds" in message


def test_the_auto_choice_survives_the_debates_completion(default_agents):
    debate = run("What is your advice on learning Python?", "auto")
    assert debate.protocol == "round_robin"
    assert debate.metadata["protocol_choice"]["reason"] == "matched the trigger keyword 'advice'"
    assert debate.metadata["consensus_type"] == debate.consensus_type


# --- agents and models ------------------------------------------------------------------------


def test_each_protocol_gathers_its_own_default_agents(default_agents):
    slugs = {
        protocol: [
            p.slug
            for p in services.debate_create(
                query="Is it raining?", protocol=protocol, enqueue=False
            ).participants.all()
        ]
        for protocol in ("moderated", "moderated_extended")
    }
    assert slugs["moderated"] == ["proponent", "opponent", "moderator"]
    assert slugs["moderated_extended"] == [
        "proponent",
        "opponent",
        "advocate",
        "critic",
        "refiner",
        "moderator",
    ]


def test_named_agents_without_the_protocols_roles_are_rejected(default_agents):
    with pytest.raises(ValidationError) as info:
        services.debate_create(
            query="Is it raining?",
            protocol="moderated",
            agents=["proponent", "utility", "moderator"],
        )
    assert "Utility Agent has the role 'utility'" in info.value.message_dict["agents"][0]


def test_the_model_option_routes_agents_without_a_model_and_an_agents_own_model_wins(
    default_agents,
    settings,
):
    settings.DEBATE_ALLOWED_MODELS = ["openai/gpt-4o-mini"]
    Agent.objects.filter(slug="moderator").update(model_name="anthropic/claude-judge")
    debate = services.debate_create(
        query="Is it raining?",
        protocol="moderated",
        enqueue=False,
        options={"model": "openai/gpt-4o-mini"},
    )
    models = dict(debate.participants.values_list("slug", "model_name"))
    assert models == {
        "proponent": "openai/gpt-4o-mini",
        "opponent": "openai/gpt-4o-mini",
        "moderator": "anthropic/claude-judge",
    }


def test_each_call_goes_to_its_agents_model(default_agents, settings):
    settings.DEBATE_ALLOWED_MODELS = ["offline/*"]
    Agent.objects.filter(slug="moderator").update(model_name="offline/moderator-model")
    seen = []

    async def spy(*, model, messages, **kwargs):
        seen.append((messages[-1]["content"].split()[1], model))
        return await real(model=model, messages=messages, **kwargs)

    real = gateway.acomplete
    with mock.patch.object(gateway, "acomplete", spy):
        debate = run(HTTPS, "moderated", options={"model": "offline/debater-model"})
    assert set(seen) == {
        ("argument", "offline/debater-model"),
        ("moderation", "offline/moderator-model"),
    }
    assert selectors.debate_export(debate)["models"] == [
        "offline/debater-model",
        "offline/moderator-model",
    ]


# --- what is stored ---------------------------------------------------------------------------


def test_a_moderated_debate_stores_arguments_and_evaluations_round_by_round(default_agents):
    debate = run(LEARN, "moderated")
    statements = list(Statement.objects.filter(debate=debate).order_by("call_id"))

    assert debate.status == Debate.Status.COMPLETED
    assert (debate.decision, debate.consensus_type) == ("SUPPORT", "weighted_margin")
    assert [(s.round.number, s.kind, s.participant.slug) for s in statements] == [
        (1, "argument", "proponent"),
        (1, "argument", "opponent"),
        (1, "moderation", "moderator"),
        (2, "argument", "proponent"),
        (2, "argument", "opponent"),
        (2, "moderation", "moderator"),
    ]
    proponent = statements[0]
    assert (proponent.decision, proponent.confidence, proponent.risk) == ("SUPPORT", 75, None)
    assert len(proponent.details["supporting_evidence"]) == 3
    moderator = statements[2]
    assert moderator.details["pro_quality"] > moderator.details["con_quality"]
    assert [r.status for r in Round.objects.filter(debate=debate)] == ["completed"] * 2
    assert Vote.objects.filter(debate=debate).count() == 0
    assert debate.metadata["moderator_confidence_by_round"] == [0.58, 0.73]


def test_an_uncertain_moderated_debate_is_marked_for_review(default_agents):
    debate = run("Is Bitcoin a good investment?", "moderated")
    assert debate.decision == "UNCERTAIN"
    assert debate.consensus_type == "uncertain"
    assert debate.metadata["review_reasons"] == ["uncertain"]


def test_a_round_robin_debate_stores_each_turn_and_the_final_positions(default_agents):
    debate = run(TESLA, "round_robin")
    turns = list(Statement.objects.filter(debate=debate).order_by("call_id"))

    assert (debate.decision, debate.consensus_type) == ("HOLD", "unanimous")
    assert [(s.round.number, s.participant.slug, s.decision) for s in turns] == [
        (1, "valuation", "SELL"),
        (1, "sentiment", "BUY"),
        (1, "fundamental", "HOLD"),
        (2, "valuation", "HOLD"),
        (2, "sentiment", "HOLD"),
        (2, "fundamental", "HOLD"),
    ]
    assert all(s.kind == "turn" for s in turns)
    assert [s.previous_decision for s in turns[3:]] == ["SELL", "BUY", "HOLD"]
    votes = Vote.objects.filter(debate=debate).select_related("statement__round")
    assert {(v.decision, v.statement.round.number) for v in votes} == {("HOLD", 2)}
    assert debate.metadata["agent_participation"] == {
        "Valuation Agent": 2,
        "Sentiment Agent": 2,
        "Fundamental Agent": 2,
    }


def test_s4_votes_still_point_at_the_revisions_they_lock(default_agents):
    debate = run("What is the capital of France?", "s4")
    votes = Vote.objects.filter(debate=debate).select_related("statement__round")
    assert {(v.statement.kind, v.statement.round.number) for v in votes} == {("revision", 3)}
    assert all(v.statement.participant_id == v.participant_id for v in votes)


def test_no_consensus_is_stored_for_review(default_agents):
    debate = run("Should I buy Bitcoin now?", "round_robin", options={"max_rounds": 3})
    assert debate.decision == "NO_CONSENSUS"
    assert debate.metadata["review_reasons"] == ["no_consensus"]
    assert LLMCall.objects.filter(debate=debate).count() == 9


def test_a_round_robin_rerun_after_a_worker_died_resumes_without_repeating_turns(
    default_agents,
):
    debate = services.debate_create(query=TESLA, protocol="round_robin", enqueue=False)
    with mock.patch.object(gateway, "acomplete", CountingLLM(fail_after=4, exc=WorkerDied())):
        with pytest.raises(WorkerDied):
            running.debate_run(debate_id=debate.id)
    done_before = set(
        LLMCall.objects.filter(debate=debate, status="done").values_list("key", flat=True)
    )
    assert done_before == {"r1:valuation", "r1:sentiment", "r1:fundamental", "r2:valuation"}
    assert Round.objects.get(debate=debate, number=2).status == "running"

    resumed = CountingLLM()
    with mock.patch.object(gateway, "acomplete", resumed):
        running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert len(resumed.calls) == 2
    assert (debate.status, debate.decision) == ("completed", "HOLD")
    assert Statement.objects.filter(debate=debate).count() == 6


def test_a_moderated_rerun_resumes_mid_round(default_agents):
    debate = services.debate_create(query=LEARN, protocol="moderated", enqueue=False)
    with mock.patch.object(gateway, "acomplete", CountingLLM(fail_after=4, exc=WorkerDied())):
        with pytest.raises(WorkerDied):
            running.debate_run(debate_id=debate.id)
    resumed = CountingLLM()
    with mock.patch.object(gateway, "acomplete", resumed):
        running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert len(resumed.calls) == 2
    assert debate.decision == "SUPPORT"
    assert LLMCall.objects.filter(debate=debate).count() == 6


# --- export and transcript --------------------------------------------------------------------


def test_the_export_lists_rounds_as_they_happened_without_queries(
    default_agents, django_assert_num_queries
):
    debate = run(HTTPS, "moderated_extended")
    with django_assert_num_queries(0):
        export = selectors.debate_export(debate)
    assert export["protocol"] == "moderated_extended"
    assert export["options"]["max_rounds"] == 3
    (only_round,) = export["rounds"]
    assert (only_round["number"], only_round["status"]) == (1, "completed")
    assert [(s["step"], s["role"]) for s in only_round["statements"]] == [
        ("argument", "proponent"),
        ("argument", "opponent"),
        ("argument", "advocate"),
        ("argument", "critic"),
        ("synthesis", "refiner"),
        ("moderation", "moderator"),
    ]
    assert only_round["statements"][0]["details"]["supporting_evidence"]
    assert export["final_decision"]["decision"] == "SUPPORT"
    assert export["final_positions"] == []


def test_the_round_robin_transcript_shows_turns_changes_and_participation(default_agents):
    text = render_text(run(TESLA, "auto"))
    assert (
        "Chosen:   auto -> round_robin (matched 'invest' (\"invest\"), a widening of "
        "the trigger keyword 'investment' to its stem)"
    ) in text
    assert "responses: 3 of 3 agents readable; debate turns: " in text
    assert "Round 1: Initial Analysis" in text and "Round 2" in text and "Debate Round" not in text
    assert "(changed SELL -> HOLD)" in text
    assert "DECISION: HOLD" in text
    assert (
        "turns: Valuation Agent 2, Sentiment Agent 2, Fundamental Agent 2; 2 rounds, 6 turns"
    ) in text


def test_the_moderated_transcript_shows_arguments_evaluations_and_the_rule(default_agents):
    text = render_text(run("Is Bitcoin a good investment?", "moderated"))
    assert "Proponent Agent    argues SUPPORT  confidence 65 %" in text
    assert "evidence: Historical data shows drawdowns" in text
    assert "Moderator Agent    evaluates: quality pro 0.72 / con 0.74" in text
    assert "DECISION: UNCERTAIN" in text
    assert "goes to review: uncertain" in text
    assert "moderator confidence by round: 47 %, 57 % (stops above 80 %)" in text
