"""API tokens and webhook secrets: issuing, revoking, rotating, and checking a presented token."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import audit
from accounts.models import ApiToken, WebhookSecret

TOKEN_PREFIX = "dbt_"
WEBHOOK_SECRET_PREFIX = "whsec_"
# `last_used_at` is written at most this often per token, so reads stay reads.
LAST_USED_PRECISION = timedelta(minutes=1)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def _rights(user) -> set[str]:
    return set(user.get_all_permissions())


def token_issue_refusal(*, issuer: AbstractBaseUser, user: AbstractBaseUser) -> str:
    """Why `issuer` may not issue a token for `user` ("" when they may).

    A token acts with all its user's rights, so issuing one for someone else needs the
    dedicated permission and is never allowed for a user with rights the issuer lacks."""
    if issuer.pk == user.pk:
        if issuer.has_perm("accounts.add_apitoken"):
            return ""
        return "You need the permission to add API tokens to issue one for yourself."
    if not issuer.has_perm("accounts.issue_token_for_others"):
        return "You need the permission 'Can issue API tokens for other users'."
    if user.is_superuser and not issuer.is_superuser:
        return f"{user.get_username()} is a superuser and you are not."
    if user.is_staff and not issuer.is_staff:
        return f"{user.get_username()} is staff and you are not."
    extra = _rights(user) - _rights(issuer)
    if extra:
        shown = ", ".join(sorted(extra)[:5]) + (" ..." if len(extra) > 5 else "")
        return f"{user.get_username()} has permissions you do not have ({shown})."
    return ""


@transaction.atomic
def token_issue(
    *, user: AbstractBaseUser, name: str = "API token", issued_by: AbstractBaseUser | None = None
) -> tuple[ApiToken, str]:
    """Create a token for `user`. Returns the row and the secret, which is not stored anywhere.

    `issued_by`: the staff user asking (checked with `token_issue_refusal`); None for the
    operator's command line."""
    name = _token_name_clean(user=user, name=name)
    if issued_by is not None:
        refusal = token_issue_refusal(issuer=issued_by, user=user)
        if refusal:
            raise PermissionDenied(f"No token issued for {user.get_username()}: {refusal}")
    return _token_create(user=user, name=name, actor=issued_by)


@transaction.atomic
def token_issue_own(*, user: AbstractBaseUser, name: str) -> tuple[ApiToken, str]:
    """A token the signed-in `user` makes for themselves on the token page. It acts with only
    their own rights (nothing they could not do in the browser), so no permission is needed.
    Returns the row and the secret, which is not stored anywhere."""
    name = _token_name_clean(user=user, name=name)
    return _token_create(user=user, name=name, actor=user)


def _token_name_clean(*, user, name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the token a name saying what it is for."})
    if len(name) > 100:
        raise ValidationError({"name": "The name is too long (at most 100 characters)."})
    if not user.is_active:
        raise ValidationError({"user": f"User {user} is inactive and cannot get a token."})
    return name


def _token_create(*, user, name: str, actor) -> tuple[ApiToken, str]:
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name, key_hash=hash_token(raw), prefix=raw[: len(TOKEN_PREFIX) + 6]
    )
    audit.record(
        actor=actor,
        action="token.issue",
        subject=token,
        changes={"user": {"from": None, "to": user.get_username()}},
        note=name,
    )
    return token, raw


@transaction.atomic
def token_revoke(*, token_ids: list[int], revoked_by: AbstractBaseUser | None = None) -> int:
    """Revoke tokens (already revoked ones keep their date). Returns how many were revoked."""
    now = timezone.now()
    tokens = list(
        ApiToken.objects.select_for_update()
        .select_related("user")
        .filter(id__in=token_ids, revoked_at__isnull=True)
    )
    ApiToken.objects.filter(id__in=[t.id for t in tokens]).update(revoked_at=now)
    for token in tokens:
        audit.record(
            actor=revoked_by,
            action="token.revoke",
            subject=token,
            changes={"revoked_at": {"from": None, "to": now.isoformat()}},
            note=f"token of {token.user.get_username()}",
        )
    return len(tokens)


def token_revoke_own(*, user: AbstractBaseUser, token_id: int) -> int:
    """Revoke one of `user`'s own tokens (from the token page). Returns 1, or 0 when no active
    token of theirs has that id."""
    ids = list(ApiToken.objects.filter(id=token_id, user=user).values_list("id", flat=True))
    return token_revoke(token_ids=ids, revoked_by=user) if ids else 0


def tokens_of(*, user: AbstractBaseUser):
    """The user's tokens, newest first (revoked ones too, with their date)."""
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


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
