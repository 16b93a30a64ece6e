"""Quality scores over many debates: recorded for debates finished before they were computed
(`manage.py backfill_baselines`), and the figures over a range with the comparison with a single
agent (`quality_report`, served by the staff API; docs/analysts/evaluation.md, "Comparison with
a single agent"). The scores of one debate are computed when it finishes (`debates.quality`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from debates.models import Debate
from debates.quality import record_for, stored_rows
from evaluation.ground_truth import finished_in_range
from protocols import quality as pure

MAX_DEBATES = 10_000


def record_quality(*, debate_id, decision: str | None = None) -> dict[str, Any] | None:
    """Compute and store the quality of one finished debate (4 queries). None when it has no
    decision or no statement."""
    if decision is None:
        decision = Debate.objects.values_list("decision", flat=True).get(id=debate_id)
    if not decision:
        return None
    statements, votes, challenges = stored_rows(debate_id)
    if not statements:
        return None
    scores = pure.evaluate(
        record_for(decision=decision, statements=statements, votes=votes, challenges=challenges)
    )
    Debate.objects.filter(id=debate_id).update(quality=scores)
    return scores


def backfill(*, only_missing: bool = True, batch_size: int = 500) -> int:
    """Record the quality of every completed debate (without any, unless `only_missing` is
    False). Returns how many were recorded."""
    qs = Debate.objects.filter(status=Debate.Status.COMPLETED)
    if only_missing:
        qs = qs.filter(quality={})
    count = 0
    for debate_id in qs.values_list("id", flat=True).iterator(chunk_size=batch_size):
        if record_quality(debate_id=debate_id) is not None:
            count += 1
    return count


@dataclass(frozen=True)
class QualityReport:
    """Quality means and the single-agent comparison over debates finished in [`since`,
    `until`) of one `protocol` or all; `debates` read, `truncated` when more finished."""

    since: dt.datetime | None
    until: dt.datetime | None
    protocol: str
    debates: int
    limit: int
    truncated: bool
    quality: dict[str, Any]
    comparison: dict[str, Any]
    cost: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "protocol": self.protocol or None,
            "debates": self.debates,
            "limit": self.limit,
            "truncated": self.truncated,
            "quality": self.quality,
            "comparison": self.comparison,
            "cost": self.cost,
        }


def comparison_rows(
    *,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    protocol: str = "",
    limit: int = MAX_DEBATES,
) -> tuple[list[pure.ComparisonRow], bool]:
    """The finished debates of the range (newest first, at most `limit`) as `ComparisonRow`s,
    and whether there were more. One query."""
    qs = finished_in_range(since=since, until=until, protocol=protocol)
    found = list(
        qs.order_by("-completed_at", "id").values_list(
            "protocol",
            "decision",
            "decision_override",
            "review_status",
            "baselines",
            "quality",
            "cost_usd",
            "tokens_in",
            "tokens_out",
        )[: limit + 1]
    )
    truncated = len(found) > limit
    rows = []
    for (
        protocol_name,
        decision,
        override,
        review,
        baselines,
        scores,
        cost,
        tokens_in,
        tokens_out,
    ) in found[:limit]:
        verdict = (override or decision) if review == Debate.ReviewStatus.RESOLVED else ""
        single = tuple((a["agent"], a["independent"]) for a in (baselines or {}).get("agents", ()))
        rows.append(
            pure.ComparisonRow(
                protocol=protocol_name,
                decision=decision,
                verdict=verdict,
                single_agent=single,
                quality=scores or {},
                cost_usd=float(cost),
                tokens=tokens_in + tokens_out,
            )
        )
    return rows, truncated


def quality_report(
    *,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    protocol: str = "",
    limit: int = MAX_DEBATES,
) -> QualityReport:
    """The monitoring figures over a range: the mean of each quality score and the
    consensus rate, and the single-agent comparison; every figure with its n. One query; the
    selector an operator's metrics exporter reads."""
    limit = max(1, min(limit, MAX_DEBATES))
    rows, truncated = comparison_rows(since=since, until=until, protocol=protocol, limit=limit)
    return QualityReport(
        since=since,
        until=until,
        protocol=protocol,
        debates=len(rows),
        limit=limit,
        truncated=truncated,
        quality=pure.quality_means(rows),
        comparison=pure.compare_with_single_agent(rows),
        cost=pure.cost_comparison(rows),
    )


__all__ = [
    "MAX_DEBATES",
    "QualityReport",
    "backfill",
    "comparison_rows",
    "quality_report",
    "record_quality",
]
