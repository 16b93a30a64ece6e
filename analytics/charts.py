"""The analytics page's charts: each reads one selector (one or two queries) and shapes its
figures into a `protocols.charts.ChartSpec`, which the page draws, prints as a table and offers
as CSV. `CHARTS` lists them in page order; the CSV view builds only the one asked for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from analytics import labelled, selectors
from analytics.selectors import Filters
from protocols import PROTOCOLS
from protocols.charts import GROUPS, ChartSpec, Series, decision_group

#: Decisions in the order a reader scans them: go, caution, stop, in each protocol's terms.
DECISION_ORDER = [d for members in GROUPS.values() for d in members]


def _decision_sort(decision: str) -> tuple[int, str]:
    return (
        DECISION_ORDER.index(decision) if decision in DECISION_ORDER else len(DECISION_ORDER),
        decision,
    )


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _once(memo: dict | None, read, filters: Filters):
    """`read(filters)`, once per page: charts that share a read (cost and tokens per day) share
    its result through the page's `memo`."""
    if memo is None:
        return read(filters)
    if read.__name__ not in memo:
        memo[read.__name__] = read(filters)
    return memo[read.__name__]


def _labels(filters: Filters) -> list[str]:
    prefix = "week of " if filters.by_week else ""
    return [f"{prefix}{day.isoformat()}" for day in filters.buckets()]


def _per_period(filters: Filters) -> str:
    return "per week" if filters.by_week else "per day"


def _stacked_by_decision(
    id: str, title: str, labels: list[str], keys: list, counts: dict, *, horizontal=False
) -> ChartSpec:
    decisions = sorted({d for _, d in counts}, key=_decision_sort)
    return ChartSpec(
        id=id,
        title=title,
        kind="bar",
        labels=labels,
        series=[Series(d, [counts.get((k, d), 0) for k in keys], kind="bar") for d in decisions],
        stacked=True,
        horizontal=horizontal,
        y_title="debates",
        by_label=True,
        row_heading="",
    )


def decisions_over_time(filters: Filters, memo: dict | None = None) -> ChartSpec:
    counts = selectors.decisions_over_time(filters)
    days = filters.buckets()
    spec = _stacked_by_decision(
        "decisions-over-time",
        f"Decisions {_per_period(filters)}",
        _labels(filters),
        days,
        counts,
    )
    spec.row_heading = "week" if filters.by_week else "day"
    total = sum(counts.values())
    spec.description = f"{total} completed debates in the range, by effective decision."
    return spec


def decisions_by_protocol(filters: Filters, memo: dict | None = None) -> ChartSpec:
    counts = selectors.decisions_by_protocol(filters)
    protocols = sorted({p for p, _ in counts})
    spec = _stacked_by_decision(
        "decisions-by-protocol",
        "Decisions by protocol",
        protocols,
        protocols,
        counts,
        horizontal=True,
    )
    spec.row_heading = "protocol"
    spec.description = "; ".join(
        f"{p}: {sum(n for (q, _), n in counts.items() if q == p)} debates" for p in protocols
    )
    return spec


def decisions_by_schedule(filters: Filters, memo: dict | None = None) -> ChartSpec:
    counts = selectors.decisions_by_schedule(filters)
    names = sorted({s for s, _ in counts}, key=lambda s: (s == selectors.NO_SCHEDULE, s))
    spec = _stacked_by_decision(
        "decisions-by-schedule", "Decisions by schedule", names, names, counts, horizontal=True
    )
    spec.row_heading = "schedule"
    spec.description = "; ".join(
        f"{s}: {sum(n for (q, _), n in counts.items() if q == s)} debates" for s in names
    )
    return spec


def agreement_distribution(filters: Filters, memo: dict | None = None) -> ChartSpec:
    counts = selectors.agreement_distribution(filters)
    protocols = sorted({p for _, p in counts})
    bands = range(selectors.AGREEMENT_BANDS)
    labels = [f"{b * 10}-{b * 10 + 10}%" if b < 9 else "90-100%" for b in bands]
    spec = ChartSpec(
        id="agreement",
        title="How much the agents agreed (share on the decision)",
        kind="bar",
        labels=labels,
        series=[Series(p, [counts.get((b, p), 0) for b in bands], kind="bar") for p in protocols],
        stacked=True,
        y_title="debates",
        by_label=True,
        row_heading="agreement",
        description=(
            "Completed debates by the share of agents on the decision, as their protocol's rules "
            "record it; debates of a protocol that records none (one that weighs arguments "
            "instead) are not counted here."
        ),
    )
    return spec


