"""Contradiction runs (docs/concepts/contradictions.md): agents' reports, their claims, the
contradictions found among them, the arbitrator's resolutions with every LLM call, and the
consensus.

A run is created with its reports and claims in one transaction, then a Celery task detects,
arbitrates and builds the consensus. Rows are written as the work happens, so a run that is
re-delivered resumes where it stopped without paying for an arbitration twice.
"""

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from agents.models import GatewayCall
from contradictions.detection import SEVERITIES
from reviews.models import ReviewStatus
from runs.models import DurableRun


class SourceAuthority(models.Model):
    """One entry of the ranked list of sources the arbitrator and the consensus trust most."""

    name = models.CharField(max_length=100)
    aliases = ArrayField(
        models.CharField(max_length=100),
        default=list,
        blank=True,
        help_text="Other names the source goes by, e.g. GCC Statistical Center.",
    )
    rank = models.PositiveSmallIntegerField(
        help_text="1 is the most authoritative; equal ranks are trusted equally. Sources not "
        "listed rank below every listed one."
    )
    note = models.CharField(max_length=300, blank=True)
    is_active = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["rank", "name"]
        verbose_name = "source authority"
        verbose_name_plural = "source authority ranking"
        constraints = [
            models.UniqueConstraint(Lower("name"), name="sourceauthority_unique_name"),
            models.CheckConstraint(condition=Q(rank__gte=1), name="sourceauthority_rank_ge_1"),
        ]

    def __str__(self):
        return f"{self.rank}. {self.name}"


class ContradictionRun(DurableRun):
    """Agent reports checked for contradictions, arbitrated and settled: a durable run
    (`runs.lifecycle`)."""

    class Origin(models.TextChoices):
        API = "api", "API"
        ADMIN = "admin", "Admin"
        COMMAND = "command", "Management command"
        DEBATE = "debate", "From a debate"
        PAGE = "page", "Web page"
        PIPELINE = "pipeline", "In-process pipeline"

    ReviewStatus = ReviewStatus

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.API)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="contradiction_runs",
    )
    debate = models.ForeignKey(
        "debates.Debate",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="contradiction_runs",
        help_text="The debate the reports came from, if any.",
    )

    # What the run was asked to use, fixed when it was created.
    value_threshold = models.DecimalField(
        max_digits=6, decimal_places=4, help_text="Relative gap above which values conflict."
    )
    confidence_gap = models.FloatField(
        help_text="Confidence difference at which the same claim counts as contested."
    )
    min_confidence = models.FloatField(help_text="Arbitrations below this confidence go to review.")
    model = models.CharField(max_length=200, help_text="The arbitrator's model.")
    authority = models.JSONField(
        default=list, blank=True, help_text="The source ranking, as it was when the run started."
    )

    # Detection.
    detected_at = models.DateTimeField(null=True, blank=True)
    contradictions_found = models.PositiveIntegerField(default=0)
    detection_notes = models.JSONField(default=list, blank=True)

    # Consensus.
    resolved_count = models.PositiveIntegerField(default=0)
    flagged_count = models.PositiveIntegerField(default=0)
    reviewed_count = models.PositiveIntegerField(default=0)
    consensus_narrative = models.TextField(blank=True)
    consensus = models.JSONField(default=dict, blank=True)
    adjusted_reports = models.JSONField(default=list, blank=True)
    review_status = models.CharField(
        max_length=10, choices=ReviewStatus.choices, blank=True, default="", db_index=True
    )

    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    arbitration_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="Wall time of the arbitration step (0: skipped)."
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta(DurableRun.Meta):
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            DurableRun.unfinished_index("run_unfinished_by_update"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="completed") | Q(detected_at__isnull=False),
                name="contradictionrun_completed_was_detected",
            ),
            models.CheckConstraint(
                condition=Q(value_threshold__gt=0, value_threshold__lte=1)
                & Q(confidence_gap__gt=0, confidence_gap__lte=1)
                & Q(min_confidence__gte=0, min_confidence__lte=1),
                name="contradictionrun_thresholds_in_range",
            ),
        ]

    def __str__(self):
        return f"Contradiction run {str(self.id)[:8]} ({self.get_status_display()})"

    @property
    def arbitration_skipped(self) -> bool:
        return self.status == self.Status.COMPLETED and self.contradictions_found == 0

    @property
    def debate_results(self) -> dict:
        """The run's result (the pipeline node's `debate_results`; docs/concepts/contradictions.md,
        "Result shape"): `status`
        "complete" or "skipped" (no contradictions: arbitration skipped), `flagged_for_review`,
        `latency_ms` (the arbitration's wall time; 0 when skipped). A run that has not ended
        (or failed) gives its own status, the contradictions found so far and its error."""
        if self.arbitration_skipped:
            return {"contradictions_found": 0, "status": "skipped", "latency_ms": 0}
        if self.status == self.Status.COMPLETED:
            return {
                "contradictions_found": self.contradictions_found,
                "resolved": self.resolved_count,
                "flagged_for_review": self.flagged_count,
                "consensus_narrative": self.consensus_narrative,
                "latency_ms": self.arbitration_ms,
                "status": "complete",
            }
        return {
            "contradictions_found": self.contradictions_found,
            "status": self.status,
            "latency_ms": self.arbitration_ms,
            **({"error": self.error} if self.error else {}),
        }


