"""Baselines are stored when a debate finishes (real database, offline model) and back-filled."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from debates import baselines, running, selectors, services
from debates.models import Debate, Statement, Vote
from evaluation.baselines import record_baselines
from protocols import evaluation

HTTPS = "Should every website use HTTPS?"
TESLA = "Should I invest in Tesla (TSLA) considering all factors?"


def run(query: str, protocol: str) -> Debate:
    debate = services.debate_create(query=query, protocol=protocol, enqueue=False)
    running.debate_run(debate_id=debate.id)
    return selectors.debate_get(debate.id)


@pytest.mark.parametrize("protocol", ["s4", "moderated", "round_robin"])
def test_a_finished_debate_stores_its_baselines(default_agents, protocol):
    debate = run(TESLA if protocol == "round_robin" else HTTPS, protocol)
    assert debate.status == Debate.Status.COMPLETED
    stored = debate.baselines
    assert stored["debate_decision"] == debate.decision
    assert debate.rules_version == evaluation.rules_version(protocol) != ""
    assert debate.majority_decision == stored["majority_decision"] != ""
    assert debate.outcome_change in evaluation.CHANGES
    # Every debater has its independent answer as a single-agent decision.
    first = {}
    for s in (
        Statement.objects.filter(debate=debate, kind__in=baselines.POSITION_KINDS)
        .select_related("participant")
        .order_by("round__number")
    ):
        first.setdefault(s.participant.slug, s.decision)
    assert set(stored["single_agent"]) == set(first)
    if protocol == "s4":
        finals = dict(
            Vote.objects.filter(debate=debate).values_list("participant__slug", "decision")
        )
        for row in stored["agents"]:
            assert row["independent"] == evaluation.single_agent_decision(
                "s4", evaluation.Answer(row["agent"], first[row["agent"]], 50)
            )
            assert row["final"] == (
                "REFUSE" if finals[row["agent"]] == "VETO" else finals[row["agent"]]
            )


def test_backfill_records_debates_finished_without_baselines(default_agents):
    debate = run(HTTPS, "s4")
    expected = Debate.objects.get(id=debate.id).baselines
    Debate.objects.filter(id=debate.id).update(
        baselines={}, majority_decision="", outcome_change="", rules_version=""
    )
    call_command("backfill_baselines")
    again = Debate.objects.get(id=debate.id)
    assert again.baselines == expected and again.majority_decision == expected["majority_decision"]
    with CaptureQueriesContext(connection) as ctx:
        record_baselines(debate_id=debate.id)
    assert len(ctx.captured_queries) == 5  # the debate, statements, votes, challenges, update


def test_baselines_are_shown_in_the_api_exports_page_and_admin(
    default_agents, client, django_user_model
):
    from rest_framework.test import APIClient

    admin = django_user_model.objects.create_superuser("ada", password="a-long-passphrase")
    debate = services.debate_create(query=HTTPS, protocol="s4", enqueue=False, created_by=admin)
    running.debate_run(debate_id=debate.id)
    # A reviewer resolved it, overriding the decision: the verdict every agent is judged by.
    verdict = "ACT" if Debate.objects.get(id=debate.id).decision != "ACT" else "WARN"
    Debate.objects.filter(id=debate.id).update(review_status="resolved", decision_override=verdict)
    stored = Debate.objects.get(id=debate.id)
    api = APIClient()
    api.force_authenticate(admin)
    body = api.get(f"/api/v1/debates/{debate.id}/").json()
    assert body["majority_decision"] == stored.majority_decision
    assert body["outcome_change"] == stored.outcome_change
    view = body["baselines"]
    assert view["verdict"] == verdict
    assert view["single_agent"] == stored.baselines["single_agent"]
    for row in view["agents"]:
        assert row["effect"] == evaluation.verdict_effect(row["independent"], row["final"], verdict)
    assert body["transcript"]["baselines"] == view

    client.force_login(admin)
    page = client.get(f"/debates/{debate.id}/").content.decode()
    assert "Without the debate" in page
    decided = f'<span class="decision-{stored.majority_decision}">'
    assert f"would have decided\n        {decided}" in page
    markdown = client.get(f"/debates/{debate.id}/debate.md").content.decode()
    assert f"Majority vote of the independent answers: {stored.majority_decision}" in markdown
    from debates.transcript import render_text

    text = render_text(selectors.debate_get(debate.id))
    assert f"Majority vote of the independent answers: {stored.majority_decision}" in text
    admin_page = client.get(f"/admin/debates/debate/{debate.id}/change/").content.decode()
    assert "Majority decision" in admin_page and stored.rules_version in admin_page


QUESTIONS = [HTTPS, TESLA, "Is Bitcoin a good investment?", "How do I hack into my ex's email?"]


@pytest.mark.parametrize("protocol", ["s4", "vote", "moderated", "round_robin"])
def test_what_a_run_stores_from_the_replies_it_holds_equals_what_the_rows_give(
    default_agents, protocol
):
    # The runner computes the baselines and quality scores from the replies it stored, with no
    # query; recomputed from the stored rows they are the same, field for field.
    for query in QUESTIONS:
        debate = run(query, protocol)
        assert debate.status == Debate.Status.COMPLETED, debate.error
        _, fields = baselines.finished_fields(debate, debate.decision)
        assert fields and {name: getattr(debate, name) for name in fields} == fields


def test_a_resumed_run_reads_back_the_replies_an_earlier_run_stored(default_agents):
    from unittest import mock

    from agents import gateway
    from tests.debates.test_services import CountingLLM, WorkerDied

    debate = services.debate_create(query="Is Bitcoin a good investment?", enqueue=False)
    with (
        mock.patch.object(gateway, "acomplete", CountingLLM(fail_after=7, exc=WorkerDied())),
        pytest.raises(WorkerDied),
    ):
        running.debate_run(debate_id=debate.id)
    with CaptureQueriesContext(connection) as ctx:
        running.debate_run(debate_id=debate.id)
    debate = selectors.debate_get(debate.id)
    assert debate.status == Debate.Status.COMPLETED
    assert any('FROM "debates_challenge"' in q["sql"] for q in ctx.captured_queries)
    _, fields = baselines.finished_fields(debate, debate.decision)
    assert fields and {name: getattr(debate, name) for name in fields} == fields
