"""`GET /metrics`: the Prometheus text exposition, for Prometheus (a bearer token) or staff.

- `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time): 200. A wrong token, or
  any token while `METRICS_TOKEN` is empty: 403.
- No token: signed-in users who may read figures across users (`debates.view_figures`: the
  Reviewer and Operator roles, superusers) get 200, other signed-in users (plain staff
  included) 403, anonymous callers 401 with `WWW-Authenticate: Bearer`.
"""

from __future__ import annotations

import logging
import secrets
import time

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from analytics.metrics import exposition, figures
from runs import lifecycle

logger = logging.getLogger(__name__)

#: The figures across users (analytics' own permission).
FIGURES = "debates.view_figures"


def _refusal(request: HttpRequest) -> HttpResponse | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if header:
        if scheme.lower() != "bearer" or not token.strip():
            return _text(401, "Send 'Authorization: Bearer <METRICS_TOKEN>'.", challenge=True)
        expected = settings.METRICS_TOKEN
        if not expected:
            return _text(403, "No METRICS_TOKEN is configured: tokens are not accepted here.")
        if not secrets.compare_digest(token.strip().encode(), expected.encode()):
            return _text(403, "This token is not the metrics token.")
        return None
    if not request.user.is_authenticated:
        return _text(
            401,
            "Send 'Authorization: Bearer <METRICS_TOKEN>', or sign in as a Reviewer or Operator.",
            challenge=True,
        )
    if not request.user.has_perm(FIGURES):
        return _text(
            403,
            "The metrics need the permission to read figures (the Reviewer or Operator role), "
            "or the metrics token.",
        )
    return None


def _text(status: int, message: str, *, challenge: bool = False) -> HttpResponse:
    response = HttpResponse(message + "\n", status=status, content_type="text/plain")
    if challenge:
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    return response


def registry() -> CollectorRegistry:
    """A registry holding the current figures (cached; see `figures`) and nothing else: no
    figure of this one process (its CPU, its memory), which would describe whichever web
    process happened to answer."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(
        exposition.FiguresCollector(
            exposition.families(
                figures.operations(),
                figures.evaluation(),
                now=time.time(),
                kinds=[work.plural for work in lifecycle.registered()],
            )
        )
    )
    return registry


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    refusal = _refusal(request)
    if refusal is not None:
        return refusal
    # The format Prometheus asks for: OpenMetrics, or the text format (0.0.4 or 1.0.0).
    encode, content_type = choose_encoder(request.headers.get("Accept", ""))
    try:
        body = encode(registry())
    except Exception as exc:  # noqa: BLE001 - the cache (Redis) is down: Prometheus marks it down
        logger.exception("metrics: the figures could not be served")
        return _text(503, f"The metrics cannot be served now: {type(exc).__name__}.")
    return HttpResponse(body, content_type=content_type)
