"""API tokens and webhook secrets: issuing, revoking, rotating, and checking a presented token."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import ApiToken, WebhookSecret

TOKEN_PREFIX = "dbt_"
WEBHOOK_SECRET_PREFIX = "whsec_"
# `last_used_at` is written at most this often per token, so reads stay reads.
LAST_USED_PRECISION = timedelta(minutes=1)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


@transaction.atomic
def token_issue(*, user: AbstractBaseUser, name: str = "API token") -> tuple[ApiToken, str]:
    """Create a token for `user`. Returns the row and the secret, which is not stored anywhere."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the token a name saying what it is for."})
    if len(name) > 100:
        raise ValidationError({"name": "The name is too long (at most 100 characters)."})
    if not user.is_active:
        raise ValidationError({"user": f"User {user} is inactive and cannot get a token."})
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name, key_hash=hash_token(raw), prefix=raw[: len(TOKEN_PREFIX) + 6]
    )
    return token, raw


def token_revoke(*, token_ids: list[int]) -> int:
    """Revoke tokens (already revoked ones keep their date). Returns how many were revoked."""
    return ApiToken.objects.filter(id__in=token_ids, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def token_authenticate(raw: str) -> ApiToken | None:
    """The active token whose secret is `raw`, with its user; records when it was last used."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=hash_token(raw), revoked_at__isnull=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_PRECISION:
        ApiToken.objects.filter(id=token.id).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_PRECISION)
        ).update(last_used_at=now)
        token.last_used_at = now
    return token


def webhook_secret_get(*, user: AbstractBaseUser) -> WebhookSecret:
    """The user's signing secret, created on first use."""
    secret, _ = WebhookSecret.objects.get_or_create(
        user=user, defaults={"secret": WEBHOOK_SECRET_PREFIX + secrets.token_urlsafe(32)}
    )
    return secret


@transaction.atomic
def webhook_secret_rotate(*, user: AbstractBaseUser) -> WebhookSecret:
    """Replace the user's signing secret; events sent from now on use the new one."""
    secret = webhook_secret_get(user=user)
    secret.secret = WEBHOOK_SECRET_PREFIX + secrets.token_urlsafe(32)
    secret.created_at = timezone.now()
    secret.save(update_fields=["secret", "created_at"])
    return secret
