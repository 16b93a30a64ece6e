"""A user without any special right makes, uses and revokes their own API token on the token
page; the secret is shown once and only its hash is stored."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import hash_token
from audit.models import AuditEntry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PAGE = "accounts:tokens"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_plain_user_makes_a_token_sees_it_once_uses_it_and_revokes_it():
    user = UserFactory(username="dana")
    client = signed_in(user)

    made = client.post(reverse(PAGE), {"name": "nightly report"})
    assert made.status_code == 201
    raw = re.search(r'data-testid="new-token">(dbt_[^<]+)<', made.content.decode()).group(1)
    token = ApiToken.objects.get(user=user)
    assert token.name == "nightly report" and token.key_hash == hash_token(raw)
    assert raw not in token.prefix and token.prefix in raw
    assert AuditEntry.objects.filter(action="token.issue", actor_id=user.pk).count() == 1

    listing = client.get(reverse(PAGE)).content.decode()
    assert "nightly report" in listing and token.prefix in listing
    assert raw not in listing  # shown once, never again

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert api.get("/api/v1/debates/").status_code == 200

    revoked = client.post(reverse("accounts:token-revoke", args=[token.pk]), follow=True)
    assert "Token revoked" in revoked.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert api.get("/api/v1/debates/").status_code == 401


def test_a_token_needs_a_name_and_nothing_is_stored_without_one():
    user = UserFactory()
    page = signed_in(user).post(reverse(PAGE), {"name": "   "})
    assert page.status_code == 400
    assert "Give the token a name" in page.content.decode()
    assert not ApiToken.objects.exists()


def test_nobody_revokes_or_sees_another_users_token():
    owner, other = UserFactory(), UserFactory()
    signed_in(owner).post(reverse(PAGE), {"name": "mine"})
    token = ApiToken.objects.get(user=owner)
    client = signed_in(other)
    assert "mine" not in client.get(reverse(PAGE)).content.decode()
    answer = client.post(reverse("accounts:token-revoke", args=[token.pk]), follow=True)
    assert "No active token of yours" in answer.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is None


def test_the_page_needs_a_login_and_the_header_links_it_and_the_api_docs():
    assert Client().get(reverse(PAGE)).status_code == 302
    header = signed_in(UserFactory()).get(reverse("debates:list")).content.decode()
    assert f'href="{reverse(PAGE)}"' in header and 'href="/api/docs/"' in header
