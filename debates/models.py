import uuid

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce, NullIf, Upper

from agents.models import GatewayCall
from debates.default_protocol import default_protocol
from protocols.presentation import round_title
from reviews.models import ReviewStatus
from runs.models import DurableRun, RunStatus


def effective_decision_expression() -> Coalesce:
    """SQL for `Debate.effective_decision` (a reviewer's override, else the rules' decision): the
    list filters on it, and an index is built on the same expression."""
    return Coalesce(NullIf(F("decision_override"), models.Value("")), F("decision"))


class Debate(DurableRun):
    """A question debated by agents under a protocol: a durable run (`runs.lifecycle`), with its
    decision and the review status of its items."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Indexed with created_at (and the sweeper's partial index), not alone.
    status = models.CharField(max_length=12, choices=RunStatus.choices, default=RunStatus.QUEUED)
    query = models.TextField("question")
    # indexed with created_at
    protocol = models.CharField(max_length=40, default=default_protocol)
    options = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="debates",
        db_index=False,  # indexed with created_at (debate_owner_created)
    )

    ReviewStatus = ReviewStatus

    # Decisions are validated by the debate's protocol (`protocol.decisions`): S4 decides
    # ACT / WARN / REFUSE; other protocols have their own sets.
    decision = models.CharField(max_length=16, blank=True, help_text="The rules' decision.")
    decision_override = models.CharField(
        max_length=16,
        blank=True,
        help_text="A reviewer's verdict that replaces the machine's decision.",
    )
    review_status = models.CharField(
        max_length=10, choices=ReviewStatus.choices, blank=True, default=""
    )  # indexed with created_at
    reasoning = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    consensus_type = models.CharField(max_length=20, blank=True)  # indexed with created_at

    # What no debate would have decided, and what the debate changed (`debates.baselines`,
    # computed by the pure `protocols.evaluation` when the debate finishes).
    rules_version = models.CharField(
        max_length=16, blank=True, help_text="Version of the decision rules that decided it."
    )
    majority_decision = models.CharField(
        max_length=16, blank=True, help_text="The independent answers through the same rules."
    )
    outcome_change = models.CharField(
        max_length=16,
        blank=True,
        db_index=True,
        help_text="Debate vs majority vote: same, more_cautious, less_cautious or changed.",
    )
    baselines = models.JSONField(
        default=dict, blank=True, help_text="Single-agent decisions and per-agent dynamics."
    )
    quality = models.JSONField(
        default=dict,
        blank=True,
        help_text="The debate's quality scores (protocols.quality), 0..1 each.",
    )
    agreement = models.FloatField(
        null=True,
        blank=True,
        help_text="How much the agents agreed on the decision, in percent, as its protocol's "
        "rules record it (empty: they record none).",
    )

    # Defense layer findings, recorded before the debate runs.
    injection_findings = models.JSONField(default=list, blank=True)
    is_complex_query = models.BooleanField(default=False)

    callback_url = models.URLField(
        max_length=2000, blank=True, help_text="Where the debate's webhook events are posted."
    )

    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)

    schedule = models.ForeignKey(
        "schedules.DebateSchedule",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="debates",
        help_text="The schedule whose firing created it.",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta(DurableRun.Meta):
        ordering = ["-created_at"]
        # Figures across every user's debates (docs: Roles): the Reviewer and Operator roles.
        permissions = [
            ("view_figures", "Can read figures across users: analytics, ground truth, quality"),
            ("replay_rules", "Can replay the decision rules over every stored debate"),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            DurableRun.unfinished_index("debate_unfinished_by_update"),
            # The list's documented filters and orderings (`selectors.debate_list`), so that a
            # page of 100,000 debates reads an index range, never the table.
            GinIndex(OpClass(Upper("query"), name="gin_trgm_ops"), name="debate_query_trgm"),
            models.Index(fields=["cost_usd"], name="debate_cost"),
            models.Index(fields=["created_by", "created_at"], name="debate_owner_created"),
            models.Index(fields=["protocol", "created_at"], name="debate_protocol_created"),
            models.Index(fields=["decision", "created_at"], name="debate_decision_created"),
            models.Index(
                effective_decision_expression(), "created_at", name="debate_effective_created"
            ),
            models.Index(fields=["consensus_type", "created_at"], name="debate_consensus_created"),
            models.Index(fields=["review_status", "created_at"], name="debate_review_created"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="completed") | ~Q(decision=""),
                name="debate_completed_has_decision",
            ),
        ]

    def __str__(self):
        return f"{self.query[:60]} ({self.get_status_display()})"

    @property
    def effective_decision(self) -> str:
        """What the service answers: a reviewer's override if there is one, else the rules'."""
        return self.decision_override or self.decision

    @property
    def is_overridden(self) -> bool:
        return bool(self.decision_override) and self.decision_override != self.decision


class Participant(models.Model):
    """An agent as it took part in one debate: a snapshot, so later edits don't rewrite history."""

    debate = models.ForeignKey(
        Debate, on_delete=models.CASCADE, related_name="participants", db_index=False
    )  # participant_unique_slug's index leads with it
    agent = models.ForeignKey(
        "agents.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    position = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=50, db_index=False)  # only read within a debate
    role = models.CharField(max_length=50)
    system_prompt = models.TextField()
    model_name = models.CharField(max_length=200, blank=True)  # empty: routed
    temperature = models.FloatField()
    can_veto = models.BooleanField(default=False)
    veto_risk_threshold = models.PositiveSmallIntegerField(default=50)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["debate", "slug"], name="participant_unique_slug"),
            models.UniqueConstraint(
                fields=["debate", "position"], name="participant_unique_position"
            ),
        ]

    def __str__(self):
        return self.name


