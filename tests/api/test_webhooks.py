"""Webhooks: signed events, retried with backoff, every attempt recorded; end to end through a
real worker to a real HTTP receiver."""

from __future__ import annotations

import json
import time
import uuid

import pytest
from django.db import transaction
from django.urls import reverse

from accounts.services import webhook_secret_get
from debates import running, services, webhooks
from debates.models import Debate, WebhookDelivery
from tests.api.conftest import client_for
from tests.conftest import wait_for


def _verify(request: dict, secret: str) -> bool:
    headers = request["headers"]
    return webhooks.verify_signature(
        secret=secret,
        timestamp=headers["X-Debate-Timestamp"],
        body=request["body"],
        header=headers["X-Debate-Signature"],
    )


# --- signing ----------------------------------------------------------------------------------


def test_a_signature_verifies_only_for_the_same_secret_body_and_a_recent_time():
    body = webhooks.encode_body({"event": "debate.completed", "debate": {"id": "x"}})
    now = str(int(time.time()))
    header = webhooks.signature(secret="whsec_a", timestamp=now, body=body)
    assert header.startswith("sha256=") and len(header) == 71
    assert webhooks.verify_signature(secret="whsec_a", timestamp=now, body=body, header=header)
    assert not webhooks.verify_signature(secret="whsec_b", timestamp=now, body=body, header=header)
    assert not webhooks.verify_signature(
        secret="whsec_a", timestamp=now, body=body + b" ", header=header
    )
    old = str(int(time.time()) - 3600)
    stale = webhooks.signature(secret="whsec_a", timestamp=old, body=body)
    assert not webhooks.verify_signature(secret="whsec_a", timestamp=old, body=body, header=stale)


# --- the retry policy, one attempt at a time --------------------------------------------------


@pytest.fixture
def finished_debate(default_agents, user, receiver):
    debate = services.debate_create(
        query="What is the capital of France?",
        created_by=user,
        callback_url=receiver.url,
        enqueue=False,
    )
    return running.debate_run(debate_id=debate.id)


def _attempt(debate, attempt, event_id=None, url=None):
    event_id = event_id or uuid.uuid4()
    payload = webhooks.event_payload(debate=debate, event="debate.completed", event_id=event_id)
    return webhooks.deliver(
        event_id=event_id,
        debate_id=debate.id,
        event="debate.completed",
        url=url or debate.callback_url,
        payload=payload,
        attempt=attempt,
    )


def test_a_5xx_answer_is_retried_and_a_2xx_answer_ends_the_event(finished_debate, receiver, user):
    receiver.answer(500)
    event_id = uuid.uuid4()
    first = _attempt(finished_debate, 1, event_id)
    second = _attempt(finished_debate, 2, event_id)
    assert (first.status, first.retry) == ("failed", True)
    assert (second.status, second.retry) == ("delivered", False)
    rows = list(WebhookDelivery.objects.filter(event_id=event_id).order_by("attempt"))
    assert [(r.attempt, r.status_code, r.status) for r in rows] == [
        (1, 500, "failed"),
        (2, 200, "delivered"),
    ]
    assert rows[0].response_excerpt == "answered 500"
    secret = webhook_secret_get(user=user).secret
    assert all(_verify(r, secret) for r in receiver.requests)


