"""`review.resolved`: resolving or dismissing a review item sends the debate's owner a signed
event with the debate's new effective decision, through a real worker to a real receiver."""

from __future__ import annotations

import json
import uuid
from unittest import mock

import pytest
from django.conf import settings

from accounts.services import webhook_secret_get
from debates import running, webhooks
from debates import services as debate_services
from debates.models import Debate
from reviews import services
from reviews.models import ReviewItem
from tests.api.conftest import client_for
from tests.conftest import wait_for
from tests.reviews.conftest import SPLIT


def _split_debate(owner, callback_url: str = ""):
    debate = debate_services.debate_create(
        query=SPLIT, created_by=owner, enqueue=False, callback_url=callback_url
    )
    return running.debate_run(debate_id=debate.id)


def test_closing_an_item_schedules_one_event_and_a_refused_action_none(
    default_agents, user, staff_user, django_capture_on_commit_callbacks, receiver
):
    debate = _split_debate(user, receiver.url)
    split = ReviewItem.objects.get(debate=debate)  # split vote and low confidence: one item
    low = ReviewItem.objects.get(debate=_split_debate(user, receiver.url))
    with django_capture_on_commit_callbacks() as scheduled:
        services.review_resolve(item_id=split.pk, user=staff_user, verdict="uphold", note="ok")
    assert len(scheduled) == 1
    with django_capture_on_commit_callbacks() as scheduled:
        with pytest.raises(services.ReviewConflict):
            services.review_dismiss(item_id=split.pk, user=staff_user, note="again")
        services.review_claim(item_id=low.pk, user=staff_user)
        services.review_release(item_id=low.pk, user=staff_user)
    assert scheduled == []  # claiming and releasing decide nothing
    with django_capture_on_commit_callbacks() as scheduled:
        services.review_dismiss(item_id=low.pk, user=staff_user, note="confidence is fine")
    assert len(scheduled) == 1


def test_the_event_names_the_item_and_its_verdict_but_not_the_analysts_note(
    default_agents, user, staff_user
):
    debate = _split_debate(user, "http://127.0.0.1:9/")
    item = ReviewItem.objects.get(debate=debate, reason="split_vote")
    services.review_resolve(
        item_id=item.pk,
        user=staff_user,
        verdict="override",
        decision="REFUSE",
        note="internal: reads as advice",
    )
    debate.refresh_from_db()
    payload = webhooks.event_payload(
        debate=debate, event="review.resolved", event_id=uuid.uuid4(), review_item_id=item.pk
    )
    assert payload["review"] == {
        "item_id": item.pk,
        "url": f"{settings.DEBATE_SITE_URL}/api/v1/reviews/{item.pk}/",
        "reason": "split_vote",
        "reasons": ["split_vote", "low_confidence"],
        "status": "resolved",
        "verdict": "override",
        "decision_override": "REFUSE",
        "closed_at": payload["review"]["closed_at"],
        "due_at": item.due_at.isoformat(),
        "overdue_at": None,
    }
    assert (payload["debate"]["decision"], payload["debate"]["machine_decision"]) == (
        "REFUSE",
        "WARN",
    )
    assert "reads as advice" not in json.dumps(payload)


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_resolving_and_dismissing_through_the_api_post_signed_review_events(
    celery_worker_process, default_agents, user, staff_user, receiver
):
    debate = _split_debate(user, receiver.url)
    other = _split_debate(user, receiver.url)
    wait_for(lambda: len(receiver.requests) >= 2, timeout=30)
    assert {r["headers"]["X-Debate-Event"] for r in receiver.requests} == {"debate.completed"}
    split = ReviewItem.objects.get(debate=debate)  # split vote and low confidence: one item
    low = ReviewItem.objects.get(debate=other)
    staff = client_for(staff_user)

    resolved = staff.post(
        f"/api/v1/reviews/{split.pk}/resolve/",
        {"verdict": "override", "decision": "REFUSE", "note": "too risky"},
        format="json",
    )
    assert resolved.status_code == 200
    wait_for(lambda: len(receiver.requests) >= 3, timeout=30)
    dismissed = staff.post(f"/api/v1/reviews/{low.pk}/dismiss/", {"note": "fine"}, format="json")
    assert dismissed.status_code == 200
    wait_for(lambda: len(receiver.requests) >= 4, timeout=30)

    secret = webhook_secret_get(user=user).secret
    first, second = receiver.requests[2], receiver.requests[3]
    for request in (first, second):
        assert request["headers"]["X-Debate-Event"] == "review.resolved"
        assert webhooks.verify_signature(
            secret=secret,
            timestamp=request["headers"]["X-Debate-Timestamp"],
            body=request["body"],
            header=request["headers"]["X-Debate-Signature"],
        )
    after_override = json.loads(first["body"])
    assert after_override["event"] == "review.resolved"
    assert after_override["debate"]["id"] == str(debate.id)
    assert (
        after_override["debate"]["decision"],
        after_override["debate"]["machine_decision"],
        after_override["debate"]["review_status"],
    ) == ("REFUSE", "WARN", "resolved")
    assert (
        after_override["debate"]["url"] == f"{settings.DEBATE_SITE_URL}/api/v1/debates/{debate.id}/"
    )
    assert (after_override["review"]["item_id"], after_override["review"]["verdict"]) == (
        split.pk,
        "override",
    )
    after_dismissal = json.loads(second["body"])
    assert after_dismissal["debate"]["id"] == str(other.id)
    assert after_dismissal["debate"]["review_status"] == "dismissed"
    assert after_dismissal["debate"]["decision"] == "WARN"
    assert (
        after_dismissal["review"]["item_id"],
        after_dismissal["review"]["status"],
        after_dismissal["review"]["verdict"],
    ) == (low.pk, "dismissed", None)
    assert first["headers"]["X-Debate-Delivery"] != second["headers"]["X-Debate-Delivery"]


def test_a_given_up_debate_sends_debate_failed_and_its_rerun_sends_review_resolved(
    default_agents, user, staff_user, django_capture_on_commit_callbacks
):
    debate = debate_services.debate_create(
        query=SPLIT, created_by=user, enqueue=False, callback_url="http://127.0.0.1:9/hook"
    )
    Debate.objects.filter(id=debate.id).update(recoveries=settings.DEBATE_MAX_RECOVERIES)
    with (
        mock.patch("debates.tasks.deliver_webhook.delay") as deliver,
        mock.patch("debates.tasks.run_debate.delay"),
    ):
        with django_capture_on_commit_callbacks(execute=True):
            running.debate_fail(debate_id=debate.id, error="Gave up after 3 re-enqueues.")
        item = ReviewItem.objects.get(debate=debate, reason="debate_failed")
        with django_capture_on_commit_callbacks(execute=True):
            services.review_rerun(item_id=item.pk, user=staff_user, note="internal: worker back")
    events = [call.kwargs["payload"] for call in deliver.call_args_list]
    assert [e["event"] for e in events] == ["debate.failed", "review.resolved"]
    assert (events[0]["debate"]["status"], events[0]["debate"]["error"]) == (
        "failed",
        "Gave up after 3 re-enqueues.",
    )
    assert events[1]["debate"]["status"] == "queued"
    assert (events[1]["review"]["reason"], events[1]["review"]["verdict"]) == (
        "debate_failed",
        "rerun",
    )
    assert "worker back" not in json.dumps(events)
