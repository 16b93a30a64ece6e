"""Limits per user (or per anything), counted in Redis so they hold across every web process,
and shared by every entry point: the API's create throttles and the New debate and New
contradiction run forms count against the same counters.

A fixed window per key: the first hit of a window creates the counter with the window's
lifetime (add), every hit increments it (INCR, atomic in Redis), and hits past the limit are
refused until the window ends.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.shortcuts import render

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
PERIOD_NAMES = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}

# What a user starts, and the setting holding its rate ("30/minute").
DEBATE_CREATE = ("debate_create", "DEBATE_API_CREATE_RATE")
CONTRADICTION_RUN_CREATE = ("contradiction_run_create", "CONTRADICTION_API_CREATE_RATE")


def parse_rate(rate: str) -> tuple[int, int]:
    """'30/minute' -> (30, 60). The period is counted by its first letter, as DRF does."""
    try:
        count, period = rate.split("/")
        return int(count), PERIODS[period.strip()[0].lower()]
    except (ValueError, KeyError, IndexError):
        raise ImproperlyConfigured(
            f"Invalid rate {rate!r}: use '<number>/<second|minute|hour|day>'."
        ) from None


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    period: int
    retry_after: float  # seconds until the window ends (0 when allowed)

    def message(self, what: str) -> str:
        return (
            f"You may start at most {self.limit} {what} per {PERIOD_NAMES[self.period]}. "
            f"Try again in {max(1, round(self.retry_after))} s."
        )


def hit(scope: str, ident, rate: str) -> Verdict:
    """Count one use of `scope` by `ident` and say whether it is within `rate`. The key is the
    one the API's create throttle uses, so both count against one limit."""
    limit, period = parse_rate(rate)
    now = time.time()
    window = int(now // period)
    key = f"throttle:{scope}:{ident}:{period}:{window}"
    cache.add(key, 0, timeout=period + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # the counter expired between add and incr: a new window
        cache.add(key, 1, timeout=period + 1)
        count = 1
    if count <= limit:
        return Verdict(True, limit, period, 0.0)
    return Verdict(False, limit, period, (window + 1) * period - now)


def hit_create(kind: tuple[str, str], *, user) -> Verdict:
    """One start of a debate (`DEBATE_CREATE`) or run (`CONTRADICTION_RUN_CREATE`) by `user`."""
    scope, rate_setting = kind
    return hit(scope, user.pk, getattr(settings, rate_setting))


def form_refused(request, template: str, form, verdict: Verdict, what: str) -> HttpResponse:
    """A start form over its limit: the form again, with what was typed, the limit and when to
    come back (429, Retry-After)."""
    form.is_valid()
    form.add_error(None, verdict.message(what))
    response = render(request, template, {"form": form}, status=429)
    response["Retry-After"] = str(max(1, math.ceil(verdict.retry_after)))
    return response


def client_ip(request) -> str | None:
    """The client's address: REMOTE_ADDR, or behind `TRUSTED_PROXY_COUNT` reverse proxies the
    address the outermost trusted proxy saw (taken from the right of X-Forwarded-For, which a
    client cannot forge past the proxies)."""
    remote = request.META.get("REMOTE_ADDR")
    count = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if count <= 0:
        return remote
    forwarded = [
        part.strip()
        for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if part.strip()
    ]
    return forwarded[-count] if len(forwarded) >= count else remote
