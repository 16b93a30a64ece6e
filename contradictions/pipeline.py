"""Contradiction resolution as a node of another application's pipeline
(docs/concepts/contradictions.md#pipeline-node).

The debate node stands between a workflow's agents and its verification step
(`agents -> DEBATE -> verify`), reporting progress through an event callback. This is that node as a
plain function: `resolve_contradictions(reports, on_event=...)` runs in the caller's process (no
worker), with the same storage, guarantees and review hand-off as a run started over the API: the
run and every arbitration are stored, flagged contradictions become review items in the transaction
that completes the run, a run that fails for good gets a `run_failed` item.

Events: ``on_event("debate", "running")`` first; then, when contradictions were found,
``on_event("debate", "complete", {"contradictions", "resolved", "flagged"}, latency_ms)``. With none
found the node returns without another event (the result says "skipped"). A failed run sends
``on_event("debate", "failed", {"error"}, latency_ms)`` and raises `ContradictionRunFailed`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError

from contradictions import running, services
from contradictions.inputs import ReportInput, parse_payload
from contradictions.models import ContradictionRun

#: ``on_event(stage, status, data=None, latency_ms=None)``: the node's event callback.
EventCallback = Callable[..., Any]

__all__ = ["ContradictionRunFailed", "EventCallback", "resolve_contradictions"]


class ContradictionRunFailed(RuntimeError):
    """The run failed for good (stored as failed, queued for review); `run_id` names it."""

    def __init__(self, run_id, error: str):
        super().__init__(error)
        self.run_id = run_id


def resolve_contradictions(
    reports: Sequence[Mapping[str, Any] | ReportInput],
    *,
    on_event: EventCallback | None = None,
    created_by=None,
    value_threshold: float | None = None,
    confidence_gap: float | None = None,
) -> dict[str, Any]:
    """Detect, arbitrate and resolve the contradictions between `reports`, in this process.

    `reports`: dicts in the API's shape (``{"agent", "confidence", "findings": [...]}``),
    checked as the API checks them (`ValidationError` with one line per problem, nothing
    stored), or `ReportInput`s. Returns what the node adds to the pipeline's state:
    ``{"agent_reports": <adjusted reports>, "debate_results": <the run's result>, "run_id"}``;
    `debate_results` is `ContradictionRun.debate_results`.
    """
    inputs = _inputs(reports)
    emit = on_event if on_event is not None else (lambda *args: None)
    emit("debate", "running")
    started = time.monotonic()
    run = services.contradiction_run_create(
        reports=inputs,
        created_by=created_by,
        origin=ContradictionRun.Origin.PIPELINE,
        value_threshold=value_threshold,
        confidence_gap=confidence_gap,
        enqueue=False,
    )
    ended = running.contradiction_run_execute(run_id=run.id)
    run = ContradictionRun.objects.get(id=run.id) if ended is None else ended
    latency_ms = (time.monotonic() - started) * 1000
    if run.status != ContradictionRun.Status.COMPLETED:
        error = run.error or f"the run ended {run.status}"
        emit("debate", "failed", {"error": error}, latency_ms)
        raise ContradictionRunFailed(run.id, error)
    results = run.debate_results
    if results["status"] == "complete":
        emit(
            "debate",
            "complete",
            {
                "contradictions": results["contradictions_found"],
                "resolved": results["resolved"],
                "flagged": results["flagged_for_review"],
            },
            latency_ms,
        )
    return {
        "agent_reports": run.adjusted_reports,
        "debate_results": results,
        "run_id": str(run.id),
    }


def _inputs(reports) -> list[ReportInput]:
    if isinstance(reports, (str, bytes)) or not isinstance(reports, Sequence):
        raise ValidationError([f"Expected a list of reports, got {type(reports).__name__}."])
    if reports and all(isinstance(r, ReportInput) for r in reports):
        return list(reports)
    return parse_payload({"reports": list(reports)})["reports"]
