"""Failed debates' and runs' review items over the API: read them, set the decision, re-run,
dismiss; contradictions' items read too."""

from __future__ import annotations

from unittest import mock

import pytest
from django.conf import settings
from django.utils import timezone

from contradictions import running as contradiction_running
from contradictions import services as contradiction_services
from contradictions.models import ContradictionRun
from debates.models import Debate
from reviews.models import ReviewItem
from tests.contradictions.conftest import ScriptedArbitrator, reports_of
from tests.recovery.test_sweeper import LATER_THAN_QUEUED
from tests.reviews.conftest import PROVIDER_ERROR, SPLIT, failed_debate, run_offline

URL = "/api/v1/reviews/"
FAILED_ERROR = f"The language model failed (permanent): {PROVIDER_ERROR}"


@pytest.fixture
def failed_item(default_agents) -> ReviewItem:
    return failed_debate().review_items.get()


@pytest.fixture
def run_item(db) -> ReviewItem:
    """A contradiction run no worker ever took, given up by the sweeper."""
    run = contradiction_services.contradiction_run_create(
        reports=reports_of("simple"), enqueue=False
    )
    ContradictionRun.objects.filter(id=run.id).update(recoveries=settings.DEBATE_MAX_RECOVERIES)
    contradiction_running.recover_stuck_contradiction_runs(now=timezone.now() + LATER_THAN_QUEUED)
    return run.review_items.get()


def test_a_failed_debates_item_says_why_and_offers_every_decision(staff_api, failed_item):
    body = staff_api.get(f"{URL}{failed_item.pk}/").json()
    assert (body["reason"], body["reason_label"], body["summary"]) == (
        "debate_failed",
        "Debate failed",
        FAILED_ERROR,
    )
    assert body["details"]["error"] == FAILED_ERROR
    debate = body["debate"]
    assert (debate["status"], debate["decision"], debate["machine_decision"]) == (
        "failed",
        None,
        None,
    )
    assert debate["error"] == FAILED_ERROR
    assert debate["allowed_decisions"] == ["ACT", "WARN", "REFUSE"]
    assert (body["contradiction"], body["contradiction_run"], body["other_items"]) == (
        None,
        None,
        [],
    )
    listed = staff_api.get(URL, {"reason": "debate_failed"}).json()["results"]
    assert [(r["id"], r["debate"]["status"]) for r in listed] == [(failed_item.pk, "failed")]


def test_an_analyst_sets_a_failed_debates_decision(staff_api, failed_item):
    upheld = staff_api.post(
        f"{URL}{failed_item.pk}/resolve/", {"verdict": "uphold", "note": "fine"}, format="json"
    )
    assert upheld.status_code == 400
    assert "there is none to uphold" in upheld.json()["verdict"][0]
    response = staff_api.post(
        f"{URL}{failed_item.pk}/resolve/",
        {"verdict": "override", "decision": "REFUSE", "note": "Reads as investment advice."},
        format="json",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["status"], body["verdict"], body["decision_override"]) == (
        "resolved",
        "override",
        "REFUSE",
    )
    assert (
        body["debate"]["status"],
        body["debate"]["decision"],
        body["debate"]["machine_decision"],
    ) == ("failed", "REFUSE", None)
    debate = staff_api.get(body["debate"]["url"]).json()
    assert (debate["status"], debate["decision"], debate["review_status"]) == (
        "failed",
        "REFUSE",
        "resolved",
    )


