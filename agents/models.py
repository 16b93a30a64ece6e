from __future__ import annotations

from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from agents import pg_text, routing
from agents.validators import no_control_characters


class Agent(models.Model):
    """A debater: persona, role and model. Debates snapshot these fields when they start."""

    name = models.CharField(max_length=100, unique=True, validators=[no_control_characters])
    slug = models.SlugField(max_length=50, unique=True)
    role = models.CharField(
        max_length=50,
        help_text="The role the agent plays, e.g. utility, accuracy, safety.",
        validators=[no_control_characters],
    )
    guiding_question = models.CharField(
        max_length=200, blank=True, validators=[no_control_characters]
    )
    system_prompt = models.TextField(help_text="Persona and instructions: the system prompt.")
    model_name = models.CharField(
        max_length=200,
        blank=True,
        validators=[routing.check_model_choice],
        help_text="A model group (reasoning, moderation, ...) or an allowed litellm model "
        "string. Empty: routed by step and role. Wins over a debate's model option.",
    )
    temperature = models.FloatField(
        default=0.2, validators=[MinValueValidator(0.0), MaxValueValidator(2.0)]
    )
    can_veto = models.BooleanField(default=False)
    veto_risk_threshold = models.PositiveSmallIntegerField(
        default=50,
        validators=[MaxValueValidator(100)],
        help_text="A veto-capable agent vetoes when its risk is at or above this value.",
    )
    protocols = ArrayField(
        models.CharField(max_length=40),
        default=list,
        blank=True,
        help_text="Protocols this agent takes part in by default, e.g. s4.",
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order of speaking/columns.")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "name"]
        permissions = [("change_agent_veto", "Can change an agent's veto power")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(temperature__gte=0) & models.Q(temperature__lte=2),
                name="agent_temperature_0_2",
            ),
            models.CheckConstraint(
                condition=models.Q(veto_risk_threshold__lte=100), name="agent_veto_risk_le_100"
            ),
        ]

    def __str__(self):
        return self.name


