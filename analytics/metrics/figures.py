"""What the metrics endpoint reports, read from PostgreSQL and Redis at scrape time.

Two tiers, each a fixed number of aggregate queries whatever the number of rows, cached in the
shared cache (Redis) so that every web process serves the same figures and PostgreSQL computes
them at most once per period, however many processes are scraped:

- `operations()` every `METRICS_CACHE_SECONDS` (30): debates by protocol and state, failures,
  consensus, cost and tokens; LLM calls per model (attempts, retries, tokens, cost, latency
  buckets); review items; durable runs; the broker's queue; the sweeper's counters.
- `evaluation()` every `METRICS_EVALUATION_CACHE_SECONDS` (300): the evaluation figures
  (docs/operations/metrics.md#evaluation-figures), agreement with reviewers' verdicts from
  `evaluation.ground_truth.ground_truth_report` and the cost of an independent (single-agent)
  answer.

The sources are read with `METRICS_QUERY_TIMEOUT` as PostgreSQL's statement timeout; a source
that fails is reported as down (`debates_metrics_source_up`) and the others are still served.
When the figures are due, one process refreshes them (a lock in the cache) while the others
keep serving the previous ones.

The figures are plain dicts and lists (cached as they are).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.db.models import Count, F, Min, Q, Sum, Value
from django.db.models.functions import Greatest

from agents.models import GatewayCall
from debates.baselines import POSITION_KINDS
from debates.models import Debate, LLMCall
from evaluation.ground_truth import ground_truth_report
from evaluation.quality import quality_report
from reviews.models import ReviewItem
from reviews.triage import DEBATE_FAILED
from runs import counters, lifecycle, sweeping

logger = logging.getLogger(__name__)

#: Upper bounds (seconds) of the LLM call latency histogram's buckets.
LATENCY_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)

CACHE_KEY = "debates:metrics:v1:{tier}"


def call_models() -> list[type[GatewayCall]]:
    """Every table of calls made through the gateway (debates' and contradiction runs'), found
    through the app registry: this layer imports no app above it."""
    found = [m for m in apps.get_models() if issubclass(m, GatewayCall)]
    return sorted(found, key=lambda m: m._meta.label)


@contextmanager
def _statement_timeout() -> Iterator[None]:
    """PostgreSQL's statement timeout for this connection while the sources are read (not in a
    transaction: a source that fails leaves the next ones free to run)."""
    try:
        with connection.cursor() as cursor:
            # `set_config` rather than `SET`: a value can be sent apart from the SQL only to a
            # function (the values of statements are sent apart, see settings).
            cursor.execute(
                "SELECT set_config('statement_timeout', %s, false)",
                [str(int(settings.METRICS_QUERY_TIMEOUT * 1000))],
            )
    except DatabaseError:  # PostgreSQL is unreachable: its sources will say so, Redis's still read
        logger.warning("metrics: could not set the statement timeout", exc_info=True)
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SET statement_timeout TO DEFAULT")
        except DatabaseError:  # the connection is gone: Django drops it
            logger.warning("metrics: could not reset the statement timeout", exc_info=True)


def _timed(sources: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    """Run each source under the statement timeout, timing it; one that fails is recorded as
    down and the others are still read."""
    figures: dict[str, Any] = {"sources": {}}
    with _statement_timeout():
        for name, read in sources.items():
            started = time.monotonic()
            try:
                figures[name] = read()
                up = True
            except Exception:  # noqa: BLE001 - a source that fails is reported down, not a 500
                logger.exception("metrics: reading %s failed", name)
                up = False
            figures["sources"][name] = {
                "up": up,
                "seconds": round(time.monotonic() - started, 4),
            }
    return figures


# --- operations ------------------------------------------------------------------------------


def _debates() -> list[dict[str, Any]]:
    """Debates per protocol, state and consensus: how many, their cost and tokens. 1 query."""
    rows = (
        Debate.objects.order_by()
        .values("protocol", "status", "consensus_type")
        .annotate(
            n=Count("pk"),
            sum_cost=Sum("cost_usd"),
            sum_in=Sum("tokens_in"),
            sum_out=Sum("tokens_out"),
        )
    )
    return [
        {
            "protocol": row["protocol"],
            "status": row["status"],
            "consensus_type": row["consensus_type"],
            "n": row["n"],
            "cost": float(row["sum_cost"] or 0),
            "tokens_in": row["sum_in"] or 0,
            "tokens_out": row["sum_out"] or 0,
        }
        for row in rows
    ]


def _failures() -> dict[str, int]:
    """Failures of debates per protocol: every failure for good queues a `debate_failed` review
    item in the transaction that fails the debate (a re-run that fails again queues another),
    so the items count failures even after a failed debate was re-run. 1 query."""
    rows = (
        ReviewItem.objects.order_by()
        .filter(reason=DEBATE_FAILED, debate__isnull=False)
        .values_list("debate__protocol")
        .annotate(n=Count("pk"))
    )
    return dict(rows)


def _calls() -> list[dict[str, Any]]:
    """Calls through the gateway per table, model and status: count, attempts, retries, tokens,
    cost, and latency (sum and cumulative buckets, over answered and failed calls). 1 query per
    table of calls."""
    finished = ~Q(status=GatewayCall.Status.PENDING)
    buckets = {
        f"le_{i}": Count("pk", filter=finished & Q(latency_ms__lte=int(bound * 1000)))
        for i, bound in enumerate(LATENCY_BUCKETS)
    }
    out = []
    for model in call_models():
        rows = (
            model.objects.order_by()
            .values("model", "status")
            .annotate(
                n=Count("pk"),
                sum_attempts=Sum("attempts"),
                sum_retries=Sum(Greatest(F("attempts") - Value(1), Value(0))),
                sum_in=Sum("tokens_in"),
                sum_out=Sum("tokens_out"),
                sum_cost=Sum("cost_usd"),
                finished=Count("pk", filter=finished),
                sum_latency_ms=Sum("latency_ms", filter=finished),
                **buckets,
            )
        )
        for row in rows:
            out.append(
                {
                    "source": model._meta.app_label,
                    "model": row["model"],
                    "status": row["status"],
                    "n": row["n"],
                    "attempts": row["sum_attempts"] or 0,
                    "retries": row["sum_retries"] or 0,
                    "tokens_in": row["sum_in"] or 0,
                    "tokens_out": row["sum_out"] or 0,
                    "cost": float(row["sum_cost"] or 0),
                    "finished": row["finished"],
                    "latency_s": (row["sum_latency_ms"] or 0) / 1000,
                    "buckets": [row[f"le_{i}"] for i in range(len(LATENCY_BUCKETS))],
                }
            )
    return out


def _reviews() -> list[dict[str, Any]]:
    """Review items per reason, status and verdict, with the oldest one's creation time, how
    many had a safety veto overridden to ACT by a reviewer's verdict, and how many went past
    their deadline. 1 query."""
    rows = (
        ReviewItem.objects.order_by()
        .values("reason", "status", "verdict")
        .annotate(
            n=Count("pk", distinct=True),
            oldest=Min("created_at"),
            veto_overrides=Count("pk", filter=Q(verdicts__veto_override=True), distinct=True),
            overdue=Count("pk", filter=Q(overdue_at__isnull=False), distinct=True),
        )
    )
    return [{**row, "oldest": row["oldest"].timestamp() if row["oldest"] else None} for row in rows]


def _runs() -> list[dict[str, Any]]:
    """Durable runs (debates, contradiction runs) per state, with the oldest last change (for
    queued rows: how long they have waited). 1 query per kind."""
    out = []
    for work in lifecycle.registered():
        rows = (
            work.model.objects.order_by()
            .values("status")
            .annotate(n=Count("pk"), oldest=Min("updated_at"))
        )
        for row in rows:
            out.append(
                {
                    "kind": work.plural,
                    "status": row["status"],
                    "n": row["n"],
                    "oldest": row["oldest"].timestamp() if row["oldest"] else None,
                }
            )
    return out


def _queue() -> list[dict[str, Any]]:
    """Each queue tasks are sent to: its name, messages waiting, messages delivered and not
    acknowledged yet."""
    held = sweeping.broker_queues(sweeping.task_queues())
    if held is None:
        raise RuntimeError("the broker's queue cannot be read (not Redis, or not answering)")
    return [
        {"queue": queue, "waiting": waiting, "unacked": unacked}
        for queue, (waiting, unacked) in held.items()
    ]


def _sweeper() -> list[list[Any]]:
    return [[kind, outcome, n] for (kind, outcome), n in sorted(counters.sweeper_counts().items())]


def read_operations() -> dict[str, Any]:
    """The operations tier, uncached: 7 queries with one table of calls per app that has one
    (2 here) and one kind of durable run each (2 here), and 2 to set and reset the timeout."""
    return _timed(
        {
            "debates": _debates,
            "failures": _failures,
            "calls": _calls,
            "reviews": _reviews,
            "runs": _runs,
            "queue": _queue,
            "sweeper": _sweeper,
        }
    )


# --- evaluation (docs/operations/metrics.md#evaluation-figures) ------------------------------


def _ground_truth() -> dict[str, Any]:
    """Agreement with reviewers' verdicts over the newest finished debates (2 queries): the
    ground-truth report as the API gives it."""
    return ground_truth_report().as_json()


def _independent_answers() -> dict[str, dict[str, float]]:
    """Per protocol, over completed debates: how many independent answers (each agent's first
    position, round 1) were paid for, and what they cost: a single agent's cost is one of them.
    1 query."""
    rows = (
        LLMCall.objects.order_by()
        .filter(
            round_number=1,
            debate__status=Debate.Status.COMPLETED,
            statement__kind__in=POSITION_KINDS,
        )
        .values_list("debate__protocol")
        .annotate(n=Count("pk"), sum_cost=Sum("cost_usd"))
    )
    return {protocol: {"n": n, "cost": float(cost or 0)} for protocol, n, cost in rows}


def _quality() -> dict[str, Any]:
    """The quality means, consensus rate and single-agent comparison over the newest
    finished debates (1 query): the quality report as the API gives it."""
    return quality_report().as_json()


def read_evaluation() -> dict[str, Any]:
    """The evaluation tier, uncached: 4 queries, and 2 to set and reset the timeout."""
    return _timed(
        {
            "ground_truth": _ground_truth,
            "independent_answers": _independent_answers,
            "quality": _quality,
        }
    )


# --- the cache -------------------------------------------------------------------------------


def _cached(tier: str, ttl: int, read: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The tier's figures if they are younger than `ttl` seconds; else read them again, unless
    another process is already doing so (then the previous figures are served)."""
    key = CACHE_KEY.format(tier=tier)
    now = time.time()
    entry = cache.get(key)
    if entry is not None and now - entry["read_at"] < ttl:
        return entry
    lock = f"{key}:refreshing"
    refreshing_here = cache.add(lock, 1, timeout=max(30, ttl))
    if entry is not None and not refreshing_here:
        return entry
    try:
        entry = {**read(), "read_at": now}
        cache.set(key, entry, timeout=max(60, ttl * 10))
    finally:
        if refreshing_here:
            cache.delete(lock)
    return entry


def operations() -> dict[str, Any]:
    return _cached("operations", settings.METRICS_CACHE_SECONDS, read_operations)


def evaluation() -> dict[str, Any]:
    return _cached("evaluation", settings.METRICS_EVALUATION_CACHE_SECONDS, read_evaluation)