class AgentReport(models.Model):
    run = models.ForeignKey(ContradictionRun, on_delete=models.CASCADE, related_name="reports")
    position = models.PositiveSmallIntegerField()
    agent_name = models.CharField(max_length=100)
    confidence = models.FloatField(help_text="The agent's confidence in its report, 0-1.")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "position"], name="agentreport_unique_position"),
            models.UniqueConstraint(
                "run", Lower("agent_name"), name="agentreport_one_report_per_agent"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="agentreport_conf_0_1"
            ),
        ]

    def __str__(self):
        return self.agent_name


class Finding(models.Model):
    """One claim of a report: a metric with a value (or, for a qualitative claim, only an
    interpretation), its unit, citation, source, period and confidence."""

    run = models.ForeignKey(ContradictionRun, on_delete=models.CASCADE, related_name="findings")
    report = models.ForeignKey(AgentReport, on_delete=models.CASCADE, related_name="findings")
    position = models.PositiveSmallIntegerField()
    metric = models.CharField(max_length=200)
    metric_key = models.CharField(max_length=200, help_text="The metric name normalised.")
    value = models.DecimalField(max_digits=30, decimal_places=10, null=True, blank=True)
    unit = models.CharField(max_length=30, blank=True)
    citation = models.TextField(blank=True)
    source = models.CharField(max_length=200, blank=True)
    period = models.CharField(max_length=50, blank=True)
    confidence = models.FloatField()
    interpretation = models.CharField(max_length=50, blank=True)
    text = models.TextField(blank=True, help_text="The claim as the agent wrote it.")

    class Meta:
        ordering = ["report__position", "position"]
        indexes = [models.Index(fields=["run", "metric_key"])]
        constraints = [
            models.UniqueConstraint(fields=["report", "position"], name="finding_unique_position"),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="finding_conf_0_1"
            ),
            models.CheckConstraint(
                condition=Q(value__isnull=False) | ~Q(interpretation=""),
                name="finding_claims_something",
            ),
        ]

    def __str__(self):
        return f"{self.metric}: {self.value if self.value is not None else self.interpretation}"


class Contradiction(models.Model):
    class Severity(models.TextChoices):
        LOW = "low", "Low"
        MEDIUM = "medium", "Medium"
        HIGH = "high", "High"

    run = models.ForeignKey(
        ContradictionRun, on_delete=models.CASCADE, related_name="contradictions"
    )
    position = models.PositiveSmallIntegerField()
    metric = models.CharField(max_length=200)
    metric_key = models.CharField(max_length=200)
    rules = ArrayField(models.CharField(max_length=30), help_text="The detection rules that fired.")
    severity = models.CharField(max_length=6, choices=Severity.choices)
    severity_reason = models.TextField(blank=True)
    relative_gap = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    pairs = models.JSONField(
        default=list, help_text="The conflicting pairs: [slot, slot, rules, relative gap]."
    )
    findings = models.ManyToManyField(Finding, through="ContradictionFinding", related_name="+")

    # An analyst's pick, when the contradiction went to review.
    review_action = models.CharField(max_length=24, blank=True)
    review_finding = models.ForeignKey(
        Finding, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_note = models.TextField(blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "position"], name="contradiction_unique_position"
            ),
            models.UniqueConstraint(
                fields=["run", "metric_key"], name="contradiction_one_per_metric"
            ),
            models.CheckConstraint(
                condition=Q(severity__in=list(SEVERITIES)), name="contradiction_known_severity"
            ),
        ]

    def __str__(self):
        return f"{self.metric} ({self.severity})"


class ContradictionFinding(models.Model):
    """A finding's place (Agent 1, 2 ...) in a contradiction."""

    contradiction = models.ForeignKey(
        Contradiction, on_delete=models.CASCADE, related_name="members"
    )
    finding = models.ForeignKey(Finding, on_delete=models.CASCADE, related_name="memberships")
    slot = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["slot"]
        constraints = [
            models.UniqueConstraint(fields=["contradiction", "slot"], name="member_unique_slot"),
            models.UniqueConstraint(
                fields=["contradiction", "finding"], name="member_unique_finding"
            ),
        ]

    def __str__(self):
        return f"Agent {self.slot}"


class ArbitrationCall(GatewayCall):
    """One arbitration of a run through the gateway (see `GatewayCall`)."""

    run = models.ForeignKey(ContradictionRun, on_delete=models.CASCADE, related_name="calls")
    contradiction = models.OneToOneField(
        Contradiction, on_delete=models.CASCADE, related_name="call"
    )

    class Meta:
        ordering = ["contradiction__position"]
        verbose_name = "arbitration call"
        constraints = [
            models.UniqueConstraint(fields=["run", "key"], name="arbitrationcall_unique_key"),
        ]


class Resolution(models.Model):
    """The arbitrator's verdict on one contradiction, as parsed from its reply."""

    contradiction = models.OneToOneField(
        Contradiction, on_delete=models.CASCADE, related_name="resolution"
    )
    call = models.OneToOneField(
        ArbitrationCall,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="resolution",
    )
    resolution = models.CharField(max_length=24)
    action = models.CharField(max_length=24)
    chosen_finding = models.ForeignKey(
        Finding, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    explanation = models.TextField(blank=True)
    recommended_value = models.DecimalField(max_digits=30, decimal_places=10, null=True, blank=True)
    recommended_citation = models.TextField(blank=True)
    confidence = models.FloatField()
    parse_failed = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    notes = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="resolution_conf_0_1"
            ),
        ]

    def __str__(self):
        return f"{self.resolution} / {self.action}"