def _periods(filters: Filters, memo: dict | None) -> list[dict]:
    """`selectors.per_period` for every day (or week) of the range, empty ones as zeros."""
    found = _once(memo, selectors.per_period, filters)
    empty = dict.fromkeys(selectors.PER_PERIOD, 0)
    return [found.get(d, empty) for d in filters.buckets()]


def review_rates(filters: Filters, memo: dict | None = None) -> ChartSpec:
    rows = _periods(filters, memo)
    empty = {"completed": 0, "sent": 0, "resolved": 0, "overridden": 0}
    total = {k: sum(r[k] for r in rows) for k in empty}
    spec = ChartSpec(
        id="review-rates",
        title=f"Sent to review and overridden {_per_period(filters)}",
        kind="line",
        labels=_labels(filters),
        series=[
            Series("sent to review", [_rate(r["sent"], r["completed"]) for r in rows]),
            Series(
                "overridden by a reviewer", [_rate(r["overridden"], r["completed"]) for r in rows]
            ),
            Series("completed debates", [r["completed"] for r in rows], hidden=True, percent=False),
            Series("sent", [r["sent"] for r in rows], hidden=True, percent=False),
            Series("resolved", [r["resolved"] for r in rows], hidden=True, percent=False),
            Series("overridden", [r["overridden"] for r in rows], hidden=True, percent=False),
        ],
        y_title="share of completed debates",
        y_max=1,
        percent=True,
        by_label=True,
        row_heading="week" if filters.by_week else "day",
        description=(
            f"Of {total['completed']} completed debates, {total['sent']} went to review "
            f"({_pct(total['sent'], total['completed'])}), {total['resolved']} were resolved "
            f"and {total['overridden']} overridden "
            f"({_pct(total['overridden'], total['completed'])})."
        ),
    )
    return spec


