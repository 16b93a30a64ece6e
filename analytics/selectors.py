"""Reads for the analytics page: aggregate SQL over the debates of a range, one query per figure
(grouped and counted in PostgreSQL, never a Python loop over debates), whatever their number.

Every read takes `Filters`: a date range (days in the server's time zone, both ends inclusive)
and optionally a protocol, a schedule and a model (debates with at least one call answered by
that model). Agreement with reviewers comes from `evaluation.ground_truth.ground_truth_report`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from decimal import Decimal

from django.core.cache import cache
from django.db.models import (
    Case,
    CharField,
    Count,
    Exists,
    F,
    FloatField,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Sum,
    Value,
    When,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, Floor, Least, TruncDate, TruncWeek
from django.utils import timezone

from debates.models import Debate, LLMCall, Statement
from evaluation.ground_truth import GroundTruthReport, ground_truth_report
from protocols import PROTOCOLS

#: Longer ranges are counted by week rather than by day.
MAX_DAYS_BY_DAY = 92
NO_SCHEDULE = "no schedule"


@dataclass(frozen=True)
class Filters:
    since: dt.date
    until: dt.date  # inclusive
    protocol: str = ""
    schedule_id: int | None = None
    model: str = ""

    @property
    def start(self) -> dt.datetime:
        return timezone.make_aware(dt.datetime.combine(self.since, dt.time.min))

    @property
    def end(self) -> dt.datetime:
        """The first moment after the range."""
        return timezone.make_aware(
            dt.datetime.combine(self.until + dt.timedelta(days=1), dt.time.min)
        )

    @property
    def by_week(self) -> bool:
        return (self.until - self.since).days + 1 > MAX_DAYS_BY_DAY

    def buckets(self) -> list[dt.date]:
        """Every day (or week, from its Monday) of the range, empty ones included."""
        step = dt.timedelta(days=7 if self.by_week else 1)
        first = self.since - dt.timedelta(days=self.since.weekday()) if self.by_week else self.since
        days, day = [], first
        while day <= self.until:
            days.append(day)
            day += step
        return days


def debates(filters: Filters) -> QuerySet[Debate]:
    """The debates created in the range that match the filters."""
    qs = Debate.objects.filter(created_at__gte=filters.start, created_at__lt=filters.end)
    if filters.protocol:
        qs = qs.filter(protocol=filters.protocol)
    if filters.schedule_id:
        qs = qs.filter(schedule_id=filters.schedule_id)
    if filters.model:
        qs = qs.filter(
            Exists(LLMCall.objects.filter(debate_id=OuterRef("pk"), model=filters.model))
        )
    return qs


def _bucket(filters: Filters, field: str = "created_at"):
    tz = timezone.get_current_timezone()
    return TruncWeek(field, tzinfo=tz) if filters.by_week else TruncDate(field, tzinfo=tz)


def _day(value) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


EFFECTIVE_DECISION = Case(
    When(~Q(decision_override=""), then=F("decision_override")),
    default=F("decision"),
    output_field=CharField(),
)


def decisions_over_time(filters: Filters) -> dict[tuple[dt.date, str], int]:
    """Completed debates per day (or week) and effective decision (a reviewer's override,
    else the rules')."""
    rows = (
        debates(filters)
        .filter(status=Debate.Status.COMPLETED)
        .annotate(bucket=_bucket(filters), effective=EFFECTIVE_DECISION)
        .values("bucket", "effective")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {(_day(r["bucket"]), r["effective"]): r["n"] for r in rows}


def decisions_by_protocol(filters: Filters) -> dict[tuple[str, str], int]:
    rows = (
        debates(filters)
        .filter(status=Debate.Status.COMPLETED)
        .annotate(effective=EFFECTIVE_DECISION)
        .values("protocol", "effective")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {(r["protocol"], r["effective"]): r["n"] for r in rows}


def decisions_by_schedule(filters: Filters) -> dict[tuple[str, str], int]:
    """Per schedule name (debates not from a schedule under `NO_SCHEDULE`)."""
    rows = (
        debates(filters)
        .filter(status=Debate.Status.COMPLETED)
        .annotate(
            effective=EFFECTIVE_DECISION,
            schedule_name=Coalesce(F("schedule__name"), Value(NO_SCHEDULE)),
        )
        .values("schedule_name", "effective")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {(r["schedule_name"], r["effective"]): r["n"] for r in rows}


AGREEMENT_BANDS = 10


def agreement_recorded() -> list[tuple[str, float]]:
    """Where the registered protocols' rules record how much the agents agreed: (metadata key,
    factor to a percentage), each once, in the registry's order."""
    found = (cls.agreement_metadata for cls in PROTOCOLS.values() if not cls.is_selector)
    return list(dict.fromkeys(m for m in found if m is not None))


def _agreement_percent():
    """A debate's agreement in percent, from the key its protocol's rules record it under."""
    parts = [
        Cast(KT(f"metadata__{key}"), FloatField()) * factor
        if factor != 1
        else Cast(KT(f"metadata__{key}"), FloatField())
        for key, factor in agreement_recorded()
    ]
    if not parts:
        return Value(None, output_field=FloatField())
    return Coalesce(*parts) if len(parts) > 1 else parts[0]


def agreement_distribution(filters: Filters) -> dict[tuple[int, str], int]:
    """Completed debates per band of agreement (0-9: 0-10 %, ..., 90-100 %) and protocol, for
    the protocols whose rules record one (`DebateProtocol.agreement_metadata`)."""
    agreement = _agreement_percent()
    rows = (
        debates(filters)
        .filter(status=Debate.Status.COMPLETED)
        .annotate(agreement=agreement)
        .filter(agreement__isnull=False)
        .annotate(band=Least(Cast(Floor(F("agreement") / 10), IntegerField()), Value(9)))
        .values("band", "protocol")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {(r["band"], r["protocol"]): r["n"] for r in rows}


def review_rates(filters: Filters) -> dict[dt.date, dict[str, int]]:
    """Per day: completed debates, those sent to review, those reviewed (resolved), and those
    whose decision a reviewer overrode."""
    rows = (
        debates(filters)
        .filter(status=Debate.Status.COMPLETED)
        .annotate(bucket=_bucket(filters))
        .values("bucket")
        .annotate(
            completed=Count("id"),
            sent=Count("id", filter=~Q(review_status="")),
            resolved=Count("id", filter=Q(review_status=Debate.ReviewStatus.RESOLVED)),
            overridden=Count(
                "id", filter=~Q(decision_override="") & ~Q(decision_override=F("decision"))
            ),
        )
        .order_by()
    )
    return {_day(r.pop("bucket")): r for r in rows}


#: How long a ground-truth report is kept for the same range and the same labelled data.
GROUND_TRUTH_CACHE_SECONDS = 600


def agreement_with_reviewers(filters: Filters) -> GroundTruthReport:
    """The ground-truth report over the debates finished in the range (date and protocol
    filters only: the report has no schedule or model filter of its own).

    The report reads up to 10,000 debates and computes in Python (about 2-3 s at that size),
    so it is cached, keyed by the range and by a fingerprint of what it reads (one aggregate
    query: how many debates finished, were resolved or overridden, and the last finish): a
    debate finishing or a review being resolved gives a new key, so the figures are never
    older than the data; other changes (a baseline backfill) show within 10 minutes."""
    finished = Debate.objects.filter(
        status=Debate.Status.COMPLETED,
        completed_at__gte=filters.start,
        completed_at__lt=filters.end,
    )
    if filters.protocol:
        finished = finished.filter(protocol=filters.protocol)
    fingerprint = finished.aggregate(
        n=Count("id"),
        resolved=Count("id", filter=Q(review_status=Debate.ReviewStatus.RESOLVED)),
        overridden=Count("id", filter=~Q(decision_override="")),
        last=Max("completed_at"),
        reviewed=Max("updated_at", filter=~Q(review_status="")),
    )
    key = (
        "analytics:ground-truth:"
        + hashlib.blake2b(
            repr(
                (filters.start, filters.end, filters.protocol, sorted(fingerprint.items()))
            ).encode(),
            digest_size=12,
        ).hexdigest()
    )
    return cache.get_or_set(
        key,
        lambda: ground_truth_report(
            since=filters.start, until=filters.end, protocol=filters.protocol
        ),
        GROUND_TRUTH_CACHE_SECONDS,
    )


def position_changes(filters: Filters) -> dict[str, dict[str, int]]:
    """Per agent (by name): statements that revise an earlier position, and how many of them
    changed it."""
    rows = (
        Statement.objects.filter(debate__in=debates(filters).values("id"))
        .exclude(previous_decision="")
        .values("participant__name")
        .annotate(
            changed=Count("id", filter=~Q(previous_decision=F("decision"))),
            kept=Count("id", filter=Q(previous_decision=F("decision"))),
        )
        .order_by()
    )
    return {r["participant__name"]: {"changed": r["changed"], "kept": r["kept"]} for r in rows}


def usage_over_time(filters: Filters) -> dict[dt.date, dict[str, float]]:
    """Per day: cost (USD) and tokens in and out of the debates created that day."""
    rows = (
        debates(filters)
        .annotate(bucket=_bucket(filters))
        .values("bucket")
        .annotate(
            cost=Coalesce(Sum("cost_usd"), Value(Decimal(0))),
            tokens_in=Coalesce(Sum("tokens_in"), Value(0)),
            tokens_out=Coalesce(Sum("tokens_out"), Value(0)),
        )
        .order_by()
    )
    return {
        _day(r["bucket"]): {
            "cost": float(r["cost"]),
            "tokens_in": r["tokens_in"],
            "tokens_out": r["tokens_out"],
        }
        for r in rows
    }


def usage_by_model(filters: Filters) -> dict[str, dict[str, float]]:
    """Per model that answered: calls, cost (USD), tokens in and out, over the debates of the
    range."""
    calls = LLMCall.objects.filter(debate__in=debates(filters).values("id"))
    if filters.model:
        calls = calls.filter(model=filters.model)
    rows = (
        calls.values("model")
        .annotate(
            calls=Count("id"),
            cost=Coalesce(Sum("cost_usd"), Value(Decimal(0))),
            tokens_in=Coalesce(Sum("tokens_in"), Value(0)),
            tokens_out=Coalesce(Sum("tokens_out"), Value(0)),
        )
        .order_by("-cost", "model")
    )
    return {
        r["model"]: {
            "calls": r["calls"],
            "cost": float(r["cost"]),
            "tokens_in": r["tokens_in"],
            "tokens_out": r["tokens_out"],
        }
        for r in rows
    }


def failures_over_time(filters: Filters) -> dict[dt.date, dict[str, int]]:
    """Per day: finished debates, failed ones, and those that took more than one start (a
    retry after a transient failure, a crash or a re-run)."""
    rows = (
        debates(filters)
        .filter(status__in=[Debate.Status.COMPLETED, Debate.Status.FAILED])
        .annotate(bucket=_bucket(filters))
        .values("bucket")
        .annotate(
            finished=Count("id"),
            failed=Count("id", filter=Q(status=Debate.Status.FAILED)),
            retried=Count("id", filter=Q(attempts__gt=1) | Q(recoveries__gt=0)),
        )
        .order_by()
    )
    return {_day(r.pop("bucket")): r for r in rows}


def call_retries_over_time(filters: Filters) -> dict[dt.date, dict[str, int]]:
    """Per day of the debate: LLM calls, those that needed more than one attempt, and those
    that failed."""
    calls = LLMCall.objects.filter(debate__in=debates(filters).values("id"))
    if filters.model:
        calls = calls.filter(model=filters.model)
    rows = (
        calls.annotate(bucket=_bucket(filters, "debate__created_at"))
        .values("bucket")
        .annotate(
            calls=Count("id"),
            retried=Count("id", filter=Q(attempts__gt=1)),
            failed=Count("id", filter=Q(status=LLMCall.Status.FAILED)),
        )
        .order_by()
    )
    return {_day(r.pop("bucket")): r for r in rows}
