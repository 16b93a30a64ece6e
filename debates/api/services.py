"""Starting a debate from the API, safely retryable with an `Idempotency-Key`."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import connection, transaction

from debates.models import Debate, IdempotencyKey
from debates.services import debate_create


class IdempotencyConflict(Exception):
    """The key was used before with a different request."""


def request_fingerprint(request: dict[str, Any]) -> str:
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


@transaction.atomic
def debate_start(
    *,
    user,
    question: str,
    protocol: str,
    agents: list[str] | None = None,
    options: dict[str, Any] | None = None,
    callback_url: str = "",
    idempotency_key: str | None = None,
    api_token=None,
) -> tuple[Debate, bool]:
    """Create and enqueue a debate for `user`. Returns (debate, created).

    With an idempotency key, the same key and the same request give back the debate created
    the first time (created=False); the same key with a different request raises
    `IdempotencyConflict`. Concurrent requests with one key are serialised by a transaction
    lock, so they create one debate. On a validation error nothing is stored, key included.
    """
    request = {
        "question": question,
        "protocol": protocol,
        "agents": agents or [],
        "options": options or {},
        "callback_url": callback_url,
    }
    if idempotency_key:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                [f"idempotency:{user.pk}:{idempotency_key}"],
            )
        fingerprint = request_fingerprint(request)
        previous = (
            IdempotencyKey.objects.select_related("debate")
            .filter(user=user, key=idempotency_key)
            .first()
        )
        if previous is not None:
            if previous.request_hash != fingerprint:
                raise IdempotencyConflict
            return previous.debate, False
    debate = debate_create(
        query=question,
        protocol=protocol,
        agents=agents or None,
        options=options,
        created_by=user,
        callback_url=callback_url,
        api_token=api_token,
    )
    if idempotency_key:
        IdempotencyKey.objects.create(
            user=user, key=idempotency_key, request_hash=fingerprint, debate=debate
        )
    return debate, True
