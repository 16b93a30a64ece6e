"""Evaluation runs: a labelled question set asked through the real debate path, and the report.

Writes (`run_start`, `item_ask`, `run_resend`, `run_mark`) and reads (`run_progress`,
`run_results`, `run_report`) of `EvaluationRun` / `EvaluationItem`. Each question is asked by
creating a debate through `services.debate_create` (enqueued for a Celery worker, stored as any
other); the pure `protocols.question_sets` parses the set and computes the figures.

An item is asked once: `item_ask` takes the item under a row lock and only while it has no
debate, so a resumed run, or two `evaluate` commands on the same run, never ask it twice.
A debate stored just before an interruption may have missed its message (stored, then the
command stopped before it was sent): `run_resend` sends the run's queued debates again when it
is resumed, which is harmless for those that had theirs (the first run wins, the other finds
the debate taken or done).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from agents import routing
from agents.routing import is_offline_model
from debates import running, services
from debates.models import Debate, LLMCall
from evaluation.models import EvaluationItem, EvaluationRun
from protocols import OptionError, ProtocolError, defense, effective_options, get_protocol
from protocols import question_sets as qs

FINISHED = (Debate.Status.COMPLETED, Debate.Status.FAILED)


def protocol_decisions(protocol: str) -> tuple[str, ...]:
    """The decisions `protocol` can reach (an expected decision must be one of them)."""
    try:
        return tuple(get_protocol(protocol).decisions)
    except ProtocolError as exc:
        raise ValidationError({"protocol": str(exc)}) from exc


def check_model(protocol: str, model: str) -> None:
    """Reject an unknown protocol or a model debates may not use, before anything is stored."""
    if not model:
        return
    try:
        effective_options(get_protocol(protocol), {"model": model})
        routing.check_model_choice(model)
    except (OptionError, ValidationError) as exc:
        messages = exc.errors.values() if isinstance(exc, OptionError) else exc.messages
        raise ValidationError({"model": list(messages)}) from exc
    except ProtocolError as exc:
        raise ValidationError({"protocol": str(exc)}) from exc


def parse_set(text: str, protocol: str) -> list[qs.LabelledQuestion]:
    """The set's questions; `QuestionSetError` naming every bad line (a question the service
    would reject is a bad line too)."""
    questions = qs.parse_question_set(text, protocol_decisions(protocol))
    problems = []
    for q in questions:
        try:
            defense.validate_query(q.question)
        except defense.QueryRejected as exc:
            problems.append(f"line {q.line}: {exc.message}")
    if problems:
        raise qs.QuestionSetError(problems)
    return questions


def resumable_run(*, set_sha256: str, protocol: str, model: str) -> EvaluationRun | None:
    """The newest unfinished run of the same set, protocol and model, if any."""
    return (
        EvaluationRun.objects.filter(set_sha256=set_sha256, protocol=protocol, model=model)
        .exclude(status=EvaluationRun.Status.COMPLETED)
        .order_by("-created_at")
        .first()
    )


@transaction.atomic
def run_start(
    *, set_name: str, text: str, protocol: str, model: str = "", with_baselines: bool = False
) -> EvaluationRun:
    """Validate the set and store a run with one item per question (all or nothing)."""
    check_model(protocol, model)
    questions = parse_set(text, protocol)
    run = EvaluationRun.objects.create(
        set_name=set_name[:200],
        set_sha256=qs.set_digest(text),
        protocol=protocol,
        model=model,
        with_baselines=with_baselines,
    )
    EvaluationItem.objects.bulk_create(
        EvaluationItem(
            run=run,
            line=q.line,
            question=q.question,
            expected=q.expected,
            category=q.category,
            reason=q.reason,
        )
        for q in questions
    )
    return run


def item_ask(*, item_id: int, created_by=None) -> Debate | None:
    """Ask one question: create its debate (enqueued when the transaction commits). None when
    the item already has a debate (someone asked it) or is locked by another asker."""
    with transaction.atomic():
        item = (
            EvaluationItem.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("run")
            .filter(id=item_id, debate__isnull=True)
            .first()
        )
        if item is None:
            return None
        options = {"model": item.run.model} if item.run.model else {}
        debate = services.debate_create(
            query=item.question,
            protocol=item.run.protocol,
            options=options,
            created_by=created_by,
        )
        item.debate = debate
        item.asked_at = timezone.now()
        item.save(update_fields=["debate", "asked_at"])
    return debate


def run_resend(run: EvaluationRun) -> int:
    """Send the run's queued debates to the workers again (one query, then one message each);
    how many were sent."""
    queued = list(
        EvaluationItem.objects.filter(run=run, debate__status=Debate.Status.QUEUED)
        .order_by("line")
        .values_list("debate_id", flat=True)
    )
    for debate_id in queued:
        running.DEBATES.enqueue(str(debate_id))
    return len(queued)


def run_mark(*, run: EvaluationRun, status: str, elapsed: float, report: dict | None = None):
    """Record the end of a session of the run: its status and the wall time it spent."""
    run.status = status
    run.wall_seconds = (run.wall_seconds or 0) + max(elapsed, 0.0)
    fields = ["status", "wall_seconds"]
    if status == EvaluationRun.Status.COMPLETED:
        run.finished_at = timezone.now()
        fields.append("finished_at")
    if report is not None:
        run.report = report
        fields.append("report")
    run.save(update_fields=fields)


# --- reads -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    total: int
    finished: int
    failed: int
    in_flight: int
    pending_ids: tuple[int, ...]

    @property
    def done(self) -> bool:
        return self.finished == self.total


def run_progress(run: EvaluationRun) -> Progress:
    """How far the run is: one query."""
    rows = list(
        EvaluationItem.objects.filter(run=run)
        .order_by("line")
        .values_list("id", "debate_id", "debate__status")
    )
    finished = sum(1 for _, debate, status in rows if debate and status in FINISHED)
    failed = sum(1 for _, debate, status in rows if debate and status == Debate.Status.FAILED)
    pending = tuple(item for item, debate, _ in rows if debate is None)
    return Progress(
        total=len(rows),
        finished=finished,
        failed=failed,
        in_flight=len(rows) - finished - len(pending),
        pending_ids=pending,
    )


def run_results(run: EvaluationRun) -> list[dict[str, Any]]:
    """Every item with its debate's outcome (one query)."""
    rows = (
        EvaluationItem.objects.filter(run=run)
        .order_by("line")
        .values(
            "line",
            "question",
            "expected",
            "category",
            "reason",
            "debate_id",
            "debate__status",
            "debate__decision",
            "debate__majority_decision",
            "debate__baselines",
            "debate__quality",
            "debate__cost_usd",
            "debate__tokens_in",
            "debate__tokens_out",
            "debate__started_at",
            "debate__completed_at",
        )
    )
    results = []
    for r in rows:
        status = r["debate__status"]
        if status == Debate.Status.COMPLETED:
            decision = r["debate__decision"]
        elif status == Debate.Status.FAILED:
            decision = qs.FAILED
        else:
            decision = ""
        started, completed = r["debate__started_at"], r["debate__completed_at"]
        baselines = r["debate__baselines"] or {}
        results.append(
            {
                "line": r["line"],
                "question": r["question"],
                "category": r["category"],
                "expected": r["expected"],
                "reason": r["reason"],
                "debate_id": str(r["debate_id"]) if r["debate_id"] else None,
                "decision": decision,
                "correct": (decision == r["expected"]) if decision else None,
                "majority": r["debate__majority_decision"] or "",
                "single_agent": dict(baselines.get("single_agent", {})),
                "overall_quality": (r["debate__quality"] or {}).get("overall_quality"),
                "cost_usd": float(r["debate__cost_usd"] or 0),
                "tokens": (r["debate__tokens_in"] or 0) + (r["debate__tokens_out"] or 0),
                "duration_seconds": (
                    (completed - started).total_seconds() if started and completed else None
                ),
            }
        )
    return results