class Round(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        COMPLETED = "completed", "Completed"

    debate = models.ForeignKey(
        Debate, on_delete=models.CASCADE, related_name="rounds", db_index=False
    )  # round_unique_number's index leads with it
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=60)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    started_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["debate", "number"], name="round_unique_number"),
        ]

    def __str__(self):
        return self.title

    @property
    def title(self) -> str:
        return round_title(self.number, self.name)


# References between the rows of one debate (a call's participant; a statement's round,
# participant and call; a challenge's round, agents and call; a vote's agent and statement) have
# no constraint in PostgreSQL (`db_constraint=False`): only the debate's runner writes them,
# under the debate's lock, in the statement that read or got back the ids it refers to, and
# every such row keeps its constrained foreign key to the debate. Checked by PostgreSQL, they
# were about 60 lookups and row locks per S4 debate, a tenth of the database's work while debates
# run (bench/debate_bench.py, README "Performance"). Deleting still cascades (Django's
# collector), and `tests/debates/test_references.py` checks that what every protocol stores
# refers to rows of its own debate, which the constraints did not check.


class LLMCall(GatewayCall):
    """One call of a debate through the gateway (see `GatewayCall`); keys look like
    ``r2:utility>accuracy``."""

    debate = models.ForeignKey(
        Debate, on_delete=models.CASCADE, related_name="llm_calls", db_index=False
    )  # llmcall_unique_key's index leads with it
    participant = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="llm_calls", db_constraint=False
    )  # within its debate (see above LLMCall)
    round_number = models.PositiveSmallIntegerField()
    step = models.CharField(max_length=30)
    injection_findings = models.JSONField(
        default=list,
        blank=True,
        help_text="What the defense layer flagged in the reply (it was withheld from peers).",
    )

    DONE_FIELDS = (*GatewayCall.DONE_FIELDS, "injection_findings")

    @classmethod
    def done_fields(cls, response, *, injection_findings: list | None = None, **kwargs):
        """`GatewayCall.done_fields`, and what the defense layer found in the reply."""
        return {
            **super().done_fields(response, **kwargs),
            "injection_findings": list(injection_findings or []),
        }

    class Meta:
        ordering = ["round_number", "id"]
        verbose_name = "LLM call"
        indexes = [
            # The analytics page's model filter and per-model figures: which debates a model
            # answered in, read from the index alone.
            models.Index(fields=["debate", "model"], name="llmcall_debate_model"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["debate", "key"], name="llmcall_unique_key"),
        ]


class Statement(models.Model):
    """What an agent said in a round: an S4 analysis (round 1) or revision (round 3), a moderated
    debate's argument, moderation or synthesis, or a round-robin turn.

    `decision` holds the position taken: the S4 decision, the side argued (SUPPORT / OPPOSE /
    NEUTRAL), the moderator's leaning, or the round-robin stance. `confidence` and `risk` are
    0-100 (replies on a 0-1 scale are stored x100); `risk` is empty where none is assessed.
    `details` holds the rest of a structured reply (evidence, the moderator's scores ...).
    """

    class Kind(models.TextChoices):
        ANALYSIS = "analysis", "Analysis"
        REVISION = "revision", "Revision"
        ARGUMENT = "argument", "Argument"
        MODERATION = "moderation", "Moderation"
        SYNTHESIS = "synthesis", "Synthesis"
        TURN = "turn", "Turn"

    debate = models.ForeignKey(Debate, on_delete=models.CASCADE, related_name="statements")
    round = models.ForeignKey(
        Round,
        on_delete=models.CASCADE,
        related_name="statements",
        db_index=False,  # statement_one_per_participant_round's index leads with it
        db_constraint=False,  # within its debate (see above LLMCall)
    )
    participant = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="statements", db_constraint=False
    )  # within its debate (see above LLMCall)
    call = models.OneToOneField(
        LLMCall,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="statement",
        db_constraint=False,  # within its debate (see above LLMCall)
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    decision = models.CharField(max_length=16)
    confidence = models.FloatField()
    risk = models.FloatField(null=True, blank=True)
    reasoning = models.TextField(blank=True)
    previous_decision = models.CharField(max_length=16, blank=True)
    parse_failed = models.BooleanField(default=False)
    notes = models.JSONField(default=list, blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round__number", "participant__position"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "participant"], name="statement_one_per_participant_round"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=100)
                & (Q(risk__isnull=True) | Q(risk__gte=0, risk__lte=100)),
                name="statement_scores_0_100",
            ),
        ]

    def __str__(self):
        return f"{self.participant} round {self.round.number}: {self.decision}"

    @property
    def changed_position(self) -> bool:
        return bool(self.previous_decision) and self.previous_decision != self.decision


