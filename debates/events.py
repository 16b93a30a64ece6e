"""A debate's events, one per step its runner stores: published to a Redis stream of its own
(`debates:events:<id>`) once the step is committed, and read by the server-sent events of
`GET /api/v1/debates/<id>/events/` (`debates.api.events`) and, through them, the live page.

- `call.started`: a step's calls are recorded, about to be made (call, key, participant, step,
  round);
- `call.finished`: a call's reply is stored, or its last attempt failed (the same, with status,
  model, tokens, latency and the parsed reply, or the error);
- `round.finished`: a round's last reply is stored (round, name);
- `decision`: the debate completed (decision, consensus, reasoning);
- `review.flagged`: its outcome went to the review queue (reasons, item);
- `failed`: the debate failed for good (error).

A Redis stream keeps the events in order with ids (`<ms>-<n>`) a reconnecting client sends
back (`Last-Event-ID`) to get what it missed, and lets readers block until the next one
arrives, with no database connection. It holds at most `MAX_EVENTS` events and is dropped
`KEEP_SECONDS` after its last one; a reader of a debate whose stream is gone is told its end
from the database. Publishing never stops a debate: when Redis cannot be reached the events
are lost (the page's poll still shows everything).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import redis
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

EVENT_TYPES = (
    "call.started",
    "call.finished",
    "round.finished",
    "decision",
    "review.flagged",
    "failed",
)
#: After these a debate has no more events.
FINAL = ("decision", "failed")
MAX_EVENTS = 1000
KEEP_SECONDS = 24 * 3600

_lock = threading.Lock()
_client: tuple[str, redis.Redis] | None = None


def stream_key(debate_id) -> str:
    return f"debates:events:{debate_id}"


def _redis() -> redis.Redis:
    global _client
    with _lock:
        if _client is None or _client[0] != settings.REDIS_URL:
            _client = (
                settings.REDIS_URL,
                redis.Redis.from_url(
                    settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2
                ),
            )
        return _client[1]


def publish(debate_id, events: list[tuple[str, dict[str, Any]]]) -> None:
    """Add `events` ((type, data), in order) to the debate's stream once the current
    transaction commits (at once outside one)."""
    if events:
        transaction.on_commit(lambda: _send(debate_id, events))


def _send(debate_id, events: list[tuple[str, dict[str, Any]]]) -> None:
    key = stream_key(debate_id)
    try:
        pipe = _redis().pipeline(transaction=False)
        for kind, data in events:
            body = json.dumps({"debate": str(debate_id), **data}, default=str)
            pipe.xadd(key, {"event": kind, "data": body}, maxlen=MAX_EVENTS, approximate=True)
        pipe.expire(key, KEEP_SECONDS)
        pipe.execute()
    except redis.RedisError:
        logger.warning("debate %s: its events could not be published", debate_id, exc_info=True)


def call_data(call_id, request, round_number: int | None = None) -> dict[str, Any]:
    """What every call event says of its call (a `protocols.base.CallRequest`)."""
    return {
        "call": call_id,
        "key": request.key,
        "participant": request.participant,
        "step": request.step,
        "round": request.round_number if round_number is None else round_number,
    }
