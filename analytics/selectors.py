"""Reads for the analytics page, from the daily roll-ups (`analytics.rollups`): a few rows per
day, grouped and summed in PostgreSQL, one query per figure whatever the number of debates.

Every read takes `Filters`: a date range (days in the server's time zone, both ends inclusive,
by the day a debate was created) and optionally a protocol, a schedule and a model (debates
with at least one call answered by that model). The figures count finished debates (completed
or failed); a debate still running is counted once it ends. Agreement with reviewers comes from
`evaluation.ground_truth.ground_truth_report`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import DateField, QuerySet, Sum
from django.db.models.functions import Trunc
from django.utils import timezone

from analytics import rollups
from analytics.models import DailyAgents, DailyDebates, DailyOutcomes
from schedules.models import DebateSchedule

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


def rows(model, filters: Filters, *, every_model: bool = False) -> QuerySet:
    """The roll-up rows of `model` in the range that match the filters: under the model filter
    ("" rows: every debate), or with `every_model` one row per model instead (only the filter's
    model when it has one)."""
    qs = model.objects.filter(day__gte=filters.since, day__lte=filters.until)
    if filters.protocol:
        qs = qs.filter(protocol=filters.protocol)
    if filters.schedule_id:
        qs = qs.filter(schedule_id=filters.schedule_id)
    if every_model and not filters.model:
        return qs.exclude(model="")
    return qs.filter(model=filters.model)


def _bucket(filters: Filters):
    return Trunc("day", "week" if filters.by_week else "day", output_field=DateField())


def _grouped(qs: QuerySet, keys: list, sums: dict[str, str]) -> list[dict]:
    """`qs` grouped by `keys` (field names, or (name, expression) pairs), with each of `sums`
    (name: field) added up; groups whose sums are all 0 (a debate counted, then taken away)
    are left out."""
    computed = {k[0]: k[1] for k in keys if isinstance(k, tuple)}
    group = [k[0] if isinstance(k, tuple) else k for k in keys]
    found = (
        qs.annotate(**computed)
        .values(*group)
        .annotate(**{name: Sum(field) for name, field in sums.items()})
        .order_by()
    )
    return [r for r in found if any(r[name] for name in sums)]


def _day(value) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


def decisions_over_time(filters: Filters) -> dict[tuple[dt.date, str], int]:
    """Completed debates per day (or week) and effective decision (a reviewer's override,
    else the rules')."""
    found = _grouped(
        rows(DailyOutcomes, filters),
        [("bucket", _bucket(filters)), "decision"],
        {"n": "n"},
    )
    return {(_day(r["bucket"]), r["decision"]): r["n"] for r in found}


def decisions_by_protocol(filters: Filters) -> dict[tuple[str, str], int]:
    found = _grouped(rows(DailyOutcomes, filters), ["protocol", "decision"], {"n": "n"})
    return {(r["protocol"], r["decision"]): r["n"] for r in found}


def decisions_by_schedule(filters: Filters) -> dict[tuple[str, str], int]:
    """Per schedule name (debates not from a schedule under `NO_SCHEDULE`)."""
    found = _grouped(rows(DailyOutcomes, filters), ["schedule_id", "decision"], {"n": "n"})
    names = dict(
        DebateSchedule.objects.filter(pk__in={r["schedule_id"] for r in found}).values_list(
            "pk", "name"
        )
    )
    counts: dict[tuple[str, str], int] = {}
    for r in found:
        name = names.get(r["schedule_id"], NO_SCHEDULE)
        counts[(name, r["decision"])] = counts.get((name, r["decision"]), 0) + r["n"]
    return counts


AGREEMENT_BANDS = 10


def agreement_distribution(filters: Filters) -> dict[tuple[int, str], int]:
    """Completed debates per band of agreement (0-9: 0-10 %, ..., 90-100 %) and protocol, for
    the protocols whose rules record one (`Debate.agreement`)."""
    found = _grouped(
        rows(DailyOutcomes, filters).filter(agreement_band__gte=0),
        ["agreement_band", "protocol"],
        {"n": "n"},
    )
    return {(r["agreement_band"], r["protocol"]): r["n"] for r in found}


#: What `per_period` adds up per day or week (the fields of `DailyDebates`).
PER_PERIOD = (
    "finished",
    "completed",
    "failed",
    "retried",
    "sent",
    "resolved",
    "overridden",
    "cost_usd",
    "tokens_in",
    "tokens_out",
    "calls",
    "calls_retried",
    "calls_failed",
)


def per_period(filters: Filters) -> dict[dt.date, dict[str, int | Decimal]]:
    """Per day (or week): finished debates, completed, failed, retried (started more than once:
    a retry after a transient failure, a crash or a re-run); of the completed, those sent to
    review, reviewed (resolved) and overridden; what their calls cost (USD) and their tokens in
    and out; their LLM calls, those that needed more than one attempt and those that failed.
    Periods with none are left out."""
    found = _grouped(
        rows(DailyDebates, filters), [("bucket", _bucket(filters))], {k: k for k in PER_PERIOD}
    )
    return {_day(r.pop("bucket")): r for r in found}


LABELLED_FIGURES = (
    "resolved",
    "debate_agreed",
    "majority_agreed",
    "single_answers",
    "single_agreed",
)


def agreement_with_reviewers(filters: Filters) -> dict[str, dict[str, int]]:
    """Per protocol, and under "" over all: labelled debates (`resolved`), those whose decision
    the reviewers upheld (`debate_agreed`), those whose majority vote had the verdict
    (`majority_agreed`), and the agents' independent answers and how many had it."""
    found = _grouped(rows(DailyDebates, filters), ["protocol"], {k: k for k in LABELLED_FIGURES})
    by_protocol = {r.pop("protocol"): r for r in found}
    by_protocol[""] = {k: sum(r[k] for r in by_protocol.values()) for k in LABELLED_FIGURES}
    return by_protocol


def verdicts(filters: Filters) -> dict[tuple[str, str], int]:
    """Labelled completed debates per protocol and what the debate did against the majority
    vote, by the reviewers' verdict (`rollups.VERDICTS`)."""
    found = _grouped(
        rows(DailyOutcomes, filters).exclude(verdict=""), ["protocol", "verdict"], {"n": "n"}
    )
    return {(r["protocol"], r["verdict"]): r["n"] for r in found}


def calibration(filters: Filters) -> dict[tuple[int, bool], int]:
    """Labelled completed debates per band of decision confidence (0-9) and whether the
    reviewers upheld the decision."""
    found = _grouped(
        rows(DailyOutcomes, filters).exclude(verdict="").filter(confidence_band__gte=0),
        ["confidence_band", "verdict"],
        {"n": "n"},
    )
    counts: dict[tuple[int, bool], int] = {}
    for r in found:
        key = (r["confidence_band"], r["verdict"] in rollups.RIGHT)
        counts[key] = counts.get(key, 0) + r["n"]
    return counts


def position_changes(filters: Filters) -> dict[str, dict[str, int]]:
    """Per agent (by display name): statements that revise an earlier position, and how many of
    them changed it."""
    found = _grouped(rows(DailyAgents, filters), ["agent"], {"changed": "changed", "kept": "kept"})
    return {r.pop("agent"): r for r in found}


def usage_by_model(filters: Filters) -> dict[str, dict[str, float]]:
    """Per model that answered: calls, cost (USD), tokens in and out, over the debates of the
    range (the model filter's own only, when it has one), most expensive first."""
    found = _grouped(
        rows(DailyDebates, filters, every_model=True),
        ["model"],
        {
            "calls": "calls",
            "cost": "calls_cost_usd",
            "tokens_in": "calls_tokens_in",
            "tokens_out": "calls_tokens_out",
        },
    )
    found.sort(key=lambda r: (-r["cost"], r["model"]))
    return {
        r["model"]: {
            "calls": r["calls"],
            "cost": float(r["cost"]),
            "tokens_in": r["tokens_in"],
            "tokens_out": r["tokens_out"],
        }
        for r in found
    }
