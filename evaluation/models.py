"""Evaluation runs (`manage.py evaluate`) and their questions. Their tables were made by the
debates app and keep its names (`Meta.db_table`)."""

import uuid

from django.db import models


class EvaluationRun(models.Model):
    """One run of a labelled question set through the debate service (`manage.py evaluate`):
    its questions are `EvaluationItem`s, each answered by one debate. A run interrupted is
    resumed: questions whose debate exists are never asked again."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        INTERRUPTED = "interrupted", "Interrupted"
        COMPLETED = "completed", "Completed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    set_name = models.CharField(max_length=200, help_text="The question set's file name.")
    set_sha256 = models.CharField(max_length=64, db_index=True)
    protocol = models.CharField(max_length=40)
    model = models.CharField(max_length=200, blank=True, help_text="Empty: as configured.")
    with_baselines = models.BooleanField(
        default=False, help_text="Report the majority vote and every single agent too."
    )
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.RUNNING, db_index=True
    )
    wall_seconds = models.FloatField(default=0, help_text="Time spent running, all sessions.")
    report = models.JSONField(default=dict, blank=True, help_text="The last report's figures.")
    from_pages = models.BooleanField(
        default=False,
        help_text="Started from the evaluation pages: the evaluation.advance_run task drives it "
        "(and the sweep starts its steps again if they stop); otherwise manage.py evaluate.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "debates_evaluationrun"
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.set_name} / {self.protocol} ({self.get_status_display()})"


class EvaluationItem(models.Model):
    """One labelled question of a run, and the debate that answered it (null until asked)."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="items")
    line = models.PositiveIntegerField(help_text="Its line in the set file.")
    question = models.TextField()
    expected = models.CharField(max_length=16)
    category = models.CharField(max_length=60)
    reason = models.TextField(blank=True)
    debate = models.OneToOneField(
        "debates.Debate",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="evaluation_item",
    )
    asked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "debates_evaluationitem"
        ordering = ["line"]
        constraints = [
            models.UniqueConstraint(fields=["run", "line"], name="evaluation_item_unique_line"),
        ]

    def __str__(self):
        return f"line {self.line}: {self.question[:60]}"
