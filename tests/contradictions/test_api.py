"""Contradiction runs over the API: 202, per-field 400s with nothing stored, reading, visibility."""

from __future__ import annotations

from unittest import mock

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from accounts.services import token_issue
from agents import gateway
from contradictions import running as contradiction_running
from contradictions import services
from contradictions.models import ContradictionRun, Finding
from tests.contradictions.conftest import SCENARIOS, ScriptedArbitrator, claim, report

URL = "/api/v1/contradiction-runs/"
pytestmark = pytest.mark.usefixtures("sources")


def client_for(user) -> APIClient:
    client = APIClient()
    _, raw = token_issue(user=user, name="tests")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture(autouse=True)
def _fresh_throttle_counters(redis_client):
    prefix = django_settings.CACHES["default"].get("KEY_PREFIX", "")
    for key in redis_client.scan_iter(f"{prefix}:*throttle:contradiction*"):
        redis_client.delete(key)


@pytest.fixture
def api(user):
    return client_for(user)


def test_starting_a_run_answers_202_and_stores_it_queued(api, user):
    with mock.patch("contradictions.tasks.run_contradictions.delay"):
        response = api.post(URL, {"reports": SCENARIOS["both_valid"]}, format="json")
    assert response.status_code == 202, response.json()
    body = response.json()
    run = ContradictionRun.objects.get(id=body["id"])
    assert body["status"] == "queued"
    assert response["Location"] == body["url"] == f"http://testserver{URL}{run.id}/"
    assert run.created_by == user and run.origin == "api"
    assert Finding.objects.filter(run=run).count() == 2
    assert float(run.value_threshold) == 0.05


def test_thresholds_may_be_set_per_run(api):
    response = api.post(
        URL,
        {"reports": SCENARIOS["simple"], "value_threshold": 0.5, "confidence_gap": 0.2},
        format="json",
    )
    run = ContradictionRun.objects.get(id=response.json()["id"])
    assert (float(run.value_threshold), run.confidence_gap) == (0.5, 0.2)


def finding(**overrides):
    data = claim(0.1, "GCC-STAT", "2024")
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not ...}


BAD_INPUT = [
    ({}, ["reports"], "at least one report"),
    ({"reports": []}, ["reports"], "at least one report"),
    ({"reports": "lots"}, ["reports"], "Expected a list of reports"),
    ({"reports": [report("A", 0.9)]}, ["reports", 0, "findings"], "at least one finding"),
    (
        {"reports": [report("A", 0.9, finding(metric=...))]},
        ["reports", 0, "findings", 0, "metric"],
        "Name the metric",
    ),
    (
        {"reports": [report("A", 0.9, finding(metric="  "))]},
        ["reports", 0, "findings", 0, "metric"],
        "Name the metric",
    ),
    (
        {"reports": [report("A", 0.9, finding(value="0.1"))]},
        ["reports", 0, "findings", 0, "value"],
        "Expected a number (e.g. 0.12), got str",
    ),
    (
        {"reports": [report("A", 0.9, finding(value=True))]},
        ["reports", 0, "findings", 0, "value"],
        "Expected a number",
    ),
    (
        {"reports": [report("A", 0.9, finding(value=None))]},
        ["reports", 0, "findings", 0, "value"],
        "A number is required when a unit is given",
    ),
    (
        {"reports": [report("A", 0.9, finding(value=None, unit=""))]},
        ["reports", 0, "findings", 0, "value"],
        "claims nothing",
    ),
    (
        {"reports": [report("A", 0.9, finding(value=1e25))]},
        ["reports", 0, "findings", 0, "value"],
        "smaller than 10^20",
    ),
    ({"reports": [report("A", 1.5, finding())]}, ["reports", 0, "confidence"], "not a percentage"),
    (
        {"reports": [report("A", 0.9, finding(confidence=-0.1))]},
        ["reports", 0, "findings", 0, "confidence"],
        "between 0 and 1",
    ),
    (
        {"reports": [report("A", 0.9, finding(confidence=85))]},
        ["reports", 0, "findings", 0, "confidence"],
        "between 0 and 1",
    ),
    (
        {"reports": [{"confidence": 0.9, "findings": [finding()]}]},
        ["reports", 0, "agent"],
        "Name the agent",
    ),
    (
        {"reports": [report("A", 0.9, finding()), report("a", 0.8, finding())]},
        ["reports"],
        "reports once",
    ),
    (
        {"reports": SCENARIOS["simple"], "value_threshold": "5%"},
        ["value_threshold"],
        "Expected a number",
    ),
    ({"reports": SCENARIOS["simple"], "value_threshold": 0}, ["value_threshold"], ""),
    ({"debate": "not-a-uuid"}, ["debate"], "UUID"),
    ({"debate": "5b3f5e9c-1d7f-4a53-a8f6-5a7a1f9b2d11"}, ["debate"], "no such debate"),
]


@pytest.mark.parametrize(
    ("body", "path", "message"),
    BAD_INPUT,
    ids=[f"{'.'.join(map(str, p))}:{m[:20]}" for _, p, m in BAD_INPUT],
)
def test_bad_input_gets_a_400_naming_the_field_and_stores_nothing(api, body, path, message):
    before = (ContradictionRun.objects.count(), Finding.objects.count())
    response = api.post(URL, body, format="json")
    assert response.status_code == 400
    detail = response.json()
    for step in path:  # list positions come as keys: {"reports": {"0": {"findings": ...}}}
        detail = detail[str(step)] if isinstance(detail, dict) else detail[step]
    text = " ".join(detail) if isinstance(detail, list) else str(detail)
    assert message in text, response.json()
    assert (ContradictionRun.objects.count(), Finding.objects.count()) == before


