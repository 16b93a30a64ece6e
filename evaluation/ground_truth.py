"""Reviewer verdicts as ground truth: does debate beat its own baselines on labelled debates?

A finished debate whose review was resolved is a labelled example: its verdict is the
reviewer's override if one was set, else the upheld decision. `ground_truth_report` reads the
debates finished in a time range (two queries, whatever their number, at most `MAX_DEBATES`
of the newest) and hands them to the pure `protocols.evaluation.ground_truth_figures`.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from debates.models import Debate, Participant
from protocols import evaluation

MAX_DEBATES = 10_000


@dataclass(frozen=True)
class GroundTruthReport:
    """The figures over debates finished in [`since`, `until`) (None: open-ended), of one
    `protocol` or all (""). `debates` is how many were read; `truncated` is True when more
    finished in the range and only the newest `limit` were read."""

    since: dt.datetime | None
    until: dt.datetime | None
    protocol: str
    debates: int
    limit: int
    truncated: bool
    figures: evaluation.GroundTruthFigures

    def as_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "protocol": self.protocol or None,
            "debates": self.debates,
            "limit": self.limit,
            "truncated": self.truncated,
            **self.figures.as_json(),
        }


def finished_in_range(
    *, since: dt.datetime | None, until: dt.datetime | None, protocol: str
) -> QuerySet[Debate]:
    """Completed debates that finished in [`since`, `until`) of one `protocol` or all ("")."""
    qs = Debate.objects.filter(status=Debate.Status.COMPLETED)
    if since:
        qs = qs.filter(completed_at__gte=since)
    if until:
        qs = qs.filter(completed_at__lt=until)
    if protocol:
        qs = qs.filter(protocol=protocol)
    return qs


def ground_truth_rows(
    *,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    protocol: str = "",
    limit: int = MAX_DEBATES,
) -> tuple[list[evaluation.DebateRow], bool]:
    """The finished debates of the range as `DebateRow`s (newest first), and whether the range
    held more than `limit`. Two queries."""
    qs = finished_in_range(since=since, until=until, protocol=protocol)
    found = list(
        qs.order_by("-completed_at", "id").values_list(
            "id",
            "protocol",
            "decision",
            "decision_override",
            "review_status",
            "majority_decision",
            "baselines",
            "cost_usd",
            "started_at",
            "completed_at",
        )[: limit + 1]
    )
    truncated = len(found) > limit
    found = found[:limit]
    models: dict[Any, dict[str, str]] = defaultdict(dict)
    for debate_id, slug, model in Participant.objects.filter(
        debate_id__in=[f[0] for f in found]
    ).values_list("debate_id", "slug", "model_name"):
        models[debate_id][slug] = model
    rows = []
    for (
        debate_id,
        protocol_name,
        decision,
        override,
        review,
        majority,
        stored,
        cost,
        started,
        completed,
    ) in found:
        verdict = (override or decision) if review == Debate.ReviewStatus.RESOLVED else ""
        agents = tuple(
            (a["agent"], models[debate_id].get(a["agent"], ""), a["independent"], a["final"])
            for a in (stored or {}).get("agents", ())
        )
        rows.append(
            evaluation.DebateRow(
                protocol=protocol_name,
                decision=decision,
                majority_decision=majority,
                verdict=verdict,
                cost_usd=float(cost),
                duration_seconds=(
                    (completed - started).total_seconds() if started and completed else None
                ),
                agents=agents,
            )
        )
    return rows, truncated


def ground_truth_report(
    *,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    protocol: str = "",
    limit: int = MAX_DEBATES,
) -> GroundTruthReport:
    """Agreement of the debate, the majority vote and every single agent with reviewers'
    verdicts, override rate, cost and latency per decision: overall, per protocol, per agent
    and per model, each figure with its n (`evaluation.GroupFigures`). Two queries."""
    limit = max(1, min(limit, MAX_DEBATES))
    rows, truncated = ground_truth_rows(since=since, until=until, protocol=protocol, limit=limit)
    return GroundTruthReport(
        since=since,
        until=until,
        protocol=protocol,
        debates=len(rows),
        limit=limit,
        truncated=truncated,
        figures=evaluation.ground_truth_figures(rows),
    )
