"""Reviewer verdicts as ground truth: the selector (query counts) and the staff API endpoint."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from debates import running, services
from debates.models import Debate, Participant
from evaluation.ground_truth import ground_truth_report
from tests.factories import StaffFactory, UserFactory

HTTPS = "Should every website use HTTPS?"


def finished(query=HTTPS, protocol="s4") -> Debate:
    debate = services.debate_create(query=query, protocol=protocol, enqueue=False)
    running.debate_run(debate_id=debate.id)
    return Debate.objects.get(id=debate.id)


def bulk(count: int, *, verdict: str = "REFUSE") -> None:
    """`count` finished, labelled debates with stored baselines and two agents each."""
    now = timezone.now()
    debates = Debate.objects.bulk_create(
        Debate(
            query=f"q{i}",
            protocol="s4",
            status=Debate.Status.COMPLETED,
            decision="REFUSE",
            review_status="resolved",
            decision_override=verdict if verdict != "REFUSE" else "",
            majority_decision="ACT",
            outcome_change="more_cautious",
            cost_usd="0.010000",
            started_at=now - dt.timedelta(seconds=3),
            completed_at=now,
            baselines={
                "agents": [
                    {
                        "agent": "a",
                        "independent": "ACT",
                        "final": "REFUSE",
                        "change": "more_cautious",
                    },
                    {"agent": "b", "independent": "REFUSE", "final": "REFUSE", "change": "same"},
                ]
            },
        )
        for i in range(count)
    )
    Participant.objects.bulk_create(
        Participant(
            debate=d,
            position=n,
            name=slug,
            slug=slug,
            role="r",
            system_prompt="",
            model_name=f"model-{slug}",
            temperature=0.2,
        )
        for d in debates
        for n, slug in enumerate(("a", "b"))
    )


@pytest.mark.django_db
def test_the_report_takes_two_queries_however_many_debates():
    bulk(5)
    with CaptureQueriesContext(connection) as small:
        few = ground_truth_report()
    bulk(400)
    with CaptureQueriesContext(connection) as large:
        many = ground_truth_report()
    assert len(small.captured_queries) == len(large.captured_queries) == 2
    assert few.figures.overall.labelled == 5 and many.figures.overall.labelled == 405
    overall = many.figures.overall
    assert overall.debate.rate == 1.0 and overall.majority.rate == 0.0
    assert overall.single_agent.as_json() == {"n": 810, "agreed": 405, "rate": 0.5}
    assert overall.corrected == 405 and overall.talked_out == 0
    assert overall.latency_per_decision_s == 3.0 and overall.cost_per_decision_usd == 0.01
    by_model = {g.key: g for g in many.figures.by_model}
    assert by_model["model-a"].single_agent.rate == 0.0
    assert by_model["model-b"].single_agent.rate == 1.0


@pytest.mark.django_db
def test_the_range_and_the_limit_bound_what_is_read():
    bulk(12)
    report = ground_truth_report(limit=10)
    assert report.debates == 10 and report.truncated
    later = timezone.now() + dt.timedelta(hours=1)
    assert ground_truth_report(since=later).debates == 0
    assert ground_truth_report(until=later, protocol="round_robin").debates == 0


def test_real_debates_with_and_without_a_verdict(default_agents):
    right = finished()
    other = "ACT" if right.decision != "ACT" else "WARN"
    wrong = finished()
    unlabelled = finished()
    Debate.objects.filter(id=right.id).update(review_status="resolved")
    Debate.objects.filter(id=wrong.id).update(review_status="resolved", decision_override=other)
    report = ground_truth_report()
    overall = report.figures.overall
    assert report.debates == 3 and overall.decisions == 3 and overall.labelled == 2
    assert overall.debate.as_json() == {"n": 2, "agreed": 1, "rate": 0.5}
    assert (overall.overrides, overall.override_rate) == (1, 0.5)
    agents = wrong.baselines["agents"]
    assert overall.single_agent.n == 2 * len(agents)
    expected = sum(a["independent"] == right.decision for a in right.baselines["agents"]) + sum(
        a["independent"] == other for a in agents
    )
    assert overall.single_agent.agreed == expected
    assert unlabelled.majority_decision  # counted for cost only
    assert overall.cost_per_decision_usd is not None


@pytest.mark.django_db
def test_the_staff_endpoint_reports_and_rejects_bad_ranges():
    bulk(3)
    api = APIClient()
    url = "/api/v1/evaluation/ground-truth/"
    assert api.get(url).status_code == 401
    api.force_authenticate(UserFactory())
    assert api.get(url).status_code == 403
    api.force_authenticate(StaffFactory())
    body = api.get(url, {"protocol": "s4"}).json()
    assert body["overall"]["debate"] == {"n": 3, "agreed": 3, "rate": 1.0}
    assert body["by_agent"][0]["key"] == "a" and body["truncated"] is False
    bad = api.get(url, {"since": "yesterday"})
    assert bad.status_code == 400 and "since" in bad.content.decode()
    backwards = api.get(url, {"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"})
    assert backwards.status_code == 400 and "until must be later" in backwards.content.decode()
    assert api.get(url, {"limit": 10_001}).status_code == 400
    assert "until may not be blank" in api.get(url, {"until": ""}).content.decode()