def test_the_last_attempt_gives_up(finished_debate, receiver, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.answer(503)
    result = _attempt(finished_debate, 3)
    assert (result.status, result.retry) == ("gave_up", False)


@pytest.mark.parametrize(
    ("status", "retry"), [(429, True), (408, True), (404, False), (401, False), (302, False)]
)
def test_which_answers_are_retried(finished_debate, receiver, status, retry):
    receiver.answer(status)
    assert _attempt(finished_debate, 1).retry is retry


@pytest.mark.parametrize("status", [302, 307, 308])
def test_a_redirect_is_neither_followed_nor_retried_and_says_why(finished_debate, receiver, status):
    receiver.answer(status)
    result = _attempt(finished_debate, 1)
    assert (result.status, result.retry) == ("gave_up", False)
    row = WebhookDelivery.objects.get()
    assert (row.status_code, row.error) == (status, webhooks.REDIRECT_NOT_FOLLOWED)
    assert [r["path"] for r in receiver.requests] == ["/hooks/debates"]


def test_an_unreachable_receiver_is_retried_with_the_error_recorded(finished_debate):
    result = _attempt(finished_debate, 1, url="http://127.0.0.1:9/nothing-listens")
    assert result.retry is True
    row = WebhookDelivery.objects.get()
    assert row.status_code is None
    assert "ConnectionError" in row.error


def test_a_callback_that_became_private_is_not_sent(finished_debate, receiver, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    result = _attempt(finished_debate, 1)
    assert (result.status, result.retry) == ("gave_up", False)
    assert receiver.requests == []
    assert "public address" in WebhookDelivery.objects.get().error


def test_an_attempt_delivered_twice_is_sent_once(finished_debate, receiver):
    event_id = uuid.uuid4()
    assert _attempt(finished_debate, 1, event_id).status == "delivered"
    assert _attempt(finished_debate, 1, event_id).status == "duplicate"
    assert len(receiver.requests) == 1


def test_backoff_doubles_up_to_a_cap(settings):
    settings.WEBHOOK_RETRY_BASE_DELAY = 10
    settings.WEBHOOK_RETRY_MAX_DELAY = 60
    assert [webhooks.retry_delay(n) for n in range(1, 6)] == [10, 20, 40, 60, 60]


def test_only_debates_with_a_callback_url_schedule_an_event(
    default_agents, user, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []

    class Task:
        @staticmethod
        def delay(**kwargs):
            sent.append((kwargs["debate_id"], kwargs["event"]))

    monkeypatch.setattr(webhooks, "delivery_task", Task)
    with_url = services.debate_create(
        query="Is it?", created_by=user, enqueue=False, callback_url="http://127.0.0.1:9/"
    )
    without = services.debate_create(query="Is it?", created_by=user, enqueue=False)
    with django_capture_on_commit_callbacks(execute=True):
        running.debate_run(debate_id=with_url.id)
    assert sent == [(str(with_url.id), "debate.completed")]
    with django_capture_on_commit_callbacks(execute=True):
        running.debate_run(debate_id=without.id)
    assert len(sent) == 1


def test_deliveries_are_listed_in_the_admin_with_filters(admin_client, finished_debate, receiver):
    receiver.answer(500)
    _attempt(finished_debate, 1)
    response = admin_client.get(
        reverse("admin:debates_webhookdelivery_changelist"), {"status__exact": "failed"}
    )
    text = response.content.decode()
    assert response.status_code == 200
    assert "What is the capital of France?" in text and "debate.completed" in text
    assert "By event" in text


# --- end to end: API -> worker -> debate -> worker -> receiver ---------------------------------


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_a_completed_debate_posts_a_signed_event_retried_after_a_500(
    celery_worker_process, default_agents, user, receiver
):
    receiver.answer(500)  # the first attempt fails, the retry succeeds
    api = client_for(user)
    started = api.post(
        "/api/v1/debates/",
        {"question": "Is Bitcoin a good investment?", "callback_url": receiver.url},
        format="json",
    )
    assert started.status_code == 202, started.json()
    debate_id = started.json()["id"]
    wait_for(lambda: len(receiver.requests) >= 2, timeout=60)
    first, second = receiver.requests[:2]
    secret = api.get("/api/v1/webhook-secret/").json()["secret"]
    assert _verify(first, secret) and _verify(second, secret)
    assert second["headers"]["X-Debate-Event"] == "debate.completed"
    assert first["headers"]["X-Debate-Delivery"] == second["headers"]["X-Debate-Delivery"]
    event = json.loads(second["body"])
    assert event["event"] == "debate.completed"
    assert event["debate"]["id"] == debate_id
    assert event["debate"]["status"] == "completed"
    assert event["debate"]["decision"] == "WARN"
    assert event["debate"]["path"] == f"/api/v1/debates/{debate_id}/"
    rows = wait_for(
        lambda: (
            list(
                WebhookDelivery.objects.filter(
                    debate_id=debate_id, status__in=["failed", "delivered"]
                ).order_by("attempt")
            )
            if WebhookDelivery.objects.filter(debate_id=debate_id, status="delivered").exists()
            else None
        ),
        timeout=10,
    )
    assert [(r.attempt, r.status_code, r.status) for r in rows] == [
        (1, 500, "failed"),
        (2, 200, "delivered"),
    ]
    assert rows[1].created_at > rows[0].finished_at


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_failed_debates_and_resolved_reviews_post_events_too(
    celery_worker_process, default_agents, user, receiver
):
    debate = services.debate_create(
        query="Is it?", created_by=user, enqueue=False, callback_url=receiver.url
    )
    running.debate_fail(debate_id=debate.id, error="The language model failed.")
    wait_for(lambda: len(receiver.requests) >= 1, timeout=30)
    failed = json.loads(receiver.requests[0]["body"])
    assert failed["event"] == "debate.failed"
    assert failed["debate"]["error"] == "The language model failed."

    with transaction.atomic():
        Debate.objects.filter(id=debate.id).update(
            review_status="resolved", decision_override="REFUSE"
        )
        webhooks.notify_review_resolved(debate_id=debate.id)
    wait_for(lambda: len(receiver.requests) >= 2, timeout=30)
    resolved = json.loads(receiver.requests[1]["body"])
    assert receiver.requests[1]["headers"]["X-Debate-Event"] == "review.resolved"
    assert (resolved["debate"]["review_status"], resolved["debate"]["decision"]) == (
        "resolved",
        "REFUSE",
    )
    secret = webhook_secret_get(user=user).secret
    assert all(_verify(r, secret) for r in receiver.requests)
