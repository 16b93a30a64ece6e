"""Webhooks: a signed JSON event POSTed to a debate's `callback_url` when something happens to it.

Events: ``debate.completed``, ``debate.failed``, ``review.resolved`` and ``review.overdue``
(and ``ping``, sent on request to test a receiver: `ping`). Links in them are absolute, built
from the setting ``DEBATE_SITE_URL``. Each is signed with the debate owner's webhook secret:
``X-Debate-Signature: sha256=<hex>``, the HMAC-SHA256 of ``<X-Debate-Timestamp>.<raw body>``.
Delivery runs in a Celery task (`debates.tasks.deliver_webhook`) that retries with exponential
backoff, a bounded number of times; every attempt is a `WebhookDelivery` row, visible in the
admin.

Callers schedule an event inside their transaction; it is sent only if that commits:

* the debate runner calls `notify_debate_event` when a debate completes or fails;
* the review service calls `notify_review_resolved(debate_id=..., item_id=...)` when it
  resolves or dismisses a review item, or closes it at its deadline (one event per item
  closed; the debate's `review_status` says whether other items are still pending);
* the deadline sweep sends ``review.overdue`` when one of the debate's items goes past its
  deadline (once per item).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import requests
from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.services import webhook_secret_get
from debates import callbacks
from debates.models import Debate, WebhookDelivery
from debates.outline import outline
from reviews.models import ReviewItem

logger = logging.getLogger(__name__)

Event = WebhookDelivery.Event
SIGNATURE_HEADER = "X-Debate-Signature"
TIMESTAMP_HEADER = "X-Debate-Timestamp"
EVENT_HEADER = "X-Debate-Event"
DELIVERY_HEADER = "X-Debate-Delivery"
RETRYABLE_STATUS = {408, 425, 429}


# --- signing (what a receiver repeats to verify) ----------------------------------------------


def signature(*, secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify_signature(
    *, secret: str, timestamp: str, body: bytes, header: str, tolerance: int | None = 300
) -> bool:
    """True when `header` is the signature of `body` at `timestamp` (and, with a tolerance in
    seconds, the timestamp is recent, which stops replays of old events)."""
    if tolerance is not None:
        try:
            if abs(time.time() - int(timestamp)) > tolerance:
                return False
        except ValueError:
            return False
    expected = signature(secret=secret, timestamp=timestamp, body=body)
    return hmac.compare_digest(expected, header)


def encode_body(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


# --- scheduling -------------------------------------------------------------------------------


def notify_debate_event(*, debate_id, event: str, review_item_id=None) -> None:
    """Send `event` for the debate once the current transaction commits (nothing happens when
    the debate has no callback URL)."""
    transaction.on_commit(
        lambda: _enqueue(debate_id=debate_id, event=event, review_item_id=review_item_id),
        robust=True,
    )


def notify_review_resolved(*, debate_id, item_id=None) -> None:
    """For the review service: call inside the transaction that resolves or dismisses review
    item `item_id`; the event says what became of that item."""
    notify_debate_event(debate_id=debate_id, event=Event.REVIEW_RESOLVED, review_item_id=item_id)


def absolute_url(path: str) -> str:
    """`path` on the site's public base URL (the setting ``DEBATE_SITE_URL``)."""
    return settings.DEBATE_SITE_URL.rstrip("/") + path


def _review_part(item_id) -> dict[str, Any] | None:
    """What a `review.resolved` (`review.overdue`) event says of the item that was closed (went
    past its deadline). Analysts' notes and names stay inside the service."""
    item = ReviewItem.objects.filter(pk=item_id).first() if item_id is not None else None
    if item is None:
        return None
    return {
        "item_id": item.pk,
        "url": absolute_url(reverse("api:review-detail", args=[item.pk])),
        "reason": item.reason,
        "reasons": list(item.reasons or [item.reason]),
        "status": item.status,
        "verdict": item.verdict or None,
        "decision_override": item.decision_override or None,
        "closed_at": item.closed_at.isoformat() if item.closed_at else None,
        "due_at": item.due_at.isoformat() if item.due_at else None,
        "overdue_at": item.overdue_at.isoformat() if item.overdue_at else None,
    }


