"""Starting a debate: 202, validation with a message per field, idempotency, throttling."""

from __future__ import annotations

import pytest

from debates.models import Debate, IdempotencyKey, Participant
from tests.support.threads import at_once

URL = "/api/v1/debates/"
pytestmark = pytest.mark.usefixtures("default_agents")


def test_starting_a_debate_answers_202_with_its_id_status_and_url(api, user):
    response = api.post(URL, {"question": "Is Bitcoin a good investment?"}, format="json")
    assert response.status_code == 202, response.json()
    body = response.json()
    debate = Debate.objects.get(id=body["id"])
    assert body["status"] == "queued"
    assert body["url"] == f"http://testserver/api/v1/debates/{debate.id}/"
    assert response["Location"] == body["url"]
    assert debate.created_by == user
    assert debate.query == "Is Bitcoin a good investment?"
    assert debate.protocol == "s4"
    assert Participant.objects.filter(debate=debate).count() == 3


def test_chosen_agents_and_callback_url_are_stored(api):
    response = api.post(
        URL,
        {
            "question": "Is it safe to eat raw cookie dough?",
            "agents": ["safety", "accuracy"],
            "callback_url": "http://127.0.0.1:9/hook",
        },
        format="json",
    )
    assert response.status_code == 202, response.json()
    debate = Debate.objects.get(id=response.json()["id"])
    assert [p.slug for p in debate.participants.all()] == ["safety", "accuracy"]
    assert debate.callback_url == "http://127.0.0.1:9/hook"


BAD_INPUT = [
    ({}, "question", "required"),
    ({"question": ""}, "question", "may not be empty"),
    ({"question": "   "}, "question", "may not be empty"),
    ({"question": "x" * 2001}, "question", "at most 2000"),
    ({"question": 42}, "question", "Expected a string"),
    ({"question": ["Is it?"]}, "question", "Expected a string"),
    ({"question": "What is\x07 this?"}, "question", "control characters"),
    ({"question": "Is it?", "protocol": "chess"}, "protocol", "not a known protocol"),
    ({"question": "Is it?", "protocol": 4}, "protocol", "not a known protocol"),
    ({"question": "Is it?", "agents": ["utility", "nobody"]}, "agents", "nobody"),
    ({"question": "Is it?", "agents": "utility"}, "agents", "list"),
    ({"question": "Is it?", "agents": ["utility", "utility"]}, "agents", "only once"),
    ({"question": "Is it?", "agents": ["utility"]}, "agents", ""),
    ({"question": "Is it?", "options": {"rounds": 9}}, "options", "Unknown option"),
    ({"question": "Is it?", "options": "fast"}, "options", "dictionary"),
    ({"question": "Is it?", "callback_url": "not a url"}, "callback_url", "valid URL"),
    ({"question": "Is it?", "callback_url": "ftp://example.org/x"}, "callback_url", "http"),
    ({"question": "Is it?", "callback_url": 7}, "callback_url", "Expected a string"),
]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    BAD_INPUT,
    ids=[f"{f}-{i}" for i, (_, f, _) in enumerate(BAD_INPUT)],
)
def test_bad_input_gets_400_with_a_message_for_the_field_and_stores_nothing(
    api, body, field, message
):
    response = api.post(URL, body, format="json")
    assert response.status_code == 400
    errors = response.json()
    assert field in errors, errors
    assert message in str(errors[field])
    assert Debate.objects.count() == 0
    assert IdempotencyKey.objects.count() == 0


def test_every_bad_field_is_reported_at_once(api):
    response = api.post(URL, {"question": "", "protocol": "chess", "agents": "x"}, format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"question", "protocol", "agents"}


def test_a_body_that_is_not_json_gets_400_or_415(api):
    assert api.post(URL, "{not json", content_type="application/json").status_code == 400
    assert api.post(URL, "question=hi", content_type="text/plain").status_code == 415
    assert Debate.objects.count() == 0


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:8000/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/hook",
        "http://0.0.0.0/hook",
        "http://[::ffff:127.0.0.1]/hook",
    ],
)
def test_private_and_loopback_callbacks_are_refused_when_not_allowed(api, settings, url):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    response = api.post(URL, {"question": "Is it?", "callback_url": url}, format="json")
    assert response.status_code == 400
    assert "public address" in str(response.json()["callback_url"])
    assert Debate.objects.count() == 0


