from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q

from reviews import subjects, triage


class ReviewStatus(models.TextChoices):
    """A subject's review status, kept in step with its items by the queue
    (`reviews.queueing.review_status_sync`): pending while any is active, else resolved if any
    was, else dismissed if it had any."""

    NONE = "", "Not needed"
    PENDING = "pending", "Pending review"
    RESOLVED = "resolved", "Resolved"
    DISMISSED = "dismissed", "Dismissed"


class ReviewItem(models.Model):
    """Why a debate, a contradiction the arbitrator could not settle, or a contradiction run
    that failed needs a human, and what the human decided about it. A debate whose outcome
    raises several reasons (a split vote with low confidence) is one item with every reason in
    `reasons`, most urgent first; `reason` is the first of them (a failure is an item of its
    own). Exactly one of
    `debate`, `contradiction` and `contradiction_run` is set: the subject keys, each owned by
    the subject its app registers (`reviews.subjects`); the queue reads them only through it."""

    class Reason(models.TextChoices):
        SAFETY_VETO = triage.SAFETY_VETO, triage.REASONS[triage.SAFETY_VETO][0]
        HIGH_RISK_DISSENT = (triage.HIGH_RISK_DISSENT, triage.REASONS[triage.HIGH_RISK_DISSENT][0])
        PROMPT_INJECTION = triage.PROMPT_INJECTION, triage.REASONS[triage.PROMPT_INJECTION][0]
        INJECTION_IN_REPLY = (
            triage.INJECTION_IN_REPLY,
            triage.REASONS[triage.INJECTION_IN_REPLY][0],
        )
        PARSE_FAILURE = triage.PARSE_FAILURE, triage.REASONS[triage.PARSE_FAILURE][0]
        FLAG_FOR_REVIEW = triage.FLAG_FOR_REVIEW, triage.REASONS[triage.FLAG_FOR_REVIEW][0]
        SPLIT_VOTE = triage.SPLIT_VOTE, triage.REASONS[triage.SPLIT_VOTE][0]
        NO_CONSENSUS = triage.NO_CONSENSUS, triage.REASONS[triage.NO_CONSENSUS][0]
        UNCERTAIN = triage.UNCERTAIN, triage.REASONS[triage.UNCERTAIN][0]
        LOW_CONFIDENCE = triage.LOW_CONFIDENCE, triage.REASONS[triage.LOW_CONFIDENCE][0]
        DEBATE_FAILED = triage.DEBATE_FAILED, triage.REASONS[triage.DEBATE_FAILED][0]
        RUN_FAILED = triage.RUN_FAILED, triage.REASONS[triage.RUN_FAILED][0]
        BUDGET_EXCEEDED = triage.BUDGET_EXCEEDED, triage.REASONS[triage.BUDGET_EXCEEDED][0]

    #: Each reason's label, made once (`Reason.choices` is worked out again on every read).
    REASON_LABELS = dict(Reason.choices)

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLAIMED = "claimed", "Claimed"
        RESOLVED = "resolved", "Resolved"
        DISMISSED = "dismissed", "Dismissed"

    class Verdict(models.TextChoices):
        NONE = "", "None"
        UPHOLD = "uphold", "Upheld the machine's decision"
        OVERRIDE = "override", "Overrode the decision"
        KEEP = "keep", "Picked the value to keep"
        RERUN = "rerun", "Re-ran it"

    ACTIVE = (Status.OPEN, Status.CLAIMED)
    CLOSED = (Status.RESOLVED, Status.DISMISSED)

    debate = models.ForeignKey(
        "debates.Debate",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="review_items",
    )
    contradiction = models.ForeignKey(
        "contradictions.Contradiction",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="review_items",
    )
    contradiction_run = models.ForeignKey(
        "contradictions.ContradictionRun",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="review_items",
        help_text="A contradiction run that failed (run_failed).",
    )
    reason = models.CharField(
        max_length=24, choices=Reason.choices, help_text="The most urgent of the reasons."
    )
    reasons = ArrayField(
        models.CharField(max_length=24, choices=Reason.choices),
        default=list,
        blank=True,
        help_text="Every reason it was raised for, most urgent first.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    priority = models.PositiveSmallIntegerField(
        default=0,
        help_text="Higher is reviewed first: a safety veto or an outvoted high risk comes "
        "before a failure, which comes before a split vote or low confidence; a riskier "
        "debate comes before a safer one with the same reason.",
    )
    summary = models.CharField(max_length=300, blank=True, help_text="Why it was raised.")
    details = models.JSONField(default=dict, blank=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="review_items",
        help_text="Who claimed it; once closed, who resolved or dismissed it.",
    )
    verdict = models.CharField(max_length=10, choices=Verdict.choices, blank=True, default="")
    decision_override = models.CharField(
        max_length=16, blank=True, help_text="The decision an override verdict set."
    )
    note = models.TextField(blank=True, help_text="The analyst's note on resolving/dismissing.")
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="When it was resolved or dismissed."
    )

    class Meta:
        ordering = ["-priority", "created_at", "id"]
        permissions = [("override_safety_veto", "Can override a safety veto to ACT")]
        constraints = [
            # One active item per debate for its outcome, whatever reasons it raised; a
            # failure (debate_failed) is an item of its own.
            models.UniqueConstraint(
                fields=["debate"],
                condition=Q(status__in=["open", "claimed"]) & ~Q(reason__in=triage.FAILURE_REASONS),
                name="reviewitem_one_active_outcome_per_debate",
            ),
            models.UniqueConstraint(
                fields=["debate", "reason"],
                condition=Q(status__in=["open", "claimed"]),
                name="reviewitem_one_active_per_debate_reason",
            ),
            models.UniqueConstraint(
                fields=["contradiction", "reason"],
                condition=Q(status__in=["open", "claimed"]),
                name="reviewitem_one_active_per_contradiction_reason",
            ),
            models.UniqueConstraint(
                fields=["contradiction_run", "reason"],
                condition=Q(status__in=["open", "claimed"]),
                name="reviewitem_one_active_per_run_reason",
            ),
            models.CheckConstraint(
                condition=Q(
                    debate__isnull=False, contradiction__isnull=True, contradiction_run__isnull=True
                )
                | Q(
                    debate__isnull=True, contradiction__isnull=False, contradiction_run__isnull=True
                )
                | Q(
                    debate__isnull=True, contradiction__isnull=True, contradiction_run__isnull=False
                ),
                name="reviewitem_one_subject",
            ),
            models.CheckConstraint(
                condition=~Q(status="claimed") | Q(assignee__isnull=False),
                name="reviewitem_claimed_has_assignee",
            ),
            models.CheckConstraint(
                condition=(Q(status="resolved") & ~Q(verdict=""))
                | (~Q(status="resolved") & Q(verdict="")),
                name="reviewitem_verdict_iff_resolved",
            ),
            models.CheckConstraint(
                condition=(Q(verdict="override") & ~Q(decision_override=""))
                | (~Q(verdict="override") & Q(decision_override="")),
                name="reviewitem_override_has_decision",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "claimed"]) | Q(closed_at__isnull=False),
                name="reviewitem_closed_has_time",
            ),
        ]
        indexes = [
            # The queue's default view: active items, most urgent and oldest first.
            models.Index(
                fields=["-priority", "created_at", "id"],
                condition=Q(status__in=["open", "claimed"]),
                name="reviewitem_active_queue",
            ),
            models.Index(fields=["status", "-priority", "created_at"], name="reviewitem_status"),
            # The queue in the same order over every status (`status=all`).
            models.Index(fields=["-priority", "created_at", "id"], name="reviewitem_queue_order"),
            models.Index(fields=["assignee", "status"], name="reviewitem_assignee_status"),
            models.Index(fields=["reason", "status"], name="reviewitem_reason_status"),
            # A reason filter matches any of an item's reasons (`reasons @> ARRAY[...]`).
            GinIndex(fields=["reasons"], name="reviewitem_reasons_gin"),
        ]

    def __str__(self):
        return f"#{self.pk} {self.get_reason_display()} ({self.get_status_display()})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def all_reasons(self) -> list[tuple[str, str, str]]:
        """(reason, label, summary) for every reason it was raised for, most urgent first."""
        names = list(self.reasons or []) or [self.reason]
        summaries = (self.details or {}).get("summaries") or {}
        labels = self.REASON_LABELS
        return [
            (name, labels.get(name, name), summaries.get(name) or (self.summary if i == 0 else ""))
            for i, name in enumerate(names)
        ]

    @property
    def reasons_display(self) -> str:
        """The reasons' labels (reads neither `details` nor `summary`: the queue defers them)."""
        labels = self.REASON_LABELS
        return ", ".join(labels.get(r, r) for r in (list(self.reasons or []) or [self.reason]))

    @property
    def reason_label(self) -> str:
        """The first reason's label (`get_reason_display`, without building the choices)."""
        return self.REASON_LABELS.get(self.reason, self.reason)

    @property
    def subject(self) -> subjects.ReviewSubject:
        """What the item is about (a debate, a contradiction, a failed run): the subject its
        app registered, which knows how to show it and act on it."""
        return subjects.of(self)

    @property
    def subject_description(self) -> str:
        return self.subject.describe(self)

    @property
    def is_failure(self) -> bool:
        """A failed debate's or run's item: no machine decision; re-run, decide or dismiss."""
        return self.reason in triage.FAILURE_REASONS


class ReviewEvent(models.Model):
    """Who did what to a review item, when, and why: the item's audit trail."""

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        CLAIMED = "claimed", "Claimed"
        RELEASED = "released", "Released"
        RESOLVED = "resolved", "Resolved"
        DISMISSED = "dismissed", "Dismissed"

    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="review_events",
        help_text="Empty for the system.",
    )
    action = models.CharField(max_length=10, choices=Action.choices)
    from_status = models.CharField(max_length=10, blank=True)
    to_status = models.CharField(max_length=10)
    note = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self):
        return f"{self.get_action_display()} by {self.actor or 'system'}"
