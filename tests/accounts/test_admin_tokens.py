"""Issuing and revoking API tokens in the admin: permissions, no escalation, every act recorded."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken
from accounts.services import hash_token, token_issue
from audit.models import AuditEntry

pytestmark = pytest.mark.django_db

USERS = "admin:auth_user_changelist"
TOKENS = "admin:accounts_apitoken_changelist"


def grant(user, *codenames):
    for codename in codenames:
        app_label, name = codename.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=name)
        )


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def issue_through_admin(client, *targets):
    return client.post(
        reverse(USERS),
        {"action": "issue_api_token", "_selected_action": [t.pk for t in targets]},
        follow=True,
    )


@pytest.fixture
def root(django_user_model):
    return django_user_model.objects.create_superuser("root", password="a-long-passphrase")


@pytest.fixture
def viewer(django_user_model):
    """Staff who may only view users."""
    user = django_user_model.objects.create_user("vic", password="pw-long-enough", is_staff=True)
    grant(user, "auth.view_user", "accounts.view_apitoken")
    return user


@pytest.fixture
def issuer(django_user_model):
    """Staff with the dedicated permission, and a few others."""
    user = django_user_model.objects.create_user("ida", password="pw-long-enough", is_staff=True)
    grant(
        user,
        "auth.view_user",
        "accounts.view_apitoken",
        "accounts.add_apitoken",
        "accounts.issue_token_for_others",
        "accounts.revoke_apitoken",
        "agents.view_agent",
    )
    return user


@pytest.fixture
def analyst(django_user_model):
    return django_user_model.objects.create_user("ana", password="pw-long-enough")


def test_a_view_only_staff_user_cannot_mint_a_token_for_a_superuser(viewer, root):
    client = client_of(viewer)
    listing = client.get(reverse(USERS)).content.decode()
    assert "issue_api_token" not in listing  # the action is not offered

    response = issue_through_admin(client, root)

    assert response.status_code == 200
    assert "Token for" not in response.content.decode()
    assert not ApiToken.objects.exists()
    assert not AuditEntry.objects.filter(action="token.issue").exists()


def test_a_view_only_staff_user_cannot_revoke_tokens(viewer, analyst):
    token, _ = token_issue(user=analyst, name="ci")
    client = client_of(viewer)
    listing = client.get(reverse(TOKENS))
    assert listing.status_code == 200 and 'value="revoke"' not in listing.content.decode()

    client.post(reverse(TOKENS), {"action": "revoke", "_selected_action": [token.pk]}, follow=True)

    token.refresh_from_db()
    assert token.revoked_at is None


def test_issuing_for_others_needs_the_dedicated_permission(django_user_model, analyst):
    own_only = django_user_model.objects.create_user(
        "oto", password="pw-long-enough", is_staff=True
    )
    grant(own_only, "auth.view_user", "accounts.add_apitoken")
    client = client_of(own_only)

    refused = issue_through_admin(client, analyst).content.decode()
    assert "Can issue API tokens for other users" in refused
    assert not ApiToken.objects.filter(user=analyst).exists()

    issue_through_admin(client, own_only)
    assert ApiToken.objects.filter(user=own_only).count() == 1


def test_a_privileged_issuer_issues_for_a_user_with_fewer_rights_and_it_is_recorded(
    issuer, analyst
):
    response = issue_through_admin(client_of(issuer), analyst)

    text = response.content.decode()
    token = ApiToken.objects.get(user=analyst)
    raw = text.split("Token for ana: ")[1].split(" ")[0]
    assert hash_token(raw) == token.key_hash
    entry = AuditEntry.objects.get(action="token.issue")
    assert (entry.actor_name, entry.subject_type, entry.subject_id) == (
        "ida",
        "accounts.apitoken",
        str(token.pk),
    )
    assert entry.changes == {"user": {"from": None, "to": "ana"}}


@pytest.mark.parametrize("target_kind", ["superuser", "staff", "more_permissions"])
def test_never_for_a_user_with_more_rights_than_the_issuer(
    django_user_model, issuer, root, target_kind
):
    if target_kind == "superuser":
        target = root
        expected = "is a superuser and you are not"
    elif target_kind == "staff":
        # An issuer who is not staff cannot reach the admin, so check the rule in the service.
        from accounts.services import token_issue_refusal

        plain = django_user_model.objects.create_user("pia", password="pw-long-enough")
        grant(plain, "accounts.issue_token_for_others")
        staff = django_user_model.objects.create_user("sta", password="x" * 12, is_staff=True)
        assert "is staff and you are not" in token_issue_refusal(issuer=plain, user=staff)
        return
    else:
        target = django_user_model.objects.create_user(
            "rev", password="pw-long-enough", is_staff=True
        )
        grant(target, "auth.view_user", "agents.change_agent")
        expected = "has permissions you do not have (agents.change_agent)"

    text = issue_through_admin(client_of(issuer), target).content.decode()

    assert expected in text
    assert not ApiToken.objects.filter(user=target).exists()
    assert not AuditEntry.objects.filter(action="token.issue").exists()


def test_a_superuser_issues_for_anyone(root, issuer):
    issue_through_admin(client_of(root), issuer)
    assert ApiToken.objects.filter(user=issuer).count() == 1


def test_revoking_is_permitted_by_its_own_permission_and_recorded(issuer, analyst):
    token, raw = token_issue(user=analyst, name="ci")
    client = client_of(issuer)

    response = client.post(
        reverse(TOKENS), {"action": "revoke", "_selected_action": [token.pk]}, follow=True
    )

    assert "1 token(s) revoked." in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is not None
    entry = AuditEntry.objects.get(action="token.revoke")
    assert (entry.actor_name, entry.subject_id, entry.note) == (
        "ida",
        str(token.pk),
        "token of ana",
    )
    listing = client.get(reverse(TOKENS)).content.decode()
    assert token.prefix in listing and raw not in listing
