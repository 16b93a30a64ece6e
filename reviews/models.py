from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import F, Q

from reviews import subjects, triage


class ReviewStatus(models.TextChoices):
    """A subject's review status, kept in step with its items by the queue
    (`reviews.queueing.review_status_sync`): pending while any is active, else expired if any
    was closed at its deadline (no human verdict: never ground truth), else resolved if any
    was, else dismissed if it had any."""

    NONE = "", "Not needed"
    PENDING = "pending", "Pending review"
    RESOLVED = "resolved", "Resolved"
    DISMISSED = "dismissed", "Dismissed"
    EXPIRED = "expired", "Closed at its review deadline"


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
        EXPIRED = "expired", "Closed at its deadline"

    class Verdict(models.TextChoices):
        NONE = "", "None"
        UPHOLD = "uphold", "Upheld the machine's decision"
        OVERRIDE = "override", "Overrode the decision"
        KEEP = "keep", "Picked the value to keep"
        RERUN = "rerun", "Re-ran it"
        FALLBACK = "fallback", "Its deadline's fallback (no reviewer)"

    class Stage(models.TextChoices):
        """Which review an active item waits for (`reviews.services`): its first; a second,
        independent one (a veto override that takes effect only once a second reviewer agrees);
        or an adjudicator's, after two reviews disagreed."""

        FIRST = "first", "Review"
        SECOND = "second", "Second review"
        ADJUDICATION = "adjudication", "Adjudication"

    ACTIVE = (Status.OPEN, Status.CLAIMED)
    CLOSED = (Status.RESOLVED, Status.DISMISSED, Status.EXPIRED)

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
        help_text="Who it is assigned to while open (routed to a reviewer on duty, reassigned "
        "or taken), who holds it once claimed, who resolved or dismissed it once closed.",
    )
    verdict = models.CharField(max_length=10, choices=Verdict.choices, blank=True, default="")
    decision_override = models.CharField(
        max_length=16, blank=True, help_text="The decision an override verdict set."
    )
    note = models.TextField(blank=True, help_text="The analyst's note on resolving/dismissing.")
    double_review = models.BooleanField(
        default=False,
        help_text="Drawn for two independent reviews (REVIEW_DOUBLE_REVIEW_SHARE of new items).",
    )
    stage = models.CharField(
        max_length=12,
        choices=Stage.choices,
        default=Stage.FIRST,
        help_text="Which review it waits for: the first, a second (independent) one, or an "
        "adjudicator's after two disagreed.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When it was resolved, dismissed or closed at its deadline.",
    )
    due_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Its deadline: raised + the shortest of its reasons' (REVIEW_DEADLINE_HOURS); "
        "empty when none of them has one.",
    )
    overdue_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When it was found past its deadline (`reviews.deadlines`): overdue items "
        "come first in the queue.",
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
                condition=(Q(status="resolved") & ~Q(verdict="") & ~Q(verdict="fallback"))
                | (Q(status="expired") & Q(verdict="fallback"))
                | (Q(status__in=["open", "claimed", "dismissed"]) & Q(verdict="")),
                name="reviewitem_verdict_iff_closed_with_one",
            ),
            models.CheckConstraint(
                condition=(Q(verdict="override") & ~Q(decision_override=""))
                | Q(verdict="fallback")
                | (~Q(verdict__in=["override", "fallback"]) & Q(decision_override="")),
                name="reviewitem_override_has_decision",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "claimed"]) | Q(closed_at__isnull=False),
                name="reviewitem_closed_has_time",
            ),
        ]
        indexes = [
            # The queue's default view: active items, overdue first, then most urgent and oldest.
            models.Index(
                F("overdue_at").asc(nulls_last=True),
                F("priority").desc(),
                F("created_at").asc(),
                F("id").asc(),
                condition=Q(status__in=["open", "claimed"]),
                name="reviewitem_active_queue_due",
            ),
            # Active items by deadline (the deadline sweep).
            models.Index(
                fields=["due_at"],
                condition=Q(status__in=["open", "claimed"], due_at__isnull=False),
                name="reviewitem_active_due",
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


class ReviewerVerdict(models.Model):
    """One reviewer's verdict on an item, in the review it was given for (`stage`): the item's
    first review, a second independent one, or an adjudicator's. An item reviewed once has one;
    an item that needed a second review has two, and a third when they disagreed. What the
    item finally says is on the item (`verdict`, `decision_override`)."""

    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="verdicts")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="review_verdicts"
    )
    stage = models.CharField(max_length=12, choices=ReviewItem.Stage.choices)
    verdict = models.CharField(max_length=10, choices=ReviewItem.Verdict.choices)
    decision = models.CharField(
        max_length=200,
        blank=True,
        help_text="An override's decision, or the value a keep picked; empty for uphold.",
    )
    outcome = models.CharField(
        max_length=200,
        blank=True,
        help_text="What the verdict amounts to, compared across reviewers: the decision it "
        "leaves in effect (an override's, or the machine's upheld), or the value kept.",
    )
    note = models.TextField(blank=True)
    veto_override = models.BooleanField(
        default=False,
        help_text="It overrode a safety veto to ACT, confirmed by the reviewer holding the item.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "stage"], name="reviewerverdict_one_per_stage"),
            models.UniqueConstraint(
                fields=["item", "reviewer"], name="reviewerverdict_one_per_reviewer"
            ),
        ]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(veto_override=True),
                name="reviewerverdict_veto_override",
            )
        ]

    def __str__(self):
        return f"{self.get_stage_display()} of #{self.item_id}: {self.verdict} {self.decision}"

    def agrees_with(self, other: ReviewerVerdict) -> bool:
        """Two reviews agree when they leave the same outcome (the same decision in effect, the
        same value kept)."""
        return (self.outcome or self.decision, self.verdict == "keep") == (
            other.outcome or other.decision,
            other.verdict == "keep",
        )


class ReviewEvent(models.Model):
    """Who did what to a review item, when, and why: the item's audit trail."""

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        CLAIMED = "claimed", "Claimed"
        RELEASED = "released", "Released"
        RESOLVED = "resolved", "Resolved"
        DISMISSED = "dismissed", "Dismissed"
        REVIEWED = "reviewed", "Reviewed (awaits another review)"
        ASSIGNED = "assigned", "Assigned"
        OVERDUE = "overdue", "Went past its deadline"
        EXPIRED = "expired", "Closed at its deadline"

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


class ReviewerProfile(models.Model):
    """A reviewer's own settings for the queue: whether they are on duty (new items are
    assigned to the reviewers on duty, the least loaded first: `reviews.assignment`)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="reviewer_profile",
    )
    on_duty = models.BooleanField(
        default=False, help_text="New review items are assigned to the reviewers on duty."
    )
    on_duty_since = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["on_duty_since"], condition=Q(on_duty=True), name="reviewerprofile_on_duty"
            )
        ]

    def __str__(self):
        return f"{self.user} ({'on duty' if self.on_duty else 'off duty'})"
