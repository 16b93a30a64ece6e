"""Per-user limits on starting work (debates, contradiction runs), counted in Redis so they
hold across every web process.

A fixed window per user: the first request of a window creates the counter with the window's
lifetime (SET NX), every request increments it (INCR, atomic in Redis) by what it starts (a
batch by its items), and a request that would pass the limit is refused, and not counted,
until the window ends, which `Retry-After` tells the client.
"""

from __future__ import annotations

import math
import time

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from rest_framework.throttling import BaseThrottle

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """'30/minute' -> (30, 60). The period is counted by its first letter, as DRF does."""
    try:
        count, period = rate.split("/")
        return int(count), PERIODS[period.strip()[0].lower()]
    except (ValueError, KeyError, IndexError):
        raise ImproperlyConfigured(
            f"Invalid rate {rate!r}: use '<number>/<second|minute|hour|day>'."
        ) from None


class CreateRateThrottle(BaseThrottle):
    """Subclasses name their `scope` (the Redis key's namespace) and the setting that holds
    their rate, e.g. ``"30/minute"``."""

    scope: str
    rate_setting: str

    def __init__(self):
        self.retry_after: float | None = None

    def weight(self, request) -> int:
        """How many starts the request counts for (a batch counts each of its items)."""
        return 1

    def allow_request(self, request, view):
        if not request.user or not request.user.is_authenticated:
            return True  # authentication refuses these first
        limit, period = parse_rate(getattr(settings, self.rate_setting))
        now = time.time()
        window = int(now // period)
        key = f"throttle:{self.scope}:{request.user.pk}:{period}:{window}"
        weight = self.weight(request)
        cache.add(key, 0, timeout=period + 1)
        try:
            count = cache.incr(key, weight)
        except ValueError:  # the counter expired between add and incr: a new window
            cache.add(key, weight, timeout=period + 1)
            count = weight
        if count <= limit:
            return True
        try:  # a refused request starts nothing, so it counts for nothing
            cache.decr(key, weight)
        except ValueError:  # the window ended meanwhile: its counter is gone
            pass
        self.retry_after = (window + 1) * period - now
        return False

    def wait(self):
        return math.ceil(self.retry_after) if self.retry_after is not None else None
