from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django_celery_beat import validators as cron
from timezone_field import TimeZoneField

from debates.default_protocol import default_protocol

MAX_QUESTIONS = 20
#: The permission to make a schedule run in another user's name (no role holds it).
ACT_FOR_OWNER = "act_for_owner"


class DebateSchedule(models.Model):
    """A recurring debate: every firing debates each of its questions once.

    The timing lives here, in fields an analyst understands; `schedules.services.schedule_save`
    mirrors it into a django-celery-beat `PeriodicTask`, which beat's database scheduler reads.
    """

    class Kind(models.TextChoices):
        INTERVAL = "interval", "Every N minutes, hours or days"
        CRONTAB = "crontab", "At set times (crontab)"

    class Period(models.TextChoices):
        MINUTES = "minutes", "minutes"
        HOURS = "hours", "hours"
        DAYS = "days", "days"

    name = models.CharField(max_length=120, unique=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="debate_schedules",
        help_text="Debates created by this schedule are created in this user's name.",
    )
    enabled = models.BooleanField(
        default=True, help_text="Untick to pause the schedule; its history is kept."
    )
    questions = models.TextField(
        help_text=f"One question per line (at most {MAX_QUESTIONS}). "
        "Each firing debates every question once."
    )
    protocol = models.CharField(max_length=40, default=default_protocol)
    agents = models.JSONField(
        default=list,
        blank=True,
        help_text="Agent slugs, in speaking order. Empty: the protocol's default agents.",
    )
    options = models.JSONField(
        default=dict,
        blank=True,
        help_text="The chosen protocol's options, set with one input per option; "
        "those left empty take the protocol's defaults.",
    )

    kind = models.CharField("repeat", max_length=10, choices=Kind.choices, default=Kind.INTERVAL)
    every = models.PositiveIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(10_000)]
    )
    period = models.CharField(max_length=10, choices=Period.choices, default=Period.DAYS)
    minute = models.CharField(
        max_length=240,
        default="0",
        validators=[cron.minute_validator],
        help_text='Crontab minute: "0", "*/15", "0,30".',
    )
    hour = models.CharField(
        max_length=96,
        default="9",
        validators=[cron.hour_validator],
        help_text='Crontab hour: "9", "8-18", "*".',
    )
    day_of_week = models.CharField(
        max_length=64,
        default="*",
        validators=[cron.day_of_week_validator],
        help_text='0-6 with Sunday = 0, or "mon-fri"; "*" for every day.',
    )
    day_of_month = models.CharField(
        max_length=124,
        default="*",
        validators=[cron.day_of_month_validator],
        help_text='1-31; "*" for every day.',
    )
    month_of_year = models.CharField(
        max_length=64,
        default="*",
        validators=[cron.month_of_year_validator],
        help_text='1-12; "*" for every month.',
    )
    timezone = TimeZoneField(
        default="UTC",
        use_pytz=False,
        help_text="The time zone crontab times are read in (intervals do not depend on it).",
    )

    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask",
        null=True,
        blank=True,
        editable=False,
        on_delete=models.SET_NULL,
        related_name="debate_schedule",
    )
    owner_set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Who created the schedule, or last gave it its owner: its debates run in the "
        "owner's name only when this user is the owner or may act for others "
        f"(schedules.{ACT_FOR_OWNER}); otherwise in this user's name.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        permissions = [(ACT_FOR_OWNER, "Can make a schedule's debates run in another user's name")]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["interval", "crontab"]), name="schedule_kind_valid"
            ),
            models.CheckConstraint(condition=Q(every__gte=1), name="schedule_every_positive"),
        ]

    def __str__(self):
        return self.name

    @property
    def question_list(self) -> list[str]:
        return [line.strip() for line in self.questions.splitlines() if line.strip()]

    @property
    def runs_as(self):
        """Whose name its debates are created in (and whose spending limits they count
        against): the owner, when whoever set the owner is the owner or may act for others
        (or is not known: a schedule older than this rule); otherwise that user."""
        setter = self.owner_set_by
        if setter is None or setter.pk == self.owner_id:
            return self.owner
        if setter.is_active and setter.has_perm(f"schedules.{ACT_FOR_OWNER}"):
            return self.owner
        return setter


class ScheduleRun(models.Model):
    """One firing of a schedule, and what came of it."""

    class Trigger(models.TextChoices):
        BEAT = "beat", "Schedule"
        MANUAL = "manual", "Run now"

    class Outcome(models.TextChoices):
        CREATED = "created", "Debates created"
        SKIPPED = "skipped", "Skipped"
        FAILED = "failed", "Failed"

    schedule = models.ForeignKey(DebateSchedule, on_delete=models.CASCADE, related_name="runs")
    fired_at = models.DateTimeField(db_index=True)
    trigger = models.CharField(max_length=10, choices=Trigger.choices)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    reason = models.TextField(blank=True)
    debates = models.ManyToManyField("debates.Debate", blank=True, related_name="schedule_runs")

    class Meta:
        ordering = ["-fired_at", "-id"]
        indexes = [models.Index(fields=["schedule", "-fired_at"], name="schedulerun_latest")]

    def __str__(self):
        return f"{self.schedule} at {self.fired_at:%Y-%m-%d %H:%M} ({self.get_outcome_display()})"