def test_too_many_claims_are_refused_with_the_limit(api, settings):
    settings.CONTRADICTION_MAX_CLAIMS = 3
    body = {
        "reports": [
            report("A", 0.9, *[finding(metric=f"m{i}") for i in range(2)]),
            report("B", 0.9, *[finding(metric=f"m{i}") for i in range(2)]),
        ]
    }
    response = api.post(URL, body, format="json")
    assert response.status_code == 400
    assert "Too many claims: 4; a run takes at most 3" in response.json()["reports"][0]
    assert not ContradictionRun.objects.exists()


def test_a_malformed_body_is_a_400_not_a_500(api):
    response = api.post(URL, "{not json", content_type="application/json")
    assert response.status_code == 400


def test_starting_runs_is_throttled_per_user(api, settings):
    settings.CONTRADICTION_API_CREATE_RATE = "2/minute"
    codes = [
        api.post(URL, {"reports": SCENARIOS["simple"]}, format="json").status_code for _ in range(3)
    ]
    assert codes == [202, 202, 429]


def test_anonymous_clients_are_refused(client):
    assert client.post(URL, {}, content_type="application/json").status_code in (401, 403)
    assert client.get(URL).status_code in (401, 403)


def _completed(user, name="source_conflict"):
    from contradictions.inputs import parse_payload

    run = services.contradiction_run_create(
        reports=parse_payload(SCENARIOS[name])["reports"], created_by=user, enqueue=False
    )
    with mock.patch.object(gateway, "acomplete", ScriptedArbitrator()):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    return run


def test_a_run_reads_back_with_contradictions_resolutions_calls_and_adjusted_reports(api, user):
    run = _completed(user)
    body = api.get(f"{URL}{run.id}/").json()
    assert body["status"] == "completed"
    assert (body["contradictions_found"], body["resolved"], body["flagged"]) == (1, 1, 0)
    assert body["review_status"] is None
    [c] = body["contradictions"]
    assert c["rules"] == ["value_gap", "source_conflict"] and c["severity"] == "high"
    assert [f["agent"] for f in c["findings"]] == ["LabourEconomist", "NationalStrategy"]
    assert c["resolution"]["resolution"] == "agent1_correct"
    assert c["call"]["status"] == "done" and c["call"]["raw_response"]
    assert body["reports"][1]["findings"][0]["value"] == 0.12
    assert body["adjusted_reports"][1]["findings"][0]["status"] == "replaced"
    assert body["consensus"][0]["status"] == "resolved"
    assert body["page"].endswith(f"/contradictions/{run.id}/")
    # The result shape (docs/concepts/contradictions.md#result-shape): flagged_for_review,
    # latency_ms, "complete".
    assert body["debate_results"] == {
        "contradictions_found": 1,
        "resolved": 1,
        "flagged_for_review": 0,
        "consensus_narrative": body["consensus_narrative"],
        "latency_ms": body["arbitration_ms"],
        "status": "complete",
    }


def test_a_run_without_contradictions_reads_back_as_skipped(api, user):
    run = _completed(user, "no_contradictions")
    body = api.get(f"{URL}{run.id}/").json()
    assert (body["status"], body["arbitration_skipped"]) == ("completed", True)
    assert body["debate_results"] == {
        "contradictions_found": 0,
        "status": "skipped",
        "latency_ms": 0,
    }
    listed = api.get(URL).json()["results"]
    assert [r["debate_results"]["status"] for r in listed] == ["skipped"]


def test_users_see_their_own_runs_and_staff_see_everyones(api, user, other_user, staff_user):
    mine = _completed(user, "simple")
    theirs = _completed(other_user, "simple")
    assert [r["id"] for r in api.get(URL).json()["results"]] == [str(mine.id)]
    assert api.get(f"{URL}{theirs.id}/").status_code == 404
    staff = client_for(staff_user)
    assert {r["id"] for r in staff.get(URL).json()["results"]} == {str(mine.id), str(theirs.id)}
    assert staff.get(f"{URL}{theirs.id}/").status_code == 200
    assert api.get(f"{URL}not-a-uuid/").status_code == 404


def test_the_list_filters_by_status(api, user):
    done = _completed(user, "simple")
    with mock.patch("contradictions.tasks.run_contradictions.delay"):
        queued = api.post(URL, {"reports": SCENARIOS["simple"]}, format="json").json()
    assert [r["id"] for r in api.get(URL, {"status": "queued"}).json()["results"]] == [queued["id"]]
    assert [r["id"] for r in api.get(URL, {"status": "completed"}).json()["results"]] == [
        str(done.id)
    ]
    assert api.get(URL, {"status": "bogus"}).status_code == 400


def test_a_run_can_start_from_a_debate_of_yours_only(api, user, other_user, default_agents):
    from tests.reviews.conftest import run_offline

    debate = run_offline("Is Bitcoin a good investment?")
    debate.created_by = other_user
    debate.save(update_fields=["created_by"])
    response = api.post(URL, {"debate": str(debate.id)}, format="json")
    assert response.status_code == 400 and "no such debate" in response.json()["debate"][0]
    debate.created_by = user
    debate.save(update_fields=["created_by"])
    with mock.patch("contradictions.tasks.run_contradictions.delay"):
        response = api.post(URL, {"debate": str(debate.id)}, format="json")
    assert response.status_code == 202, response.json()
    run = ContradictionRun.objects.get(id=response.json()["id"])
    assert run.debate_id == debate.id and run.reports.count() == 3
