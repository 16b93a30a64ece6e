"""Evaluation runs started from the evaluation pages: a shipped set, asked through the same path
as `manage.py evaluate` (`runs.run_start`, then `runs.item_ask` for each question: a debate
created by the service and sent to the debate workers), driven by the `evaluation.advance_run`
task instead of the command's loop.

Each step of the task asks the questions there is room for (at most `MAX_IN_FLIGHT` with the
workers at once, as the command's default), and once every debate has finished marks the run
completed with its figures. A run where no debate finishes for `STALL_SECONDS` is marked
interrupted, and resumes with `manage.py evaluate --resume RUN_ID` (docs/analysts/evaluation.md).

Each step marks the run's chain alive in the cache (`chain_alive`); the sweep (`runs_sweep`, run
by beat) sends a step again for a running run whose chain has not stepped for `CHAIN_TIMEOUT`
seconds: its next step was lost with a worker or the broker.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

import audit
from debates.management.commands.debate import _system_user
from evaluation import runs
from evaluation.models import EvaluationRun
from protocols.public_sets import SHIPPED_DIR
from protocols.question_sets import QuestionSetError, set_digest

logger = logging.getLogger(__name__)

MAX_IN_FLIGHT = 8
ADVANCE_SECONDS = 2.0
STALL_SECONDS = 300.0
#: How long a chain of steps may go without a step before the sweep sends one again.
CHAIN_TIMEOUT = 30.0
#: The user the debates of every evaluation run are recorded as (as `manage.py evaluate`).
EVALUATION_USER = "evaluation"


def shipped_sets() -> list[str]:
    """The names of the sets under evaluation_sets/ (`decisions_v1`, ...)."""
    return sorted(path.stem for path in SHIPPED_DIR.glob("*.jsonl"))


def run_launch(
    *, set_name: str, protocol: str, model: str = "", with_baselines: bool = False, actor
) -> EvaluationRun:
    """Store a run of the shipped set `set_name` and, once stored, send its first step to the
    workers. A `ValidationError` (by field) for an unknown set, a protocol whose decisions the
    set's labels are not in, a model debates may not use, or a run of the same set, protocol
    and model still running."""
    if set_name not in shipped_sets():
        raise ValidationError({"set": f"No shipped set {set_name!r}."})
    text = (SHIPPED_DIR / f"{set_name}.jsonl").read_text(encoding="utf-8")
    running = (
        EvaluationRun.objects.filter(
            set_sha256=set_digest(text),
            protocol=protocol,
            model=model,
            status=EvaluationRun.Status.RUNNING,
        )
        .values_list("id", flat=True)
        .first()
    )
    if running is not None:
        raise ValidationError(
            {"set": f"A run of {set_name} with {protocol} and this model is running: {running}."}
        )
    with transaction.atomic():
        try:
            run = runs.run_start(
                set_name=f"{set_name}.jsonl",
                text=text,
                protocol=protocol,
                model=model,
                with_baselines=with_baselines,
            )
        except QuestionSetError as exc:
            more = len(exc.problems) - 1
            raise ValidationError(
                {
                    "protocol": f"{set_name} cannot be asked through {protocol}: "
                    f"{exc.problems[0]}" + (f" (and {more} more)" if more else "")
                }
            ) from exc
        EvaluationRun.objects.filter(pk=run.pk).update(from_pages=True)
        audit.record(
            actor=actor,
            action="evaluation.start",
            subject=run,
            note=f"{set_name} through {protocol}"
            + (f" with {model}" if model else "")
            + (", with baselines" if with_baselines else ""),
        )
        transaction.on_commit(lambda: _send_step(str(run.id)))
    return run


#: The task that takes a step (`evaluation.tasks.advance_run`), handed over by the app's
#: `ready` (the task module imports this one, so this one cannot import it).
step_task = None


def _send_step(run_id: str) -> None:
    chain_alive(run_id)
    step_task.delay(run_id)


def _chain_key(run_id) -> str:
    return f"evaluation:chain:{run_id}"


def chain_alive(run_id) -> None:
    """Mark the run's chain of steps alive for `CHAIN_TIMEOUT` seconds."""
    cache.set(_chain_key(run_id), 1, timeout=CHAIN_TIMEOUT)


def runs_sweep() -> list[str]:
    """Send a step again for each running run started from the pages whose chain has not stepped
    for `CHAIN_TIMEOUT` seconds (its next step was lost); the ids it sent one for. A chain
    started twice asks nothing twice (`run_advance`), and the mark keeps two sweeps in a row
    from starting two."""
    sent = []
    running = EvaluationRun.objects.filter(
        status=EvaluationRun.Status.RUNNING, from_pages=True
    ).values_list("id", flat=True)
    for run_id in running:
        if cache.add(_chain_key(run_id), 1, timeout=CHAIN_TIMEOUT):
            logger.warning("Evaluation run %s: its steps had stopped; sending one again", run_id)
            _send_step(str(run_id))
            sent.append(str(run_id))
    return sent


@dataclass(frozen=True)
class Step:
    """What a step found and did: the run's status after it, its finished debates, and how many
    questions it asked."""

    status: str
    finished: int = 0
    asked: int = 0


def run_advance(*, run_id: str) -> Step:
    """One step of a running run: finish it when every debate has finished, else ask as many
    questions as there is room for. A run no longer running is left alone."""
    run = EvaluationRun.objects.filter(id=run_id).first()
    if run is None or run.status != EvaluationRun.Status.RUNNING:
        return Step(status=run.status if run else "gone")
    progress = runs.run_progress(run)
    if progress.done:
        return Step(status=run_finish(run_id=run_id), finished=progress.finished)
    room = max(MAX_IN_FLIGHT - progress.in_flight, 0)
    user = _system_user(EVALUATION_USER)
    asked = 0
    for item_id in progress.pending_ids[:room]:
        try:
            debate = runs.item_ask(item_id=item_id, created_by=user)
        except ValidationError as exc:
            logger.warning("Evaluation run %s: a question was refused: %s", run_id, exc.messages)
            return Step(status=run_stop(run_id=run_id), finished=progress.finished, asked=asked)
        asked += debate is not None
    return Step(status=run.status, finished=progress.finished, asked=asked)


def _elapsed(run: EvaluationRun) -> float:
    """The time since the run was stored, less what earlier sessions already counted."""
    return (timezone.now() - run.created_at).total_seconds() - (run.wall_seconds or 0)


@transaction.atomic
def run_finish(*, run_id: str) -> str:
    """Mark a running run completed and store its figures (once: the run's row is locked and
    must still be running); the run's status after."""
    run = EvaluationRun.objects.select_for_update().filter(id=run_id).first()
    if run is None:
        return "gone"
    if run.status == EvaluationRun.Status.RUNNING:
        report = runs.run_report(run)
        runs.run_mark(
            run=run,
            status=EvaluationRun.Status.COMPLETED,
            elapsed=_elapsed(run),
            report=report["figures"],
        )
    return run.status


@transaction.atomic
def run_stop(*, run_id: str) -> str:
    """Mark a running run interrupted (resumable with `manage.py evaluate --resume`)."""
    run = EvaluationRun.objects.select_for_update().filter(id=run_id).first()
    if run is None:
        return "gone"
    if run.status == EvaluationRun.Status.RUNNING:
        runs.run_mark(run=run, status=EvaluationRun.Status.INTERRUPTED, elapsed=_elapsed(run))
    return run.status
