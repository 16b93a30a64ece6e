"""The sweeper's entry points and re-running a failed debate (the mechanics are `runs.lifecycle`).

PostgreSQL cannot lose a debate, but Redis (which keeps nothing on disk) can lose its message,
and a worker can die mid-debate: its message then waits in Redis's unacknowledged set until the
visibility timeout (an hour). Every `DEBATE_SWEEP_INTERVAL` seconds beat runs `sweep`, which
finds, for every kind of durable work (debates, contradiction runs),

- those *queued* for longer than `DEBATE_QUEUED_DEADLINE` (their message was lost, or is stuck
  behind a long backlog: a second message is then harmless, the first run wins), or for longer
  than `DEBATE_LOST_QUEUE_GRACE` when the broker holds fewer messages than there are such rows
  (it lost its queue), and
- those *running* whose heartbeat (moved on as results are stored) is older than
  `DEBATE_HEARTBEAT_TIMEOUT`,

and re-enqueues them. Work is never taken from a live runner: the runner holds a PostgreSQL
advisory lock for the whole run, and the lock ends with the runner's connection, so the sweeper
re-enqueues only what it can take the lock of. The new run resumes from what is stored (stored
LLM calls are not made again). After `DEBATE_MAX_RECOVERIES` re-enqueues the sweeper gives up:
the debate (run) is failed with the reason, and a `debate_failed` (`run_failed`) review item is
queued in the same transaction.
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import ValidationError

from agents import routing
from debates.models import Debate
from debates.running import DEBATES
from runs import lifecycle, sweeping
from runs.sweeping import SweepReport

__all__ = ["SweepReport", "debate_model_change", "debate_rerun", "recover_stuck_debates", "sweep"]


def recover_stuck_debates(*, now: datetime | None = None, limit: int = 200) -> SweepReport:
    """Re-enqueue stuck debates, or give up on those re-enqueued too often. Safe to run twice
    at once: each debate is handled under its advisory lock, and only if it did not change."""
    return sweeping.recover_stuck(DEBATES, now=now, limit=limit)


def sweep(*, now: datetime | None = None, limit: int = 200) -> dict[str, SweepReport]:
    """One sweep of every kind of durable work: what beat runs."""
    return sweeping.sweep(now=now, limit=limit)


def debate_rerun(*, debate_id, user=None, note: str = "") -> bool:
    """Queue a failed debate again, from what is stored: the new run resumes where the failed
    one stopped, and LLM calls already stored are not made (nor paid for) again.

    The debate goes back to queued with its counters at 0 (`attempts`, `recoveries`: the
    sweeper's bounds hold anew), its error, start and end cleared, and any reviewer's decision
    cleared (the re-run asks the machine again). Its open `debate_failed` review item is closed
    as re-run by `user`, in the same transaction (`reviews.events.ReviewConflict` when another
    analyst holds it). False when the debate is not failed.
    """
    return lifecycle.requeue_failed(DEBATES, debate_id, user=user, note=note, decision_override="")


def debate_model_change(*, debate: Debate, model: str) -> str:
    """Before a re-run: make the failed `debate` use `model` (its `model` option, and the
    agents that took the old option's model or had none). An agent's own, different model is
    kept. Returns what changed, in words. Raises `ValidationError` ({"model": ...}) unless the
    model is allowed; nothing changes then."""
    model = (model or "").strip()
    try:
        routing.check_model_choice(model)
    except ValidationError as exc:
        raise ValidationError({"model": exc.messages}) from None
    old = (debate.options or {}).get("model", "") or ""
    if model == old:
        return ""
    debate.options = {**(debate.options or {}), "model": model}
    debate.save(update_fields=["options"])
    debate.participants.filter(model_name=old).update(model_name=model)
    return f"model changed from {old or 'the routed default'} to {model or 'the routed default'}"
