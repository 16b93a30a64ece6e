"""The lifecycle fields every kind of durable work shares (see `runs.lifecycle`)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"


UNFINISHED = [RunStatus.QUEUED, RunStatus.RUNNING]


class DurableRun(models.Model):
    """The lifecycle fields of durable work, and the sweeper's index."""

    Status = RunStatus

    status = models.CharField(
        max_length=12, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    recoveries = models.PositiveSmallIntegerField(
        default=0,
        help_text="Times the sweeper re-enqueued it after its worker or message was lost.",
    )
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    heartbeat_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its runner last showed progress (claimed it, stored a result).",
    )

    class Meta:
        abstract = True

    @staticmethod
    def unfinished_index(name: str) -> models.Index:
        """The sweeper's index (unfinished rows by last change), named by each model (index
        names are limited to 30 characters, too short for a class-name pattern)."""
        return models.Index(
            fields=["status", "updated_at"],
            condition=Q(status__in=["queued", "running"]),
            name=name,
        )

    @property
    def is_finished(self) -> bool:
        return self.status in (RunStatus.COMPLETED, RunStatus.FAILED)

    @property
    def duration_seconds(self) -> float | None:
        if self.started_at and self.completed_at:
            return (self.completed_at - self.started_at).total_seconds()
        return None
