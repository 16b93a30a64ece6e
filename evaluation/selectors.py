"""Reads of evaluation runs for the pages: the list with each run's progress, one run."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from debates.models import Debate
from evaluation.models import EvaluationRun

FINISHED = (Debate.Status.COMPLETED, Debate.Status.FAILED)


def run_list() -> QuerySet[EvaluationRun]:
    """Every run, newest first, each with `total`, `asked` and `finished` questions counted in
    the same query."""
    return EvaluationRun.objects.order_by("-created_at", "-id").annotate(
        total=Count("items"),
        asked=Count("items", filter=Q(items__debate__isnull=False)),
        finished=Count("items", filter=Q(items__debate__status__in=FINISHED)),
    )


def run_choices(*, exclude=None, limit: int = 50) -> list[dict]:
    """The newest runs to compare with (id, set, protocol, model, when)."""
    runs = EvaluationRun.objects.order_by("-created_at")
    if exclude is not None:
        runs = runs.exclude(id=exclude)
    return list(runs.values("id", "set_name", "protocol", "model", "created_at")[:limit])
