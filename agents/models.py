from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class Agent(models.Model):
    """A debater: persona, role and model. Debates snapshot these fields when they start."""

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=50, unique=True)
    role = models.CharField(
        max_length=50, help_text="The role the agent plays, e.g. utility, accuracy, safety."
    )
    guiding_question = models.CharField(max_length=200, blank=True)
    system_prompt = models.TextField(help_text="Persona and instructions: the system prompt.")
    model_name = models.CharField(
        max_length=200,
        blank=True,
        help_text="litellm model string, e.g. openai/gpt-4o-mini. Empty: the default model.",
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