class Challenge(models.Model):
    class Stance(models.TextChoices):
        CHALLENGE = "challenge", "Challenge"
        AGREE = "agree", "Agreement"

    debate = models.ForeignKey(
        Debate, on_delete=models.CASCADE, related_name="challenges", db_index=False
    )  # challenge_one_per_pair's index leads with it
    # round, challenger, challenged and call: within its debate (see above LLMCall)
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="challenges", db_constraint=False
    )
    challenger = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="challenges_made", db_constraint=False
    )
    challenged = models.ForeignKey(
        Participant,
        on_delete=models.CASCADE,
        related_name="challenges_received",
        db_constraint=False,
    )
    call = models.OneToOneField(
        LLMCall,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="challenge",
        db_constraint=False,
    )
    stance = models.CharField(max_length=10, choices=Stance.choices, default=Stance.CHALLENGE)
    #: Every challenge names a weak point, even when the challenger agrees with the
    #: challenged agent's conclusion; this says whether it does (shown green on the live page).
    #: See docs/concepts/s4.md#compulsory-challenges.
    agrees_with_conclusion = models.BooleanField(default=False)
    argument = models.TextField(blank=True)
    suggested_decision = models.CharField(max_length=16, blank=True)
    parse_failed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["challenger__position", "challenged__position"]
        constraints = [
            models.UniqueConstraint(
                fields=["debate", "challenger", "challenged"], name="challenge_one_per_pair"
            ),
            models.CheckConstraint(
                condition=~Q(challenger=F("challenged")), name="challenge_not_self"
            ),
        ]

    def __str__(self):
        return f"{self.challenger} -> {self.challenged} ({self.stance})"


class Vote(models.Model):
    debate = models.ForeignKey(
        Debate, on_delete=models.CASCADE, related_name="votes", db_index=False
    )  # vote_one_per_participant's index leads with it
    # participant and statement: within its debate (see above LLMCall)
    participant = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="votes", db_constraint=False
    )
    statement = models.ForeignKey(
        Statement,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_constraint=False,
    )
    decision = models.CharField(max_length=16)
    confidence = models.FloatField()
    risk = models.FloatField()
    reasoning = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["participant__position"]
        constraints = [
            models.UniqueConstraint(
                fields=["debate", "participant"], name="vote_one_per_participant"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=100, risk__gte=0, risk__lte=100),
                name="vote_scores_0_100",
            ),
        ]

    def __str__(self):
        return f"{self.participant}: {self.decision}"


class IdempotencyKey(models.Model):
    """An `Idempotency-Key` a user sent when starting a debate: a retry with the same key and
    the same request gets the same debate back; the same key with another request is refused."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_keys"
    )
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64, help_text="SHA-256 of the validated request.")
    debate = models.ForeignKey(Debate, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user"),
        ]

    def __str__(self):
        return self.key


class WebhookDelivery(models.Model):
    """One attempt to deliver one webhook event. Retries of an event share its `event_id`."""

    class Event(models.TextChoices):
        DEBATE_COMPLETED = "debate.completed", "Debate completed"
        DEBATE_FAILED = "debate.failed", "Debate failed"
        REVIEW_RESOLVED = "review.resolved", "Review resolved"
        REVIEW_OVERDUE = "review.overdue", "Review overdue"

    class Status(models.TextChoices):
        SENDING = "sending", "Sending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed, will retry"
        GAVE_UP = "gave_up", "Failed, no more retries"

    debate = models.ForeignKey(Debate, on_delete=models.CASCADE, related_name="webhook_deliveries")
    event_id = models.UUIDField(db_index=True)
    event = models.CharField(max_length=30, choices=Event.choices)
    url = models.URLField(max_length=2000)
    payload = models.JSONField()
    attempt = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SENDING)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_excerpt = models.TextField(blank=True)
    error = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["event_id", "attempt"], name="webhook_delivery_one_row_per_attempt"
            ),
        ]

    def __str__(self):
        return f"{self.event} #{self.attempt} -> {self.url}"
