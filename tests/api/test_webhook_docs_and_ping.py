"""What an API consumer needs to receive webhooks: the events and their signature described in
the OpenAPI document, real example bodies, absolute links built from DEBATE_SITE_URL, and a test
ping that reaches a real receiver through the same sender."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import uuid

import pytest
import yaml
from django.core.management import call_command

from accounts.services import webhook_secret_get
from debates import services, webhooks
from tests.api.test_webhooks import _verify
from tests.conftest import ROOT
from tests.test_settings_modes import PRODUCTION

PING = "/api/v1/webhooks/ping/"


@pytest.fixture
def schema(db) -> dict:
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    return yaml.safe_load(out.getvalue())


def test_the_schema_describes_the_events_and_their_signature(schema):
    create = schema["paths"]["/api/v1/debates/"]["post"]
    callback = create["callbacks"]["debateEvents"]["{$request.body#/callback_url}"]["post"]
    for header in ("X-Debate-Signature", "X-Debate-Timestamp", "X-Debate-Event"):
        assert header in callback["description"]
    assert "HMAC-SHA256" in callback["description"]
    body = callback["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    event = schema["components"]["schemas"][body.rsplit("/", 1)[1]]
    assert set(event["properties"]) >= {"id", "event", "created_at", "debate", "review"}
    debate = schema["components"]["schemas"]["WebhookDebate"]["properties"]
    assert debate["url"]["format"] == "uri"
    ping = schema["paths"][PING]["post"]["callbacks"]["ping"]["{$request.body#/url}"]["post"]
    assert "X-Debate-Signature" in ping["description"]


def test_the_create_examples_are_real_bodies_the_api_accepts(schema, api, default_agents):
    examples = schema["paths"]["/api/v1/debates/"]["post"]["requestBody"]["content"][
        "application/json"
    ]["examples"]
    assert len(examples) >= 3
    for example in examples.values():
        body = example["value"]
        assert "additionalProp1" not in json.dumps(body)
        answer = api.post("/api/v1/debates/", body, format="json")
        assert answer.status_code == 202, (body, answer.json())


def test_events_carry_the_absolute_url_from_the_site_setting(settings, default_agents, user):
    settings.DEBATE_SITE_URL = "https://debates.example.org"
    debate = services.debate_create(query="Is it raining?", created_by=user, enqueue=False)
    payload = webhooks.event_payload(debate=debate, event="debate.completed", event_id=uuid.uuid4())
    assert payload["debate"]["url"] == f"https://debates.example.org/api/v1/debates/{debate.id}/"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("https://debates.example.org", True),
        ("https://debates.example.org/", True),
        ("http://10.0.0.5:8000", True),
        ("debates.example.org", False),
        ("https://debates.example.org/api", False),
        ("ftp://debates.example.org", False),
        ("https://debates.example.org/?a=1", False),
    ],
)
def test_the_site_url_setting_is_strict(value, ok):
    code = "import django; django.setup(); from django.conf import settings; "
    code += "print(settings.DEBATE_SITE_URL)"
    env = {**os.environ, **PRODUCTION, "DEBATE_SITE_URL": value}
    started = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    if ok:
        assert started.returncode == 0, started.stderr
        assert started.stdout.split()[-1] == value.rstrip("/")
    else:
        assert started.returncode != 0
        assert "is not a site URL" in started.stderr


def _production(**env_changes) -> subprocess.CompletedProcess:
    env = {k: v for k, v in {**os.environ, **PRODUCTION}.items() if k != "DEBATE_SITE_URL"}
    code = "import django; django.setup(); from django.conf import settings; "
    code += "print(settings.DEBATE_SITE_URL)"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, **env_changes},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_production_takes_the_site_url_from_the_one_allowed_host_or_refuses_to_start():
    named = _production(DJANGO_ALLOWED_HOSTS="debates.example.org,www.example.org")
    assert named.returncode == 0, named.stderr
    assert named.stdout.split()[-1] == "https://debates.example.org"
    wildcard = _production(DJANGO_ALLOWED_HOSTS=".example.org")
    assert wildcard.returncode != 0 and "DEBATE_SITE_URL is not set" in wildcard.stderr


def test_a_ping_reaches_the_receiver_signed_and_reports_its_answer(api, user, receiver):
    answer = api.post(PING, {"url": receiver.url}, format="json")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["delivered"], body["status_code"], body["error"]) == (True, 200, "")
    assert body["response_excerpt"] == "answered 200"
    [sent] = receiver.requests
    assert sent["headers"]["X-Debate-Event"] == "ping"
    assert sent["headers"]["X-Debate-Delivery"] == body["event_id"]
    assert _verify(sent, webhook_secret_get(user=user).secret)
    assert json.loads(sent["body"])["event"] == "ping"


def test_a_ping_to_a_refusing_receiver_says_so(api, receiver):
    receiver.answer(403)
    body = api.post(PING, {"url": receiver.url}, format="json").json()
    assert (body["delivered"], body["status_code"]) == (False, 403)
    assert "answered 403" in body["error"]


def test_a_ping_answered_with_a_redirect_says_it_is_not_followed(api, receiver):
    receiver.answer(307)
    body = api.post(PING, {"url": receiver.url}, format="json").json()
    assert (body["delivered"], body["status_code"]) == (False, 307)
    assert body["error"] == webhooks.REDIRECT_NOT_FOLLOWED
    assert len(receiver.requests) == 1


def test_a_ping_to_a_stored_callback_url(api, user, other_api, receiver, default_agents):
    debate = services.debate_create(
        query="Is it raining?", created_by=user, callback_url=receiver.url, enqueue=False
    )
    assert api.post(PING, {"debate": str(debate.id)}, format="json").json()["delivered"] is True
    assert len(receiver.requests) == 1
    # someone else's debate is not theirs to ping
    assert other_api.post(PING, {"debate": str(debate.id)}, format="json").status_code == 404


def test_a_ping_without_a_target_or_to_a_private_address_is_a_400(api, settings):
    neither = api.post(PING, {}, format="json")
    assert neither.status_code == 400 and "one of the two" in neither.json()["url"][0]
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    private = api.post(PING, {"url": "http://127.0.0.1:9/hook"}, format="json")
    assert private.status_code == 400
    assert "public address" in private.json()["url"][0]


def test_an_unreachable_receiver_is_reported_not_a_500(api):
    body = api.post(PING, {"url": "http://127.0.0.1:9/nothing-listens"}, format="json").json()
    assert body["delivered"] is False and body["status_code"] is None
    assert "ConnectionError" in body["error"]