def event_payload(
    *, debate: Debate, event: str, event_id: uuid.UUID, review_item_id=None
) -> dict[str, Any]:
    """The event body: a snapshot of the debate as it was when the event happened (and, for
    `review.resolved`, of the review item that was closed)."""
    payload = {
        "id": str(event_id),
        "event": str(event),
        "created_at": timezone.now().isoformat(),
        "debate": {
            "id": str(debate.id),
            "url": absolute_url(reverse("api:debate-detail", args=[debate.id])),
            "path": reverse("api:debate-detail", args=[debate.id]),  # deprecated: use `url`
            **outline(debate),
            "reasoning": debate.reasoning,
            "error": debate.error or None,
            "created_at": debate.created_at.isoformat(),
            "completed_at": debate.completed_at.isoformat() if debate.completed_at else None,
        },
    }
    if event in (Event.REVIEW_RESOLVED, Event.REVIEW_OVERDUE):
        payload["review"] = _review_part(review_item_id)
    return payload


#: The Celery task that delivers an event (`debates.tasks.deliver_webhook`), set by
#: `DebatesConfig.ready`: the task module imports this one, not the other way round.
delivery_task = None


def _enqueue(*, debate_id, event: str, review_item_id=None) -> None:
    debate = (
        Debate.objects.filter(id=debate_id, created_by__isnull=False)
        .exclude(callback_url="")
        .first()
    )
    if debate is None:
        return
    event_id = uuid.uuid4()
    delivery_task.delay(
        event_id=str(event_id),
        debate_id=str(debate.id),
        event=str(event),
        url=debate.callback_url,
        payload=event_payload(
            debate=debate, event=event, event_id=event_id, review_item_id=review_item_id
        ),
    )


# --- delivering -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttemptResult:
    status: str
    retry: bool


def retry_delay(attempt: int) -> float:
    """Seconds to wait after failed attempt number `attempt` (1-based): doubling, capped."""
    return min(
        settings.WEBHOOK_RETRY_BASE_DELAY * 2 ** (attempt - 1), settings.WEBHOOK_RETRY_MAX_DELAY
    )


def _claim_attempt(
    *, event_id, debate_id, event: str, url: str, payload: dict, attempt: int
) -> WebhookDelivery | None:
    """The row for this attempt, or None when another delivery of the same task has it.

    A row left 'sending' by a worker that died is taken over once it is clearly stale.
    """
    row, created = WebhookDelivery.objects.get_or_create(
        event_id=event_id,
        attempt=attempt,
        defaults={"debate_id": debate_id, "event": event, "url": url, "payload": payload},
    )
    if created:
        return row
    if row.status != WebhookDelivery.Status.SENDING:
        return None
    now = timezone.now()
    stale_before = now - timedelta(seconds=2 * settings.WEBHOOK_TIMEOUT + 30)
    taken = WebhookDelivery.objects.filter(
        pk=row.pk, status=WebhookDelivery.Status.SENDING, created_at__lt=stale_before
    ).update(created_at=now)
    return row if taken else None


def signed_headers(*, secret: str, event: str, event_id, body: bytes) -> dict[str, str]:
    """The headers every event is sent with, its signature among them."""
    timestamp = str(int(time.time()))
    return {
        "Content-Type": "application/json",
        "User-Agent": "debate-service-webhooks/1",
        EVENT_HEADER: str(event),
        DELIVERY_HEADER: str(event_id),
        TIMESTAMP_HEADER: timestamp,
        SIGNATURE_HEADER: signature(secret=secret, timestamp=timestamp, body=body),
    }


REDIRECT_NOT_FOLLOWED = "The receiver answered with a redirect; redirects are not followed."


def _send(
    *,
    secret: str,
    url: str,
    target: callbacks.CallbackTarget,
    event: str,
    event_id,
    payload: dict,
    traced: dict,
) -> tuple[int | None, str, str]:
    """POST one event, signed with `secret`, to the checked address `target` of `url`
    (`callbacks.post`), as every event and ping is sent. Returns the answer's status code (None:
    no answer, the request failed), its excerpt, and an error: the request's failure, or a
    redirect, which is never followed. What a status code means is the caller's to say."""
    body = encode_body(payload)
    headers = signed_headers(secret=secret, event=event, event_id=event_id, body=body)
    try:
        status_code, excerpt = callbacks.post(
            url=url, target=target, body=body, headers=headers, traced=traced
        )
    except requests.RequestException as exc:
        return None, "", f"{type(exc).__name__}: {exc}"[:2000]
    if 300 <= status_code < 400:
        return status_code, excerpt, REDIRECT_NOT_FOLLOWED
    return status_code, excerpt, ""