def _pct(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "n/a"


def position_changes(filters: Filters, memo: dict | None = None) -> ChartSpec:
    found = selectors.position_changes(filters)
    agents = sorted(found, key=lambda a: (-found[a]["changed"], a))
    return ChartSpec(
        id="position-changes",
        title="Position changes per agent",
        kind="bar",
        labels=agents,
        series=[
            Series("changed position", [found[a]["changed"] for a in agents], kind="bar"),
            Series("kept position", [found[a]["kept"] for a in agents], kind="bar"),
        ],
        stacked=True,
        horizontal=True,
        y_title="revisions and later turns",
        by_label=True,
        row_heading="agent",
        description="; ".join(
            f"{a}: changed {found[a]['changed']} of {found[a]['changed'] + found[a]['kept']}"
            for a in agents
        )
        or "No revisions in the range.",
    )


def cost_over_time(filters: Filters, memo: dict | None = None) -> ChartSpec:
    rows = [{**r, "cost": float(r["cost_usd"])} for r in _periods(filters, memo)]
    spec = ChartSpec(
        id="cost-over-time",
        title=f"Cost {_per_period(filters)} (USD)",
        kind="bar",
        labels=_labels(filters),
        series=[
            Series("cost (USD)", [round(r["cost"], 6) for r in rows], kind="bar"),
            Series("tokens in", [r["tokens_in"] for r in rows], hidden=True, percent=False),
            Series("tokens out", [r["tokens_out"] for r in rows], hidden=True, percent=False),
        ],
        y_title="USD",
        by_label=True,
        row_heading="week" if filters.by_week else "day",
        decimals=4,
        description=(
            f"${sum(r['cost'] for r in rows):.4f} and "
            f"{sum(r['tokens_in'] + r['tokens_out'] for r in rows)} tokens in the range."
        ),
    )
    return spec


def tokens_over_time(filters: Filters, memo: dict | None = None) -> ChartSpec:
    rows = _periods(filters, memo)
    return ChartSpec(
        id="tokens-over-time",
        title=f"Tokens {_per_period(filters)}",
        kind="bar",
        labels=_labels(filters),
        series=[
            Series("tokens in", [r["tokens_in"] for r in rows], kind="bar"),
            Series("tokens out", [r["tokens_out"] for r in rows], kind="bar"),
        ],
        stacked=True,
        y_title="tokens",
        by_label=True,
        row_heading="week" if filters.by_week else "day",
        description=(
            f"{sum(r['tokens_in'] for r in rows)} tokens in, "
            f"{sum(r['tokens_out'] for r in rows)} out."
        ),
    )


def usage_by_model(filters: Filters, memo: dict | None = None) -> ChartSpec:
    found = selectors.usage_by_model(filters)
    models = list(found)
    return ChartSpec(
        id="cost-by-model",
        title="Cost per model (USD)",
        kind="bar",
        labels=models,
        series=[
            Series("cost (USD)", [round(found[m]["cost"], 6) for m in models], kind="bar"),
            Series("calls", [found[m]["calls"] for m in models], hidden=True, percent=False),
            Series(
                "tokens in", [found[m]["tokens_in"] for m in models], hidden=True, percent=False
            ),
            Series(
                "tokens out", [found[m]["tokens_out"] for m in models], hidden=True, percent=False
            ),
        ],
        horizontal=True,
        y_title="USD",
        by_label=True,
        row_heading="model",
        decimals=4,
        description="; ".join(
            f"{m}: {found[m]['calls']} calls, ${found[m]['cost']:.4f}" for m in models
        )
        or "No LLM call in the range.",
    )


def failures(filters: Filters, memo: dict | None = None) -> ChartSpec:
    d_rows = _periods(filters, memo)
    c_rows = [
        {"calls": r["calls"], "retried": r["calls_retried"], "failed": r["calls_failed"]}
        for r in d_rows
    ]
    finished = sum(r["finished"] for r in d_rows)
    failed = sum(r["failed"] for r in d_rows)
    all_calls = sum(r["calls"] for r in c_rows)
    retried_calls = sum(r["retried"] for r in c_rows)
    spec = ChartSpec(
        id="failures",
        title=f"Failures and retries {_per_period(filters)}",
        kind="line",
        labels=_labels(filters),
        series=[
            Series("debates failed", [_rate(r["failed"], r["finished"]) for r in d_rows]),
            Series("debates retried", [_rate(r["retried"], r["finished"]) for r in d_rows]),
            Series("LLM calls retried", [_rate(r["retried"], r["calls"]) for r in c_rows]),
            Series("LLM calls failed", [_rate(r["failed"], r["calls"]) for r in c_rows]),
            Series("finished debates", [r["finished"] for r in d_rows], hidden=True, percent=False),
            Series("LLM calls", [r["calls"] for r in c_rows], hidden=True, percent=False),
        ],
        y_title="share",
        y_max=1,
        percent=True,
        by_label=True,
        row_heading="week" if filters.by_week else "day",
        description=(
            f"{failed} of {finished} finished debates failed ({_pct(failed, finished)}); "
            f"{retried_calls} of {all_calls} LLM calls needed a retry "
            f"({_pct(retried_calls, all_calls)})."
        ),
    )
    return spec


@dataclass(frozen=True)
class Chart:
    id: str
    build: Callable[..., ChartSpec]  # (filters, memo=None)


CHARTS = [
    Chart("decisions-over-time", decisions_over_time),
    Chart("decisions-by-protocol", decisions_by_protocol),
    Chart("decisions-by-schedule", decisions_by_schedule),
    Chart("agreement", agreement_distribution),
    Chart("review-rates", review_rates),
    Chart("ground-truth", labelled.agreement_with_reviewers),
    Chart("debate-changed", labelled.debate_changed),
    Chart("calibration", labelled.calibration),
    Chart("position-changes", position_changes),
    Chart("cost-over-time", cost_over_time),
    Chart("tokens-over-time", tokens_over_time),
    Chart("cost-by-model", usage_by_model),
    Chart("failures", failures),
]
BY_ID = {c.id: c for c in CHARTS}


def protocol_choices() -> list[tuple[str, str]]:
    return [(name, name) for name, cls in PROTOCOLS.items() if not cls.is_selector]


__all__ = ["BY_ID", "CHARTS", "decision_group", "protocol_choices"]