def test_public_callback_address_is_accepted_when_private_ones_are_not(api, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    response = api.post(
        URL, {"question": "Is it?", "callback_url": "https://93.184.215.14/hook"}, format="json"
    )
    assert response.status_code == 202, response.json()


def test_unresolvable_callback_host_is_refused_when_private_addresses_are_not_allowed(
    api, settings
):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    response = api.post(
        URL,
        {"question": "Is it?", "callback_url": "https://no-such-host.invalid/hook"},
        format="json",
    )
    assert response.status_code == 400
    assert "could not be resolved" in str(response.json()["callback_url"])


# --- idempotency ------------------------------------------------------------------------------


def test_same_idempotency_key_and_body_returns_the_same_debate(api):
    body = {"question": "Should I learn Python or JavaScript first?"}
    first = api.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = api.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"]
    assert again["Idempotent-Replayed"] == "true"
    assert Debate.objects.count() == 1


def test_same_idempotency_key_with_a_different_body_gets_422(api):
    api.post(URL, {"question": "Is it?"}, format="json", HTTP_IDEMPOTENCY_KEY="k-2")
    response = api.post(URL, {"question": "Is it not?"}, format="json", HTTP_IDEMPOTENCY_KEY="k-2")
    assert response.status_code == 422
    assert "different request" in response.json()["detail"]
    assert Debate.objects.count() == 1


def test_idempotency_keys_belong_to_one_user(api, other_api):
    body = {"question": "Is it?"}
    mine = api.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    theirs = other_api.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    assert theirs.status_code == 202
    assert theirs.json()["id"] != mine.json()["id"]


def test_a_rejected_request_does_not_use_up_its_idempotency_key(api):
    bad = api.post(URL, {"question": ""}, format="json", HTTP_IDEMPOTENCY_KEY="k-3")
    good = api.post(URL, {"question": "Is it?"}, format="json", HTTP_IDEMPOTENCY_KEY="k-3")
    assert (bad.status_code, good.status_code) == (400, 202)


@pytest.mark.parametrize("key", ["", "x" * 256, "naïve"])
def test_malformed_idempotency_key_gets_400(api, key):
    response = api.post(URL, {"question": "Is it?"}, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()
    assert Debate.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_with_one_idempotency_key_create_one_debate(
    user, default_agents, settings
):
    from tests.api.conftest import client_for

    settings.DEBATE_API_CREATE_RATE = "1000/minute"
    body = {"question": "Is it going to rain tomorrow?", "callback_url": "http://127.0.0.1:9/"}
    clients = [client_for(user) for _ in range(4)]
    results = at_once(
        *[
            lambda c=c: c.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="same")
            for c in clients
        ]
    )
    assert [r.status_code for r in results] == [202] * 4
    assert len({r.json()["id"] for r in results}) == 1
    assert Debate.objects.count() == 1
    assert sum(r.has_header("Idempotent-Replayed") for r in results) == 3


# --- throttling -------------------------------------------------------------------------------


def test_starting_too_many_debates_gets_429_with_retry_after(api, other_api, settings):
    settings.DEBATE_API_CREATE_RATE = "2/minute"
    codes = [
        api.post(URL, {"question": f"Question {i}?"}, format="json").status_code for i in range(3)
    ]
    assert codes == [202, 202, 429]
    limited = api.post(URL, {"question": "One more?"}, format="json")
    assert limited.status_code == 429
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert "throttled" in limited.json()["detail"]
    assert Debate.objects.count() == 2
    # the limit is per user; reading is not limited
    assert other_api.post(URL, {"question": "Mine?"}, format="json").status_code == 202
    assert api.get(URL).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_limit_holds_for_concurrent_requests(user, default_agents, settings, monkeypatch):
    from debates import tasks
    from tests.api.conftest import client_for

    settings.DEBATE_API_CREATE_RATE = "3/hour"
    # The debates are committed, so they would be enqueued: a worker started by another test
    # of the session would run them during this test's teardown. Only the limit is tested.
    enqueued: list[str] = []
    monkeypatch.setattr(tasks.run_debate, "delay", enqueued.append)
    clients = [client_for(user) for _ in range(8)]
    codes = [
        r.status_code
        for r in at_once(
            *[
                lambda i=i, c=c: c.post(URL, {"question": f"Q{i}?"}, format="json")
                for i, c in enumerate(clients)
            ]
        )
    ]
    assert sorted(codes) == [202] * 3 + [429] * 5
    assert Debate.objects.count() == 3
    assert len(enqueued) == 3


@pytest.mark.slow
def test_production_settings_refuse_private_callback_addresses_whatever_the_environment():
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT, STRONG_KEY

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": STRONG_KEY,
        "DJANGO_ALLOWED_HOSTS": "example.org",
        "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true",
    }
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings;"
            " print(settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES)",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