PING = "ping"


@dataclass(frozen=True)
class PingResult:
    url: str
    event_id: str
    delivered: bool
    status_code: int | None
    error: str
    response_excerpt: str
    duration_ms: int


def ping(*, user, url: str) -> PingResult:
    """Send a signed ``ping`` event to `url` now, the way every event is sent (the same checks
    on the URL, the same pinned address, the same signature with `user`'s secret, no
    redirects), and report what the receiver answered. Nothing is retried or stored: it tests
    a receiver before a debate relies on it."""
    event_id = uuid.uuid4()
    started = time.monotonic()
    status_code, excerpt, error = None, "", ""
    target = callbacks.check_callback(url)
    if target.problem:
        error = f"Not sent: {target.problem}"
    else:
        payload = {
            "id": str(event_id),
            "event": PING,
            "created_at": timezone.now().isoformat(),
            "site": settings.DEBATE_SITE_URL,
        }
        status_code, excerpt, error = _send(
            secret=webhook_secret_get(user=user).secret,
            url=url,
            target=target,
            event=PING,
            event_id=event_id,
            payload=payload,
            traced={"event": PING},
        )
        if not error and status_code >= 400:
            error = f"The receiver answered {status_code}: it would refuse events."
    return PingResult(
        url=url,
        event_id=str(event_id),
        delivered=status_code is not None and 200 <= status_code < 300,
        status_code=status_code,
        error=error,
        response_excerpt=excerpt[:500],
        duration_ms=int((time.monotonic() - started) * 1000),
    )


def deliver(
    *, event_id, debate_id, event: str, url: str, payload: dict, attempt: int
) -> AttemptResult:
    """Make delivery attempt number `attempt` of one event and record it.

    Retried: network errors, timeouts, 5xx, 408/425/429, while attempts remain. Not retried:
    other answers (the receiver refused the event) and callback URLs no longer allowed.
    """
    row = _claim_attempt(
        event_id=event_id,
        debate_id=debate_id,
        event=event,
        url=url,
        payload=payload,
        attempt=attempt,
    )
    if row is None:
        return AttemptResult(status="duplicate", retry=False)
    last = attempt >= settings.WEBHOOK_MAX_ATTEMPTS
    debate = Debate.objects.select_related("created_by").filter(id=debate_id).first()
    owner = debate.created_by if debate else None
    status_code = None
    excerpt = error = ""
    retryable = False
    started = time.monotonic()
    target = callbacks.check_callback(url)
    problem = target.problem
    if owner is None:
        error = "The debate has no owner whose secret could sign the event."
    elif problem:
        error = f"Not sent: {problem}"
    else:
        status_code, excerpt, error = _send(
            secret=webhook_secret_get(user=owner).secret,
            url=url,
            target=target,
            event=event,
            event_id=event_id,
            payload=payload,
            traced={"debate": debate_id, "event": event, "attempt": attempt},
        )
        if status_code is None:  # no answer: the network failed or timed out
            retryable = True
        elif not error and (status_code >= 500 or status_code in RETRYABLE_STATUS):
            retryable = True
        elif not error and status_code >= 400:
            error = "The receiver refused the event."
    if status_code is not None and 200 <= status_code < 300:
        status = WebhookDelivery.Status.DELIVERED
    elif retryable and not last:
        status = WebhookDelivery.Status.FAILED
    else:
        status = WebhookDelivery.Status.GAVE_UP
    row.status = status
    row.status_code = status_code
    row.response_excerpt = excerpt
    row.error = error
    row.duration_ms = int((time.monotonic() - started) * 1000)
    row.finished_at = timezone.now()
    row.save(
        update_fields=[
            "status",
            "status_code",
            "response_excerpt",
            "error",
            "duration_ms",
            "finished_at",
        ]
    )
    if status != WebhookDelivery.Status.DELIVERED:
        logger.info(
            "webhook %s attempt %s to %s: %s %s",
            event_id,
            attempt,
            url,
            status,
            status_code or error,
        )
    return AttemptResult(status=status, retry=status == WebhookDelivery.Status.FAILED)