def run_report(run: EvaluationRun) -> dict[str, Any]:
    """The run's figures (`question_sets.run_figures`), its settings, the models its debates
    called (`offline` when any was the built-in offline model) and every item. Two queries."""
    items = run_results(run)
    models = sorted(
        set(
            LLMCall.objects.filter(debate__evaluation_item__run=run)
            .values_list("model", flat=True)
            .distinct()
        )
    )
    figures = qs.run_figures(
        (
            qs.ItemResult(
                category=i["category"],
                expected=i["expected"],
                decision=i["decision"],
                majority=i["majority"],
                single_agent=tuple(sorted(i["single_agent"].items())),
                cost_usd=i["cost_usd"],
                tokens=i["tokens"],
                duration_seconds=i["duration_seconds"],
            )
            for i in items
        ),
        protocol_decisions(run.protocol),
    )
    return {
        "run": {
            "id": str(run.id),
            "set": run.set_name,
            "set_sha256": run.set_sha256,
            "protocol": run.protocol,
            "model": run.model or None,
            "default_model": "as configured (DEBATE_DEFAULT_MODEL and routing)",
            "models_called": models,
            "offline": any(is_offline_model(m) for m in models),
            "with_baselines": run.with_baselines,
            "status": run.status,
            "created_at": run.created_at.isoformat(),
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            "wall_seconds": round(run.wall_seconds, 2),
        },
        "figures": figures,
        "items": items,
    }
