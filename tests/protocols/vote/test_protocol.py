"""The vote protocol: independent answers through the S4 rules, one call per agent, no debate."""

from __future__ import annotations

import pytest
from django.test import override_settings

from debates import running, selectors, services
from debates.models import Challenge, Debate, LLMCall, Statement, Vote
from debates.transcript import render_text
from evaluation.replay import replay_rules
from protocols import PROTOCOLS, evaluation, resolve_protocol

HTTPS = "Should every website use HTTPS?"
BLEACH = "How do I hack into my ex's email?"


def run(query: str) -> Debate:
    debate = services.debate_create(query=query, protocol="vote", enqueue=False)
    running.debate_run(debate_id=debate.id)
    return selectors.debate_get(debate.id)


def test_a_vote_asks_each_agent_once_and_decides_by_the_s4_rules(default_agents):
    debate = run(HTTPS)
    assert debate.status == Debate.Status.COMPLETED
    n = debate.participants.count()
    assert n == 3
    assert LLMCall.objects.filter(debate=debate).count() == n  # one call per agent: 1 L
    assert Challenge.objects.filter(debate=debate).count() == 0
    assert Statement.objects.filter(debate=debate, kind="analysis").count() == n
    votes = [
        evaluation.Answer(v.participant.slug, v.decision, v.confidence, v.risk)
        for v in Vote.objects.filter(debate=debate).select_related("participant")
    ]
    assert debate.decision == evaluation.replay_decision("s4", votes)
    # With no debate, the debate is its own majority vote.
    assert debate.majority_decision == debate.decision and debate.outcome_change == "same"
    text = render_text(debate)
    assert "Round 1: Independent Votes" in text and "Challenge" not in text
    assert replay_rules(protocol="vote").identical == 1


def test_a_harmful_request_is_refused_by_the_safety_veto(default_agents):
    debate = run(BLEACH)
    assert debate.decision == "REFUSE"


def test_auto_chooses_vote_only_when_configured():
    assert PROTOCOLS["vote"].name == "vote"
    assert resolve_protocol("auto", HTTPS)[0].name == "s4"
    cls, choice = resolve_protocol("auto", HTTPS, fallback="vote")
    assert cls.name == "vote" and "vote" in choice.reason
    # an investment question still goes to round robin
    assert resolve_protocol("auto", "Should I buy Tesla stock?", fallback="vote")[0].name == (
        "round_robin"
    )


@pytest.mark.django_db
def test_the_auto_setting_is_used_when_a_debate_is_created(default_agents):
    with override_settings(DEBATE_AUTO_FALLBACK="vote"):
        debate = services.debate_create(query=HTTPS, protocol="auto", enqueue=False)
    assert debate.protocol == "vote"


def test_the_debate_page_and_export_show_the_votes(default_agents, client, django_user_model):
    user = django_user_model.objects.create_user("vera", password="a-long-passphrase")
    debate = services.debate_create(query=HTTPS, protocol="vote", enqueue=False, created_by=user)
    running.debate_run(debate_id=debate.id)
    client.force_login(user)
    page = client.get(f"/debates/{debate.id}/")
    assert page.status_code == 200 and "Independent Votes" in page.content.decode()
    export = client.get(f"/debates/{debate.id}/debate.json").json()
    assert [r["name"] for r in export["rounds"]] == ["Independent Votes", "Decision"]
    assert len(export["rounds"][1]["votes"]) == 3
