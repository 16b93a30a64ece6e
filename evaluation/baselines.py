"""Baselines recorded for debates finished before they were computed (`manage.py
backfill_baselines`): the same computation a finishing debate makes (`debates.baselines`),
stored afterwards."""

from __future__ import annotations

from debates.baselines import finished_fields
from debates.models import Debate
from protocols import evaluation


def record_baselines(
    *, debate_id, decision: str | None = None, debate: Debate | None = None
) -> evaluation.Baselines | None:
    """Compute and store the baselines and the quality scores (`debates.quality`) of one
    debate (4 queries; 1 more when the caller does not hand over the debate it holds).
    `decision` defaults to the stored one."""
    if debate is None:
        debate = Debate.objects.only("id", "protocol", "options", "decision").get(id=debate_id)
    result, fields = finished_fields(debate, decision or debate.decision)
    if result is None:
        return None
    Debate.objects.filter(id=debate_id).update(**fields)
    return result


def backfill(*, only_missing: bool = True, batch_size: int = 500) -> int:
    """Record the baselines of every completed debate (without any, unless `only_missing` is
    False). Returns how many were recorded."""
    qs = Debate.objects.filter(status=Debate.Status.COMPLETED)
    if only_missing:
        qs = qs.filter(majority_decision="")
    count = 0
    for debate_id in qs.values_list("id", flat=True).iterator(chunk_size=batch_size):
        if record_baselines(debate_id=debate_id) is not None:
            count += 1
    return count
