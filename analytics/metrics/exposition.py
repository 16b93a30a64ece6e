"""The figures (`analytics.metrics.figures`) as Prometheus metric families: plain code over plain
dicts, no database.

Counters are totals over stored rows (debates created, calls made, tokens, cost ...): they only
grow as rows are added, so `rate()` and `increase()` work on them as on in-process counters.
Gauges are states (debates per status, the backlog, the queue) and the evaluation figures
(docs/operations/metrics.md#evaluation-figures: agreement with reviewers over the newest finished
debates, means of cost).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from analytics.metrics.figures import LATENCY_BUCKETS
from runs.counters import SWEEPER_OUTCOMES

P = "debates_"
ACTIVE_REVIEW = ("open", "claimed")
DECIDERS = ("debate", "majority", "single_agent")


def _counter(name: str, doc: str, labels: list[str]) -> CounterMetricFamily:
    return CounterMetricFamily(P + name, doc, labels=labels)


def _gauge(name: str, doc: str, labels: list[str] | None = None) -> GaugeMetricFamily:
    return GaugeMetricFamily(P + name, doc, labels=labels or [])


def _debate_families(
    rows: list[dict[str, Any]], failures: dict[str, int] | None
) -> Iterator[Metric]:
    created: dict[str, int] = defaultdict(int)
    completed: dict[str, int] = defaultdict(int)
    states: dict[tuple[str, str], int] = defaultdict(int)
    consensus: dict[tuple[str, str], int] = defaultdict(int)
    cost: dict[tuple[str, str], float] = defaultdict(float)
    tokens: dict[tuple[str, str], int] = defaultdict(int)
    for r in rows:
        protocol, status = r["protocol"], r["status"]
        created[protocol] += r["n"]
        states[(protocol, status)] += r["n"]
        cost[(protocol, status)] += r["cost"]
        tokens[(protocol, "in")] += r["tokens_in"]
        tokens[(protocol, "out")] += r["tokens_out"]
        if status == "completed":
            completed[protocol] += r["n"]
            consensus[(protocol, r["consensus_type"] or "none")] += r["n"]

    family = _counter("created", "Debates created (queued), by protocol.", ["protocol"])
    for protocol, n in sorted(created.items()):
        family.add_metric([protocol], n)
    yield family
    family = _counter("completed", "Debates that completed with a decision.", ["protocol"])
    for protocol in sorted(created):
        family.add_metric([protocol], completed[protocol])
    yield family
    family = _counter(
        "failed",
        "Failures for good (one debate_failed review item each, a failed re-run counts again).",
        ["protocol"],
    )
    if failures is not None:
        for protocol in sorted(set(created) | set(failures)):
            family.add_metric([protocol], failures.get(protocol, 0))
    yield family
    family = _gauge("by_status", "Debates stored, by protocol and status.", ["protocol", "status"])
    for (protocol, status), n in sorted(states.items()):
        family.add_metric([protocol, status], n)
    yield family
    family = _counter(
        "consensus", "Completed debates by type of consensus reached.", ["protocol", "consensus"]
    )
    for key, n in sorted(consensus.items()):
        family.add_metric(list(key), n)
    yield family
    family = _gauge(
        "consensus_ratio",
        "Share of a protocol's completed debates that reached each type of consensus.",
        ["protocol", "consensus"],
    )
    for (protocol, kind), n in sorted(consensus.items()):
        family.add_metric([protocol, kind], n / completed[protocol])
    yield family
    family = _counter(
        "cost_usd", "What debates cost in LLM calls (USD), by status.", ["protocol", "status"]
    )
    for key, usd in sorted(cost.items()):
        family.add_metric(list(key), usd)
    yield family
    family = _counter("tokens", "Tokens debates used.", ["protocol", "direction"])
    for key, n in sorted(tokens.items()):
        family.add_metric(list(key), n)
    yield family


def _call_families(rows: list[dict[str, Any]]) -> Iterator[Metric]:
    labels = ["source", "model"]
    calls = _counter("llm_calls", "LLM calls through the gateway that were answered.", labels)
    pending = _gauge("llm_calls_pending", "LLM calls in flight (recorded, not answered).", labels)
    failed = _gauge(
        "llm_calls_failed",
        "LLM calls whose attempts all failed (made again if their debate or run is retried).",
        labels,
    )
    attempts = _counter("llm_call_attempts", "Requests sent to providers for LLM calls.", labels)
    retries = _counter(
        "llm_call_retries", "Requests beyond each call's first (429, 5xx, timeouts ...).", labels
    )
    tokens = _counter("llm_tokens", "Tokens of LLM calls.", [*labels, "direction"])
    cost = _counter("llm_cost_usd", "What LLM calls cost (USD).", labels)
    latency = HistogramMetricFamily(
        P + "llm_call_latency_seconds",
        "Latency of answered and failed LLM calls, retries included.",
        labels=labels,
    )
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        key = (r["source"], r["model"])
        {"pending": pending, "failed": failed, "done": calls}[r["status"]].add_metric(
            list(key), r["n"]
        )
        m = merged.setdefault(
            key,
            {
                "attempts": 0,
                "retries": 0,
                "in": 0,
                "out": 0,
                "cost": 0.0,
                "finished": 0,
                "sum": 0.0,
                "buckets": [0] * len(LATENCY_BUCKETS),
            },
        )
        m["attempts"] += r["attempts"]
        m["retries"] += r["retries"]
        m["in"] += r["tokens_in"]
        m["out"] += r["tokens_out"]
        m["cost"] += r["cost"]
        m["finished"] += r["finished"]
        m["sum"] += r["latency_s"]
        m["buckets"] = [a + b for a, b in zip(m["buckets"], r["buckets"], strict=True)]
    for key, m in sorted(merged.items()):
        attempts.add_metric(list(key), m["attempts"])
        retries.add_metric(list(key), m["retries"])
        tokens.add_metric([*key, "in"], m["in"])
        tokens.add_metric([*key, "out"], m["out"])
        cost.add_metric(list(key), m["cost"])
        buckets = [
            (repr(float(bound)), n) for bound, n in zip(LATENCY_BUCKETS, m["buckets"], strict=True)
        ]
        latency.add_metric(list(key), [*buckets, ("+Inf", m["finished"])], m["sum"])
    yield from (calls, pending, failed, attempts, retries, tokens, cost, latency)


def _review_families(rows: list[dict[str, Any]], now: float) -> Iterator[Metric]:
    items = _gauge("review_items", "Review items, by reason and status.", ["reason", "status"])
    backlog = _gauge(
        "review_backlog", "Review items waiting for an analyst (open or claimed).", ["reason"]
    )
    closed = _counter(
        "review_items_closed",
        "Review items closed: the verdict (uphold, override, keep, rerun) or dismissed.",
        ["outcome"],
    )
    overrides = _counter(
        "review_veto_overrides",
        "Review items on which a reviewer overrode a safety veto to ACT (claimed, with a note "
        "and a confirmation), by the item's status: resolved when it took effect, open or "
        "claimed while it waits for a second review or an adjudication.",
        ["status"],
    )
    overdue = _gauge(
        "review_overdue",
        "Review items waiting for an analyst (open or claimed) past their deadline.",
        ["reason"],
    )
    by_status: dict[tuple[str, str], int] = defaultdict(int)
    late: dict[str, int] = defaultdict(int)
    vetoes: dict[str, int] = defaultdict(int)
    waiting: dict[str, int] = defaultdict(int)
    outcomes: dict[str, int] = defaultdict(int)
    oldest: float | None = None
    for r in rows:
        by_status[(r["reason"], r["status"])] += r["n"]
        if r.get("veto_overrides"):
            vetoes[r["status"]] += r["veto_overrides"]
        if r["status"] in ACTIVE_REVIEW:
            waiting[r["reason"]] += r["n"]
            late[r["reason"]] += r.get("overdue") or 0
            if r["oldest"] is not None:
                oldest = r["oldest"] if oldest is None else min(oldest, r["oldest"])
        elif r["status"] in ("dismissed", "expired"):
            outcomes[r["status"]] += r["n"]
        else:
            outcomes[r["verdict"] or "none"] += r["n"]
    for key, n in sorted(by_status.items()):
        items.add_metric(list(key), n)
    for reason, n in sorted(waiting.items()):
        backlog.add_metric([reason], n)
    for outcome, n in sorted(outcomes.items()):
        closed.add_metric([outcome], n)
    age = _gauge(
        "review_backlog_oldest_age_seconds",
        "Age of the oldest review item waiting for an analyst (0 when none waits).",
    )
    age.add_metric([], max(0.0, now - oldest) if oldest is not None else 0.0)
    for status, n in sorted(vetoes.items()):
        overrides.add_metric([status], n)
    for reason in sorted(waiting):
        overdue.add_metric([reason], late[reason])
    yield from (items, backlog, closed, age, overrides, overdue)


def _run_families(rows: list[dict[str, Any]], kinds: list[str], now: float) -> Iterator[Metric]:
    states = _gauge(
        "runs", "Durable runs (debates, contradiction runs), by status.", ["kind", "status"]
    )
    waited = _gauge(
        "runs_oldest_queued_age_seconds",
        "How long the longest-waiting queued run has waited since it was (re-)queued.",
        ["kind"],
    )
    oldest: dict[str, float] = {}
    for r in rows:
        states.add_metric([r["kind"], r["status"]], r["n"])
        if r["status"] == "queued" and r["oldest"] is not None:
            oldest[r["kind"]] = r["oldest"]
    for kind in kinds:
        waited.add_metric([kind], max(0.0, now - oldest[kind]) if kind in oldest else 0.0)
    yield from (states, waited)


def _queue_families(queues: list[dict[str, Any]] | None) -> Iterator[Metric]:
    family = _gauge(
        "queue_messages",
        "Task messages the broker holds: waiting for a worker, or delivered and not acknowledged.",
        ["queue", "state"],
    )
    for queue in queues or []:
        family.add_metric([queue["queue"], "waiting"], queue["waiting"])
        family.add_metric([queue["queue"], "unacked"], queue["unacked"])
    yield family


def _sweeper_families(rows: list[list[Any]] | None, kinds: list[str]) -> Iterator[Metric]:
    family = _counter(
        "sweeper_reclaims",
        "Stuck runs the sweeper re-enqueued (requeued) or gave up on (gave_up).",
        ["kind", "outcome"],
    )
    counts = {(kind, outcome): 0 for kind in kinds for outcome in SWEEPER_OUTCOMES}
    for kind, outcome, n in rows or ():
        counts[(kind, outcome)] = n
    for key, n in sorted(counts.items()):
        family.add_metric(list(key), n)
    yield family


def _ground_truth_families(report: dict[str, Any] | None) -> Iterator[Metric]:
    labels = ["by", "key"]
    window = _gauge(
        "ground_truth_debates", "Finished debates the ground-truth figures read (the newest)."
    )
    truncated = _gauge(
        "ground_truth_truncated", "1 when more debates finished than the figures read."
    )
    labelled = _gauge(
        "ground_truth_labelled", "Debates with a reviewers' verdict (labelled examples).", labels
    )
    examples = _gauge(
        "ground_truth_examples",
        "Labelled examples each decider is judged on (single_agent: one per agent answer).",
        [*labels, "decider"],
    )
    agreed = _gauge(
        "ground_truth_agreed",
        "Labelled examples where the decider agreed with the reviewers' verdict.",
        [*labels, "decider"],
    )
    ratio = _gauge(
        "ground_truth_agreement_ratio",
        "Accuracy against reviewers' verdicts: agreed / examples (absent with no example).",
        [*labels, "decider"],
    )
    overrides = _gauge(
        "ground_truth_overrides", "Labelled debates whose verdict differs from the rules'.", labels
    )
    override_ratio = _gauge("ground_truth_override_ratio", "Overrides / labelled debates.", labels)
    corrected = _gauge(
        "ground_truth_corrected", "Agents the debate moved to the verdict (were wrong).", labels
    )
    talked_out = _gauge(
        "ground_truth_talked_out", "Agents the debate moved away from the verdict.", labels
    )
    cost = _gauge(
        "ground_truth_cost_per_decision_usd", "Mean cost of a finished debate (USD).", labels
    )
    latency = _gauge(
        "ground_truth_latency_per_decision_seconds",
        "Mean time from a debate's start to its decision.",
        labels,
    )
    if report is not None:
        window.add_metric([], report["debates"])
        truncated.add_metric([], int(report["truncated"]))
        groups = [("all", report["overall"])] + [
            (by, g)
            for by, key in (
                ("protocol", "by_protocol"),
                ("agent", "by_agent"),
                ("model", "by_model"),
            )
            for g in report[key]
        ]
        for by, g in groups:
            key = [by, g["key"] or "none"]
            labelled.add_metric(key, g["labelled"])
            for decider in DECIDERS:
                figure = g[decider]
                examples.add_metric([*key, decider], figure["n"])
                agreed.add_metric([*key, decider], figure["agreed"])
                if figure["rate"] is not None:
                    ratio.add_metric([*key, decider], figure["rate"])
            overrides.add_metric(key, g["overrides"])
            if g["override_rate"] is not None:
                override_ratio.add_metric(key, g["override_rate"])
            corrected.add_metric(key, g["corrected"])
            talked_out.add_metric(key, g["talked_out"])
            if g["cost_per_decision_usd"] is not None:
                cost.add_metric(key, g["cost_per_decision_usd"])
            if g["latency_per_decision_s"] is not None:
                latency.add_metric(key, g["latency_per_decision_s"])
    yield from (
        window,
        truncated,
        labelled,
        examples,
        agreed,
        ratio,
        overrides,
        override_ratio,
        corrected,
        talked_out,
        cost,
        latency,
    )


def _cost_families(
    debates: list[dict[str, Any]] | None, answers: dict[str, dict[str, float]] | None
) -> Iterator[Metric]:
    """The "cost per debate vs single agent": a completed debate's mean cost against the
    mean cost of one independent answer (what a single agent would have cost)."""
    count = _counter(
        "independent_answers",
        "Independent answers (each agent's first position) in completed debates.",
        ["protocol"],
    )
    spent = _counter(
        "independent_answers_cost_usd", "What those independent answers cost (USD).", ["protocol"]
    )
    per_debate = _gauge(
        "cost_per_debate_usd", "Mean cost of a completed debate (USD), all time.", ["protocol"]
    )
    single = _gauge(
        "single_agent_cost_usd",
        "Mean cost of one independent answer: a single agent's cost per decision (USD).",
        ["protocol"],
    )
    ratio = _gauge(
        "cost_vs_single_agent_ratio",
        "Cost per debate / single-agent cost (absent while either is 0).",
        ["protocol"],
    )
    completed: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for r in debates or ():
        if r["status"] == "completed":
            completed[r["protocol"]][0] += r["n"]
            completed[r["protocol"]][1] += r["cost"]
    for protocol, (n, usd) in sorted(completed.items()):
        per_debate.add_metric([protocol], usd / n)
    for protocol, figure in sorted((answers or {}).items()):
        count.add_metric([protocol], figure["n"])
        spent.add_metric([protocol], figure["cost"])
        if figure["n"]:
            single_cost = figure["cost"] / figure["n"]
            single.add_metric([protocol], single_cost)
            n, usd = completed.get(protocol, (0, 0.0))
            if n and usd and single_cost:
                ratio.add_metric([protocol], (usd / n) / single_cost)
    yield from (count, spent, per_debate, single, ratio)


def _quality_families(report: dict[str, Any] | None) -> Iterator[Metric]:
    """The argument quality and consensus rate, and the comparison with a single agent
    (accuracy improvement, reasoning depth, bias reduction, calibration), each beside the number
    of debates it rests on. A figure with nothing to rest on has no sample."""
    if not report:
        return
    score = _gauge(
        "quality_score", "Mean quality score (0-1) over the newest finished debates.", ["score"]
    )
    scored = _gauge("quality_score_debates", "Debates the quality score rests on.", ["score"])
    for name, figure in report["quality"].items():
        scored.add_metric([name], figure["n"])
        if figure["value"] is not None:
            score.add_metric([name], figure["value"])
    compared = _gauge(
        "single_agent_comparison",
        "Debate against a single agent: accuracy_improvement and bias_reduction (rates), "
        "reasoning_depth (ratio), confidence_calibration (Brier, single minus debate).",
        ["figure"],
    )
    examples = _gauge(
        "single_agent_comparison_examples", "Debates the comparison rests on.", ["figure"]
    )
    for name, figure in report["comparison"].items():
        examples.add_metric([name], figure["n"])
        if figure["value"] is not None:
            compared.add_metric([name], figure["value"])
    yield from (score, scored, compared, examples)


def _meta_families(tiers: dict[str, dict[str, Any]], now: float) -> Iterator[Metric]:
    up = _gauge(
        "metrics_source_up", "1 when the source could be read at the last refresh.", ["source"]
    )
    seconds = _gauge(
        "metrics_source_seconds", "Time reading the source took at the last refresh.", ["source"]
    )
    age = _gauge("metrics_age_seconds", "Age of the figures served (they are cached).", ["tier"])
    for tier, figures in sorted(tiers.items()):
        age.add_metric([tier], max(0.0, now - figures["read_at"]))
        for source, state in sorted(figures["sources"].items()):
            up.add_metric([source], int(state["up"]))
            seconds.add_metric([source], state["seconds"])
    yield from (up, seconds, age)


def families(
    operations: dict[str, Any],
    evaluation: dict[str, Any],
    *,
    now: float,
    kinds: list[str],
) -> list[Metric]:
    """Every metric family, from the two tiers of figures. The families of a source that could
    not be read are left out or have no samples (and `debates_metrics_source_up` is 0)."""
    out: list[Metric] = []
    if "debates" in operations:
        out += _debate_families(operations["debates"], operations.get("failures"))
    if "calls" in operations:
        out += _call_families(operations["calls"])
    if "reviews" in operations:
        out += _review_families(operations["reviews"], now)
    if "runs" in operations:
        out += _run_families(operations["runs"], kinds, now)
    out += _queue_families(operations.get("queue"))
    out += _sweeper_families(operations.get("sweeper"), kinds)
    out += _ground_truth_families(evaluation.get("ground_truth"))
    out += _cost_families(operations.get("debates"), evaluation.get("independent_answers"))
    out += _quality_families(evaluation.get("quality"))
    out += _meta_families({"operations": operations, "evaluation": evaluation}, now)
    return out


class FiguresCollector(Collector):
    """Hands a registry the families built from figures already read."""

    def __init__(self, metric_families: list[Metric]):
        self.metric_families = metric_families

    def collect(self) -> Iterator[Metric]:
        yield from self.metric_families
