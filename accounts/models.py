from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    """A bearer token for programs. Only the SHA-256 of the secret is stored; the secret itself
    is shown once, when the token is issued."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, help_text="What the token is for, e.g. 'CI job'.")
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(
        max_length=16, editable=False, help_text="The start of the secret, to recognise it."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"
        indexes = [models.Index(fields=["user", "revoked_at"])]
        permissions = [
            ("issue_token_for_others", "Can issue API tokens for other users"),
            ("revoke_apitoken", "Can revoke API tokens"),
        ]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class WebhookSecret(models.Model):
    """The key a user's webhook events are signed with (HMAC-SHA256)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_secret"
    )
    secret = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now, help_text="When this secret was made.")

    def __str__(self):
        return f"Webhook secret of {self.user}"