class GatewayCall(models.Model):
    """What is stored of every call through the gateway, whatever asked for it: the audit record
    (model, prompt, raw reply, tokens, cost, latency) and the resume point of the work that made
    it (`key` names the call within its debate or run; a re-run finds it done and does not pay
    for it again)."""

    class Status(models.TextChoices):
        PENDING = "pending", "In flight"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    key = models.CharField(max_length=120)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    model = models.CharField(
        max_length=200,
        help_text="While in flight: what was asked for (a group, or a model). Once answered: "
        "the litellm model string that answered.",
    )
    deployment = models.CharField(
        max_length=200,
        blank=True,
        help_text="Which of the model group's configured models answered, after any "
        "fallbacks (see Configuration, model routing); empty when a model was named directly.",
    )
    prompt = models.JSONField(default=list, help_text="The messages sent.")
    raw_response = models.TextField(
        blank=True,
        help_text="The reply's content as the provider sent it, <think> blocks included "
        "(escaped when raw_escaped).",
    )
    reasoning_content = models.TextField(
        blank=True,
        help_text="Reasoning the provider sent beside the reply, or that litellm separated out "
        "of it (escaped when raw_escaped).",
    )
    raw_escaped = models.BooleanField(
        default=False,
        help_text="The reply held characters PostgreSQL refuses (NUL, lone surrogates): "
        "backslashes are doubled and those characters written as \\uXXXX.",
    )
    parsed = models.JSONField(default=dict, blank=True)
    parse_failed = models.BooleanField(default=False)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    # Counted against the spending limits for attempts whose outcome is unknown, at the most
    # each could cost; not in `DONE_FIELDS`: added to (`lost_sql`), never overwritten.
    lost_tokens_in = models.PositiveIntegerField(default=0)
    lost_tokens_out = models.PositiveIntegerField(default=0)
    lost_cost_usd = models.DecimalField(
        max_digits=12,
        decimal_places=6,
        default=0,
        help_text="Counted against the spending limits, at the most they could cost, for "
        "attempts whose outcome is unknown: cut off at the timeout, or in flight when a worker "
        "died (the provider may have billed them).",
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(
        null=True, blank=True, help_text="When its first attempt was sent (empty: not measured)."
    )
    completed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the reply came back, or the call failed."
    )

    # What `done_fields` sets, for bulk updates.
    DONE_FIELDS = (
        "status",
        "model",
        "deployment",
        "raw_response",
        "reasoning_content",
        "raw_escaped",
        "parsed",
        "parse_failed",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "latency_ms",
        "attempts",
        "error",
        "started_at",
        "completed_at",
    )

    class Meta:
        abstract = True

    def __str__(self):
        return self.key

    @property
    def raw_reply(self) -> str:
        """The reply's content exactly as the provider sent it (NULs and all)."""
        return pg_text.unescape(self.raw_response, self.raw_escaped)

    @property
    def raw_reasoning(self) -> str:
        return pg_text.unescape(self.reasoning_content, self.raw_escaped)

    @classmethod
    def lost_sql(cls, lost) -> dict[str, tuple[str, list[Any]]]:
        """`lost` (an `agents.errors.Lost`) added to the call's lost fields, as SQL by field
        name (`one_statement.update(raw=...)`); empty when there is nothing to add."""
        if not lost:
            return {}
        return {
            "lost_tokens_in": ("lost_tokens_in + %s", [lost.tokens_in]),
            "lost_tokens_out": ("lost_tokens_out + %s", [lost.tokens_out]),
            "lost_cost_usd": ("lost_cost_usd + %s", [lost.cost_usd]),
        }

    @classmethod
    def lost_added(cls, lost) -> dict[str, Any]:
        """`lost` added to the call's lost fields, for `QuerySet.update`."""
        return {
            "lost_tokens_in": models.F("lost_tokens_in") + lost.tokens_in,
            "lost_tokens_out": models.F("lost_tokens_out") + lost.tokens_out,
            "lost_cost_usd": models.F("lost_cost_usd") + lost.cost_usd,
        }

    @classmethod
    def done_fields(
        cls, response, *, parsed: dict[str, Any], parse_failed: bool, error: str
    ) -> dict[str, Any]:
        """The fields of a call that returned `response` (an `agents.gateway.LLMResponse`): what
        the provider sent, stored faithfully whatever characters it holds."""
        raw = response.content if response.raw_content is None else response.raw_content
        escaped = pg_text.has_refused(raw) or pg_text.has_refused(response.reasoning_content)
        return {
            "status": cls.Status.DONE,
            "model": response.model,
            "deployment": response.deployment,
            "raw_response": pg_text.escape(raw, force=escaped)[0],
            "reasoning_content": pg_text.escape(response.reasoning_content, force=escaped)[0],
            "raw_escaped": escaped,
            "parsed": parsed,
            "parse_failed": parse_failed,
            "tokens_in": response.tokens_in,
            "tokens_out": response.tokens_out,
            "cost_usd": response.cost_usd,
            "latency_ms": response.latency_ms,
            "attempts": response.attempts,
            "error": pg_text.clean_text(error),
            "started_at": response.started_at,
            "completed_at": response.ended_at or timezone.now(),
        }


class AgentVersion(models.Model):
    """One state of an agent, stored each time it is created or edited: the agent's own
    history (debates keep their own snapshot of the agents they used). Kept when the agent is
    deleted (`agent` is then empty; `agent_slug` says which it was)."""

    agent = models.ForeignKey(
        Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="versions"
    )
    agent_slug = models.CharField(max_length=50)
    number = models.PositiveIntegerField()
    snapshot = models.JSONField(help_text="The agent's versioned fields in this version.")
    changes = models.JSONField(
        default=dict, blank=True, help_text='From the previous version: {"field": {"from", "to"}}'
    )
    changed_by_id = models.BigIntegerField(null=True, blank=True)
    changed_by_name = models.CharField(max_length=150, blank=True, help_text="Empty: the system.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["agent_slug", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["agent", "number"], name="agentversion_unique_number")
        ]

    def __str__(self):
        return f"{self.agent_slug} v{self.number}"
