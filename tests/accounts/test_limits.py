"""One limit whatever the entry point: the start forms count with the API on the same Redis
counters, and failed logins are throttled per account and per address."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import token_issue
from contradictions.models import ContradictionRun
from debates.models import Debate
from tests.contradictions.conftest import SCENARIOS

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-passphrase"


@pytest.fixture
def nora(django_user_model):
    return django_user_model.objects.create_user("nora", password=PASSWORD)


def form_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=user, name='t')[1]}")
    return client


def test_the_new_debate_form_and_the_api_share_one_limit(
    settings, default_agents, nora, django_user_model
):
    settings.DEBATE_API_CREATE_RATE = "3/minute"
    pages, api = form_client(nora), api_client(nora)
    url = reverse("debates:start")
    form = {"question": "Should every website use HTTPS?", "protocol": "s4"}

    codes = [
        pages.post(url, form).status_code,
        pages.post(url, form).status_code,
        api.post("/api/v1/debates/", {"question": "Is it?"}, format="json").status_code,
    ]
    refused = pages.post(url, {**form, "question": "One more?"})
    api_refused = api.post("/api/v1/debates/", {"question": "Is it?"}, format="json")

    assert codes == [302, 302, 202]
    assert refused.status_code == 429 and api_refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    text = refused.content.decode()
    assert "You may start at most 3 debates per minute. Try again in" in text
    assert "One more?" in text  # what was typed stays on the form
    assert Debate.objects.filter(created_by=nora).count() == 3
    # Another user has a limit of their own.
    other = django_user_model.objects.create_user("otto", password=PASSWORD)
    assert form_client(other).post(url, form).status_code == 302


def test_the_new_run_form_and_the_api_share_one_limit(settings, nora):
    settings.CONTRADICTION_API_CREATE_RATE = "2/minute"
    pages, api = form_client(nora), api_client(nora)
    url = reverse("contradictions:start")
    reports = json.dumps(SCENARIOS["simple"])

    with mock.patch("contradictions.tasks.run_contradictions.delay"):
        first = pages.post(url, {"reports": reports})
        second = api.post(
            "/api/v1/contradiction-runs/", {"reports": SCENARIOS["simple"]}, format="json"
        )
        refused = pages.post(url, {"reports": reports})

    assert (first.status_code, second.status_code, refused.status_code) == (302, 202, 429)
    assert "You may start at most 2 contradiction runs per minute." in refused.content.decode()
    assert refused["Retry-After"]
    assert ContradictionRun.objects.filter(created_by=nora).count() == 2


def log_in(client, username, password, address="10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_failed_logins_lock_the_account_whatever_the_address(settings, nora):
    settings.AXES_FAILURE_LIMIT = 3
    client = Client()
    for n in range(3):
        response = log_in(client, "nora", "wrong", address=f"10.0.0.{n + 1}")
        assert response.status_code in (200, 429)

    locked = log_in(client, "nora", PASSWORD, address="10.9.9.9")  # right password, new address

    assert locked.status_code == 429
    assert "Too many failed logins" in locked.content.decode()
    assert "_auth_user_id" not in client.session
    assert log_in(Client(), "otto", "whatever", address="10.9.9.9").status_code == 200


def test_failed_logins_from_one_address_lock_that_address_for_every_account(
    settings, nora, django_user_model
):
    settings.AXES_FAILURE_LIMIT = 3
    django_user_model.objects.create_user("otto", password=PASSWORD)
    for name in ("ann", "bob", "cid"):  # spraying usernames
        log_in(Client(), name, "guess", address="203.0.113.7")

    from_there = log_in(Client(), "otto", PASSWORD, address="203.0.113.7")
    from_elsewhere = Client()
    elsewhere = log_in(from_elsewhere, "otto", PASSWORD, address="198.51.100.1")

    assert from_there.status_code == 429
    assert elsewhere.status_code == 302 and "_auth_user_id" in from_elsewhere.session


def test_a_success_before_the_limit_clears_the_count(settings, nora):
    settings.AXES_FAILURE_LIMIT = 3
    client = Client()
    log_in(client, "nora", "wrong")
    log_in(client, "nora", "wrong")
    assert log_in(client, "nora", PASSWORD).status_code == 302
    client.logout()
    log_in(client, "nora", "wrong")
    log_in(client, "nora", "wrong")
    assert log_in(client, "nora", PASSWORD).status_code == 302


def test_the_admin_login_is_throttled_too(settings, nora):
    settings.AXES_FAILURE_LIMIT = 2
    client = Client()
    url = reverse("admin:login")
    for _ in range(2):
        client.post(url, {"username": "nora", "password": "wrong"}, REMOTE_ADDR="10.0.0.5")
    locked = client.post(url, {"username": "nora", "password": PASSWORD}, REMOTE_ADDR="10.0.0.6")
    assert locked.status_code == 429


def test_behind_trusted_proxies_the_client_address_comes_from_x_forwarded_for(settings):
    from django.test import RequestFactory

    from accounts.ratelimit import client_ip

    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9"
    )
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_ip(request) == "10.0.0.2"
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_ip(request) == "203.0.113.9"  # the forged first entry is ignored