def test_an_analyst_reruns_a_failed_debate_once(
    staff_api, failed_item, django_capture_on_commit_callbacks
):
    with (
        mock.patch("debates.tasks.run_debate.delay") as enqueue,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = staff_api.post(
            f"{URL}{failed_item.pk}/rerun/", {"note": "Key renewed."}, format="json"
        )
    assert response.status_code == 200, response.json()
    enqueue.assert_called_once_with(str(failed_item.debate_id))
    body = response.json()
    assert (body["status"], body["verdict"], body["note"]) == ("resolved", "rerun", "Key renewed.")
    assert (body["debate"]["status"], body["debate"]["error"]) == ("queued", None)
    assert body["events"][-1]["data"]["error"] == FAILED_ERROR
    again = staff_api.post(f"{URL}{failed_item.pk}/rerun/", {}, format="json")
    assert again.status_code == 409
    assert "already resolved by sam" in again.json()["detail"]


@pytest.mark.parametrize(("body", "field"), [({"note": 5}, "note"), ({"note": "x" * 5001}, "note")])
def test_a_bad_rerun_note_is_a_400(staff_api, failed_item, body, field):
    response = staff_api.post(f"{URL}{failed_item.pk}/rerun/", body, format="json")
    assert response.status_code == 400 and field in response.json()
    assert Debate.objects.get(id=failed_item.debate_id).status == "failed"


def test_only_failures_are_rerun_and_only_by_staff(staff_api, api, anon_api, failed_item):
    split = ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")
    response = staff_api.post(f"{URL}{split.pk}/rerun/", {}, format="json")
    assert response.status_code == 400
    assert response.json()["non_field_errors"][0].startswith(
        "Only a failed debate or run can be re-run"
    )
    assert api.post(f"{URL}{failed_item.pk}/rerun/", {}, format="json").status_code == 403
    assert anon_api.post(f"{URL}{failed_item.pk}/rerun/", {}, format="json").status_code == 401
    assert staff_api.post(f"{URL}999999/rerun/", {}, format="json").status_code == 404
    assert Debate.objects.get(id=failed_item.debate_id).status == "failed"


def test_a_failed_runs_item_reads_reruns_and_has_no_decision(
    staff_api, run_item, django_capture_on_commit_callbacks
):
    body = staff_api.get(f"{URL}{run_item.pk}/").json()
    assert (body["reason"], body["debate"], body["contradiction"]) == ("run_failed", None, None)
    run = body["contradiction_run"]
    assert (run["id"], run["status"], run["review_status"]) == (
        str(run_item.contradiction_run_id),
        "failed",
        "pending",
    )
    assert "no worker took the contradiction run" in run["error"]
    assert run["url"].endswith(f"/api/v1/contradiction-runs/{run_item.contradiction_run_id}/")
    refused = staff_api.post(
        f"{URL}{run_item.pk}/resolve/",
        {"verdict": "override", "decision": "ACT", "note": "x"},
        format="json",
    )
    assert refused.status_code == 400
    assert "no decision to uphold or override" in refused.json()["verdict"][0]
    with (
        mock.patch("contradictions.tasks.run_contradictions.delay") as enqueue,
        django_capture_on_commit_callbacks(execute=True),
    ):
        rerun = staff_api.post(f"{URL}{run_item.pk}/rerun/", {}, format="json")
    assert rerun.status_code == 200
    enqueue.assert_called_once_with(str(run_item.contradiction_run_id))
    assert rerun.json()["contradiction_run"]["status"] == "queued"


def test_a_contradictions_item_reads_with_its_runs_other_items(staff_api):
    reports = reports_of("simple")
    run = contradiction_services.contradiction_run_create(reports=reports, enqueue=False)
    undecided = ScriptedArbitrator(reply=lambda messages: "no idea")  # unreadable: flagged
    with mock.patch("agents.gateway.acomplete", undecided):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    item = ReviewItem.objects.get(contradiction__run=run)
    listed = staff_api.get(URL, {"reason": "flag_for_review"}).json()["results"]
    assert [r["contradiction"]["run"] for r in listed] == [str(run.id)]
    body = staff_api.get(f"{URL}{item.pk}/").json()
    assert body["debate"] is None
    assert body["contradiction"] == {
        "id": item.contradiction_id,
        "metric": "Qatar unemployment rate",
        "severity": item.contradiction.severity,
        "run": str(run.id),
    }
    assert body["other_items"] == []
