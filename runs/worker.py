"""What the `debate` and `contradictions` commands share: a worker to run on, and waiting."""

from __future__ import annotations

import time

from django.core.management.base import CommandError


def require_worker() -> None:
    """Fail with instructions when no Celery worker answers (instead of waiting forever)."""
    from config.celery import app

    try:
        replies = app.control.ping(timeout=2.0)
    except Exception as exc:  # noqa: BLE001 - broker down is reported, not raised raw
        raise CommandError(f"Cannot reach the Celery broker: {exc}") from exc
    if not replies:
        raise CommandError(
            "No Celery worker answered. Start one with "
            "`.venv/bin/celery -A config worker -l info`, or pass --in-process."
        )


def wait_until_finished(queryset, *, done: tuple[str, ...], timeout: float, what: str) -> None:
    """Poll the one-row `queryset`'s status until it is in `done`, or fail after `timeout`."""
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        status = queryset.values_list("status", flat=True).first()
        if status in done:
            return
        time.sleep(0.2)
    raise CommandError(
        f"{what} did not finish within {timeout:g} s; it is still {status}. Check the worker's log."
    )
