from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.fields.json import KT


class SpendingLimit(models.Model):
    """Limits set by staff for one user, one API token, or the whole installation; a blank
    value takes the default from settings (BUDGET_USER_*, BUDGET_TOKEN_*, BUDGET_GLOBAL_*).
    Edits are recorded in the audit trail."""

    class Scope(models.TextChoices):
        USER = "user", "User"
        TOKEN = "token", "API token"
        INSTALLATION = "global", "Installation"

    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.USER)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="spending_limit",
    )
    token = models.OneToOneField(
        "accounts.ApiToken",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="spending_limit",
        verbose_name="API token",
    )
    daily_cost_usd = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, help_text="Blank: the default."
    )
    monthly_cost_usd = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, help_text="Blank: the default."
    )
    daily_tokens = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="Blank: the default."
    )
    monthly_tokens = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="Blank: the default."
    )
    note = models.CharField(max_length=200, blank=True, help_text="Why this limit.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["scope", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(scope="user", user__isnull=False, token__isnull=True)
                    | Q(scope="token", user__isnull=True, token__isnull=False)
                    | Q(scope="global", user__isnull=True, token__isnull=True)
                ),
                name="spendinglimit_scope_matches_subject",
            ),
            models.UniqueConstraint(
                fields=["scope"],
                condition=Q(scope="global"),
                name="spendinglimit_one_installation_row",
            ),
            models.CheckConstraint(
                condition=Q(daily_cost_usd__gte=0) | Q(daily_cost_usd__isnull=True),
                name="spendinglimit_daily_cost_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(monthly_cost_usd__gte=0) | Q(monthly_cost_usd__isnull=True),
                name="spendinglimit_monthly_cost_not_negative",
            ),
        ]

    def __str__(self):
        if self.scope == self.Scope.USER:
            return f"Limits of user {self.user}"
        if self.scope == self.Scope.TOKEN:
            return f"Limits of API token {self.token}"
        return "Limits of the installation"


class Counter(models.Model):
    """What one budget (a user, a token, the installation, a debate) spent in one period, and
    what calls in flight have reserved. Changed only by the database functions of the
    migration (`budgets_reserve`, `budgets_settle`), each in one statement."""

    key = models.CharField(max_length=80)
    period = models.CharField(max_length=12, help_text="d2026-11-24, m2026-11 or ever.")
    used_cost_usd = models.DecimalField(max_digits=16, decimal_places=8, default=0)
    used_tokens = models.BigIntegerField(default=0)
    used_calls = models.IntegerField(default=0)
    reserved_cost_usd = models.DecimalField(max_digits=16, decimal_places=8, default=0)
    reserved_tokens = models.BigIntegerField(default=0)
    reserved_calls = models.IntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key", "period"], name="budgets_counter_key_period")
        ]

    def __str__(self):
        return f"{self.key} {self.period}"


class Hold(models.Model):
    """A reservation: of a call, made before it and removed when it is settled (one left behind
    by a worker that died is counted as spent when its run is taken up again, or after
    BUDGET_HOLD_TIMEOUT seconds); or a debate's admission, the most it may spend, held on the
    account limits from its creation until it ends (`budgets_close`)."""

    entries = models.JSONField()
    created_at = models.DateTimeField(db_index=True)
    # What its entries say of it (`Spender.entries`, `services.admit`), as columns to look up.
    run = models.GeneratedField(
        expression=KT("entries__0__run"),
        output_field=models.CharField(max_length=80, null=True),
        db_persist=True,
        db_index=True,
        help_text="The debate or run whose call it holds for.",
    )
    admits = models.GeneratedField(
        expression=KT("entries__0__admits"),
        output_field=models.CharField(max_length=80, null=True),
        db_persist=True,
        db_index=True,
        help_text="The debate (run) it is the admission of.",
    )

    def __str__(self):
        return f"Hold #{self.pk} ({self.created_at:%Y-%m-%d %H:%M:%S})"


class Usage(models.Model):
    """What was spent per day, user, API token and model (the admin's and the API's usage)."""

    day = models.DateField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        related_name="+",
        db_constraint=False,
    )
    token = models.ForeignKey(
        "accounts.ApiToken",
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        related_name="+",
        db_constraint=False,
        verbose_name="API token",
    )
    model = models.CharField(max_length=200)
    calls = models.IntegerField(default=0)
    tokens_in = models.BigIntegerField(default=0)
    tokens_out = models.BigIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=16, decimal_places=8, default=0)

    class Meta:
        ordering = ["-day", "user_id", "model"]
        verbose_name_plural = "usage"
        constraints = [
            models.UniqueConstraint(
                fields=["day", "user", "token", "model"],
                name="budgets_usage_one_row",
                nulls_distinct=False,
            )
        ]
        indexes = [models.Index(fields=["user", "day"], name="budgets_usage_user_day")]

    def __str__(self):
        return f"{self.day} {self.model}"


class Charge(models.Model):
    """Who pays for one debate or contradiction run, and its own limits (settings at the time
    it was created). `subject` is "debate:<id>" or "contradiction-run:<id>"."""

    subject = models.CharField(max_length=80, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    token = models.ForeignKey(
        "accounts.ApiToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    max_calls = models.PositiveIntegerField(null=True, blank=True, help_text="Blank: no limit.")
    max_tokens_per_call = models.PositiveIntegerField(
        null=True, blank=True, help_text="Sent to the model as max_tokens. Blank: no limit."
    )
    max_tokens = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        help_text="Tokens (prompts and replies) it may use in all. Blank: no limit.",
    )
    max_cost_usd = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, help_text="Blank: no limit."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "debate budget"

    def __str__(self):
        return self.subject
