"""Tokens for programs (hashed, revocable, last use recorded), sessions for browsers."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import hash_token, token_issue, token_revoke

URL = "/api/v1/debates/"


def test_issue_token_command_prints_a_working_token_stored_only_as_a_hash(user):
    out, err = io.StringIO(), io.StringIO()
    call_command("issue_token", "ana", "--name", "nightly job", stdout=out, stderr=err)
    raw = out.getvalue().strip()
    assert raw.startswith("dbt_") and len(raw) > 40
    assert "cannot be shown again" in err.getvalue()
    token = ApiToken.objects.get(user=user)
    assert token.name == "nightly job"
    assert token.key_hash == hash_token(raw) != raw
    assert not ApiToken.objects.filter(key_hash__contains=raw[4:]).exists()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get(URL).status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_issue_token_command_rejects_unknown_users(db):
    with pytest.raises(CommandError, match="No user named 'ghost'"):
        call_command("issue_token", "ghost")


def test_a_revoked_token_is_refused(user):
    token, raw = token_issue(user=user, name="ci")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get(URL).status_code == 200
    assert token_revoke(token_ids=[token.id]) == 1
    response = client.get(URL)
    assert response.status_code == 401
    assert "revoked" in response.json()["detail"]


@pytest.mark.parametrize(
    "header",
    ["Bearer dbt_unknown", "Bearer", "Bearer two parts", "Bearer not-our-format"],
)
def test_bad_tokens_get_401(db, header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get(URL)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"


def test_an_inactive_users_token_is_refused(user):
    _, raw = token_issue(user=user, name="ci")
    user.is_active = False
    user.save(update_fields=["is_active"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get(URL).status_code == 401


def test_a_logged_in_browser_uses_the_api_with_its_session_and_csrf(user, default_agents):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get(URL).status_code == 200
    without_csrf = client.post(URL, {"question": "Is it?"}, format="json")
    assert without_csrf.status_code == 403
    assert "CSRF" in without_csrf.json()["detail"]
    client.get(reverse("login"))  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    with_csrf = client.post(URL, {"question": "Is it?"}, format="json", HTTP_X_CSRFTOKEN=token)
    assert with_csrf.status_code == 202


def test_the_browsable_api_renders_for_a_logged_in_user(client, user):
    client.force_login(user)
    response = client.get(URL, HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert "Debate" in response.content.decode()


def test_admin_issues_a_token_to_users_and_shows_it_once(admin_client, user):
    response = admin_client.post(
        reverse("admin:auth_user_changelist"),
        {"action": "issue_api_token", "_selected_action": [user.pk]},
        follow=True,
    )
    text = response.content.decode()
    token = ApiToken.objects.get(user=user)
    assert f"Token for ana: {token.prefix}" in text
    raw = text.split("Token for ana: ")[1].split(" ")[0]
    assert hash_token(raw) == token.key_hash


def test_admin_revokes_tokens(admin_client, user):
    token, raw = token_issue(user=user, name="ci")
    response = admin_client.post(
        reverse("admin:accounts_apitoken_changelist"),
        {"action": "revoke", "_selected_action": [token.pk]},
        follow=True,
    )
    assert "1 token(s) revoked." in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is not None
    listing = admin_client.get(reverse("admin:accounts_apitoken_changelist")).content.decode()
    assert token.prefix in listing and raw not in listing


def test_each_user_reads_and_rotates_their_own_webhook_secret(api, other_api):
    mine = api.get("/api/v1/webhook-secret/").json()["secret"]
    assert mine.startswith("whsec_")
    assert api.get("/api/v1/webhook-secret/").json()["secret"] == mine
    assert other_api.get("/api/v1/webhook-secret/").json()["secret"] != mine
    rotated = api.post("/api/v1/webhook-secret/").json()["secret"]
    assert rotated != mine
    assert api.get("/api/v1/webhook-secret/").json()["secret"] == rotated


def test_the_webhook_secret_needs_authentication(anon_api):
    assert anon_api.get("/api/v1/webhook-secret/").status_code == 401
