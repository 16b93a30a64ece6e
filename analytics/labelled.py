"""The analytics page's charts over the debates reviewers labelled ("did debate help?",
docs/analysts/analytics.md): agreement with reviewers, what the debate changed against the
majority vote, and calibration. Each bar is a share with its n (in the category's label) and
its 95% Wilson interval, and links to the debate list filtered to the debates it counts."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse

from analytics import selectors
from analytics.selectors import Filters
from debates import outcomes
from debates.models import Debate
from protocols.charts import ChartSpec, Series
from protocols.question_sets import share


def debates_link(filters: Filters, **narrower) -> str:
    """The debate list filtered to the labelled debates of the page's range and filters, and
    to `narrower` (the list's own filters: protocol, outcome, confidence)."""
    params = {
        "status": Debate.Status.COMPLETED,
        "review_status": "resolved",
        "created_after": filters.since.isoformat(),
        "created_before": filters.until.isoformat(),
        "protocol": filters.protocol,
        "schedule": filters.schedule_id or "",
        "model": filters.model,
        **narrower,
    }
    return f"{reverse('debates:list')}?{urlencode({k: v for k, v in params.items() if v != ''})}"


def shares(label: str, parts: list[tuple[int, int]], links: list[str]) -> Series:
    """A series of bars, each `k` of `n` (k, n in `parts`) with its 95% Wilson interval."""
    found = [share(k, n) for k, n in parts]
    return Series(
        label,
        [f["share"] for f in found],
        kind="bar",
        counts=[k for k, _ in parts],
        totals=[n for _, n in parts],
        intervals=[(f["low"], f["high"]) if f["n"] else None for f in found],
        links=[link if n else "" for link, (_, n) in zip(links, parts, strict=True)],
    )


def _with_n(label: str, n: int) -> str:
    return f"{label} (n={n})"


def agreement_with_reviewers(filters: Filters, memo: dict | None = None) -> ChartSpec:
    found = selectors.agreement_with_reviewers(filters)
    keys = ["", *sorted(k for k in found if k)]
    figures = [found[k] for k in keys]
    overall = found[""]
    links = [debates_link(filters, **({"protocol": k} if k else {})) for k in keys]
    return ChartSpec(
        id="ground-truth",
        title="Agreement with reviewers: debate, majority vote, single agent",
        kind="bar",
        labels=[_with_n(k or "all", f["resolved"]) for k, f in zip(keys, figures, strict=True)],
        series=[
            shares("debate", [(f["debate_agreed"], f["resolved"]) for f in figures], links),
            shares(
                "majority vote", [(f["majority_agreed"], f["resolved"]) for f in figures], links
            ),
            shares(
                "single agent",
                [(f["single_agreed"], f["single_answers"]) for f in figures],
                links,
            ),
            Series(
                "override rate",
                [
                    round((f["resolved"] - f["debate_agreed"]) / f["resolved"], 4)
                    if f["resolved"]
                    else None
                    for f in figures
                ],
                hidden=True,
            ),
        ],
        y_title="agreement with the reviewers' verdict",
        y_max=1,
        percent=True,
        by_label=True,
        row_heading="protocol",
        description=(
            f"{overall['resolved']} debates in the range labelled by reviewers (the verdict of a "
            "resolved review: the decision upheld, or the reviewer's own). Bars: the share with "
            "the verdict, n after each name, the line on each bar its 95% interval; a bar opens "
            "the labelled debates."
        ),
    )


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("0" if n == 0 else f"−{-n}")


def debate_changed(filters: Filters, memo: dict | None = None) -> ChartSpec:
    counts = selectors.verdicts(filters)
    protocols = sorted({p for p, _ in counts})
    totals = {p: sum(n for (q, _), n in counts.items() if q == p) for p in protocols}
    shown = [o for o in outcomes.OUTCOMES if any(counts.get((p, o)) for p in protocols)]
    series = []
    for outcome in shown:
        parts = [(counts.get((p, outcome), 0), totals[p]) for p in protocols]
        links = [debates_link(filters, protocol=p, outcome=outcome) for p in protocols]
        found = shares(outcomes.OUTCOMES[outcome], parts, links)
        found.links = [link if k else "" for link, (k, _) in zip(found.links, parts, strict=True)]
        series.append(found)
    nets = []
    for p in protocols:
        fixed = counts.get((p, outcomes.FIXED), 0)
        broke = counts.get((p, outcomes.BROKE), 0)
        nets.append(f"{p} {_signed(fixed - broke)} ({fixed} fixed, {broke} broke)")
    intro = (
        "Before debating, each agent answered alone; their majority vote is what a plain vote "
        "would have decided. Of the debates reviewers labelled, each bar is the share where "
        "the debate kept the majority's answer, fixed it (a wrong majority turned right), "
        "broke it (a right majority turned wrong) or changed a wrong answer to another wrong "
        "one; without a majority vote, only whether the debate was right. "
    )
    intro += (
        f"Net effect of debating (fixed minus broke): {'; '.join(nets)}."
        if protocols
        else "No labelled debate in the range."
    )
    return ChartSpec(
        id="debate-changed",
        title="What the debate changed against the majority vote",
        kind="bar",
        labels=[_with_n(p, totals[p]) for p in protocols],
        series=series,
        y_title="share",
        y_max=1,
        percent=True,
        by_label=True,
        row_heading="protocol",
        intro=intro,
        description="; ".join(
            f"{p}: {totals[p]} labelled, "
            + ", ".join(
                f"{counts[(p, o)]} {outcomes.OUTCOMES[o]}" for o in shown if counts.get((p, o))
            )
            for p in protocols
        )
        or "No labelled debate in the range.",
    )


def calibration(filters: Filters, memo: dict | None = None) -> ChartSpec:
    counts = selectors.calibration(filters)
    bands = range(outcomes.CONFIDENCE_BANDS)
    parts = [
        (counts.get((b, True), 0), counts.get((b, True), 0) + counts.get((b, False), 0))
        for b in bands
    ]
    links = [debates_link(filters, confidence=b) for b in bands]
    labelled = sum(n for _, n in parts)
    upheld = sum(k for k, _ in parts)
    return ChartSpec(
        id="calibration",
        title="Calibration: decisions upheld by confidence",
        kind="bar",
        labels=[_with_n(outcomes.band_label(b), n) for b, (_, n) in zip(bands, parts, strict=True)],
        series=[
            shares("decision upheld", parts, links),
            Series(
                "perfect calibration",
                [round((b + 0.5) / outcomes.CONFIDENCE_BANDS, 4) for b in bands],
                reference=True,
                straight=True,
            ),
        ],
        y_title="share upheld by reviewers",
        y_max=1,
        percent=True,
        by_label=True,
        row_heading="decision confidence",
        intro=(
            "Labelled debates by the confidence of their decision, and the share whose decision "
            "the reviewers upheld. A well calibrated service is right 75% of the time when it "
            "says 75%: its bars reach the dashed diagonal; bars below it are overconfident."
        ),
        description=(
            f"{upheld} of {labelled} labelled debates with a decision confidence were upheld."
            if labelled
            else "No labelled debate with a decision confidence in the range."
        ),
    )
