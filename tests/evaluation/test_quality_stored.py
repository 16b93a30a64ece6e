"""The quality scores (docs/analysts/evaluation.md#quality-scores): stored when a debate finishes,
shown in the API, exports, page and admin, back-filled; the staff figures over a range (one query)
and their endpoint."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from debates import running, selectors, services
from debates.models import Debate
from debates.quality import quality_view
from evaluation import quality
from protocols import quality as pure
from protocols.presentation import percent_of_unit
from tests.factories import StaffFactory, UserFactory

HTTPS = "Should every website use HTTPS?"
TESLA = "Should I invest in Tesla (TSLA) considering all factors?"
KEYS = (*pure.DIMENSIONS, "overall_quality")


def run(query: str, protocol: str) -> Debate:
    debate = services.debate_create(query=query, protocol=protocol, enqueue=False)
    running.debate_run(debate_id=debate.id)
    return selectors.debate_get(debate.id)


@pytest.mark.django_db
@pytest.mark.parametrize("protocol", ["s4", "vote", "moderated", "round_robin"])
def test_a_finished_debate_stores_its_quality_scores(default_agents, protocol):
    debate = run(TESLA if protocol == "round_robin" else HTTPS, protocol)
    assert debate.status == Debate.Status.COMPLETED
    scores = debate.quality
    for key in KEYS:
        assert scores[key] is None or 0 <= scores[key] <= 1, (key, scores[key])
    assert scores["consensus_quality"] is not None and scores["decision_confidence"] is not None
    # Evidence applies to moderated arguments only.
    assert (scores["evidence_quality"] is not None) == (protocol == "moderated")
    assert scores["depth_debate"] > 0 and set(scores["single_confidence"]) == set(
        debate.baselines["single_agent"]
    )
    # What each agent's independent answer cost, asked alone (the offline model counts tokens).
    assert all(t > 0 for t in scores["single_tokens"].values())
    alone = sum(scores["single_tokens"].values())
    if protocol == "vote":  # a vote is the independent answers and nothing more
        assert alone == debate.tokens_in + debate.tokens_out
    else:
        assert alone < debate.tokens_in + debate.tokens_out
    # The same scores come from the pure function over the stored rows.
    assert quality.record_quality(debate_id=debate.id) == scores


@pytest.mark.django_db
def test_quality_is_shown_in_the_api_exports_page_and_admin(default_agents, client):
    admin = StaffFactory(is_superuser=True)
    debate = run(HTTPS, "s4")
    view = quality_view(debate)
    api = APIClient()
    api.force_authenticate(admin)
    body = api.get(f"/api/v1/debates/{debate.id}/").json()
    assert body["quality"] == view and set(view) == set(KEYS)
    assert body["transcript"]["quality"] == view

    client.force_login(admin)
    page = client.get(f"/debates/{debate.id}/").content.decode()
    assert 'data-testid="quality"' in page and "Argument diversity" in page
    assert percent_of_unit(view["consensus_quality"]) in page  # "100 %", as every score is
    markdown = client.get(f"/debates/{debate.id}/debate.md").content.decode()
    assert "Quality: logical consistency" in markdown
    # In percent, as every confidence is (never "decision confidence 0.55" beside "55 %").
    score = view["consensus_quality"]
    assert f"consensus quality {round(score * 100, 1):g} %" in markdown
    from debates.transcript import render_text

    assert "Quality: " in render_text(selectors.debate_get(debate.id))
    admin_page = client.get(f"/admin/debates/debate/{debate.id}/change/").content.decode()
    assert "consensus_quality" in admin_page


@pytest.mark.django_db
def test_backfill_scores_debates_finished_before(default_agents):
    debate = run(HTTPS, "moderated")
    expected = debate.quality
    Debate.objects.filter(id=debate.id).update(quality={})
    call_command("backfill_baselines", stdout=open("/dev/null", "w"))
    assert Debate.objects.get(id=debate.id).quality == expected


def bulk(count: int, *, verdict: str, decision_confidence: float = 0.9) -> None:
    now = timezone.now()
    Debate.objects.bulk_create(
        Debate(
            query=f"q{i}",
            protocol="s4",
            status=Debate.Status.COMPLETED,
            decision="REFUSE",
            review_status="resolved",
            decision_override="" if verdict == "REFUSE" else verdict,
            started_at=now - dt.timedelta(seconds=3),
            completed_at=now,
            baselines={
                "agents": [
                    {"agent": "a", "independent": "ACT", "final": "REFUSE", "change": "x"},
                    {"agent": "b", "independent": "REFUSE", "final": "REFUSE", "change": "x"},
                ]
            },
            quality={
                "consensus_quality": 1.0,
                "decision_confidence": decision_confidence,
                "overall_quality": 0.8,
                "depth_debate": 60,
                "depth_single": {"a": 20, "b": 30},
                "single_confidence": {"a": 0.7, "b": 0.8},
                "single_tokens": {"a": 50, "b": 150},
                "single_cost_usd": {"a": 0.001, "b": 0.001},
            },
            cost_usd="0.012000",
            tokens_in=1000,
            tokens_out=200,
        )
        for i in range(count)
    )


@pytest.mark.django_db
def test_the_quality_report_takes_one_query_however_many_debates():
    bulk(5, verdict="REFUSE")
    with CaptureQueriesContext(connection) as few:
        quality.quality_report()
    bulk(200, verdict="REFUSE")
    with CaptureQueriesContext(connection) as many:
        report = quality.quality_report()
    assert len(few.captured_queries) == len(many.captured_queries) == 1
    assert report.debates == 205
    comparison = report.comparison
    # The debate (REFUSE) always agreed; agent a (ACT) never, agent b (REFUSE) always.
    assert comparison["accuracy_improvement"]["value"] == 0.5
    assert comparison["accuracy_improvement"]["n"] == 205
    assert comparison["accuracy_improvement"]["single_agent"]["n"] == 410
    assert comparison["reasoning_depth"]["value"] == round(60 / 25, 4)
    assert report.quality["consensus_rate"] == {"value": 1.0, "n": 205}
    assert report.cost["debate"] == {"mean_cost_usd": 0.012, "mean_tokens": 1200, "n": 205}
    assert report.cost["single_agent"]["n"] == 410 and report.cost["token_ratio"] == 12


@pytest.mark.django_db
def test_the_staff_quality_endpoint_reports_with_n_and_rejects_bad_ranges():
    bulk(3, verdict="ACT")
    api = APIClient()
    url = "/api/v1/evaluation/quality/"
    assert api.get(url).status_code == 401
    api.force_authenticate(UserFactory())
    assert api.get(url).status_code == 403
    api.force_authenticate(StaffFactory())
    body = api.get(url, {"protocol": "s4"}).json()
    assert body["debates"] == 3
    assert body["quality"]["overall_quality"] == {"value": 0.8, "n": 3}
    bias = body["comparison"]["bias_reduction"]
    # Verdict ACT: the debate's REFUSE is +2 too cautious; the agents' ACT 0 and REFUSE +2.
    assert bias["debate_bias"] == 2 and bias["single_agent_bias"] == 1 and bias["value"] == -1
    calibration = body["comparison"]["confidence_calibration"]
    assert calibration["debate_brier"] == 0.81 and calibration["n"] == 3
    bad = api.get(url, {"until": "tomorrow"})
    assert bad.status_code == 400 and "until" in bad.content.decode()
    assert api.get(url, {"protocol": "chess"}).status_code == 400
