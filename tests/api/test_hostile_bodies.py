"""Hostile bodies over the API: whatever is sent, a 4xx in JSON saying what to fix, never a
500, never more than an excerpt of the input echoed back."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from contradictions.models import ContradictionRun, Finding
from debates.models import Debate
from tests.contradictions.conftest import claim, report, sources  # noqa: F401 (a fixture)

NESTED_LIST = "[" * 10_000 + "]" * 10_000
NESTED_OBJECT = '{"a":' * 10_000 + "1" + "}" * 10_000
JUST_TOO_DEEP = '{"query": "Is it safe?", "options": ' + '{"a":' * 80 + "1" + "}" * 80 + "}"

JSON_ENDPOINTS = [
    ("post", "/api/v1/debates/"),
    ("post", "/api/v1/contradiction-runs/"),
    ("post", "/api/v1/agents/"),
    ("patch", "/api/v1/agents/utility/"),
    ("put", "/api/v1/agents/utility/"),
    ("post", "/api/v1/reviews/{item}/release/"),
    ("post", "/api/v1/reviews/{item}/resolve/"),
    ("post", "/api/v1/reviews/{item}/dismiss/"),
    ("post", "/api/v1/reviews/{item}/rerun/"),
]


@pytest.fixture
def review_item(default_agents):
    from debates.reviewing.items import review_items_for_debate
    from tests.factories import CompletedDebateFactory

    debate = CompletedDebateFactory(decision="REFUSE", metadata={"veto_applied": True})
    return review_items_for_debate(debate=debate.id)[0]


@pytest.mark.parametrize(
    "body",
    [NESTED_LIST, NESTED_OBJECT, JUST_TOO_DEEP],
    ids=["list-10000", "object-10000", "object-80"],
)
@pytest.mark.parametrize(("method", "path"), JSON_ENDPOINTS)
def test_deeply_nested_json_is_a_400_on_every_json_endpoint(
    staff_api, review_item, method, path, body
):
    before = (Debate.objects.count(), ContradictionRun.objects.count())
    response = getattr(staff_api, method)(
        path.format(item=review_item.pk), body, content_type="application/json"
    )
    assert response.status_code == 400, response.content[:300]
    assert "nested too deeply: at most 64 levels" in response.json()["detail"]
    assert (Debate.objects.count(), ContradictionRun.objects.count()) == before


@pytest.mark.usefixtures("sources")
@pytest.mark.parametrize("value", [10**18, 1e18, 9.99e19, -(10**19)])
def test_a_finding_value_up_to_1e20_is_stored_whole(api, value):
    body = {
        "reports": [
            report("A", 0.9, claim(value, "GCC-STAT", "2024")),
            report("B", 0.8, claim(1, "World Bank", "2024")),
        ]
    }
    response = api.post("/api/v1/contradiction-runs/", body, format="json")
    assert response.status_code == 202, response.json()
    stored = Finding.objects.get(report__run_id=response.json()["id"], report__agent_name="A")
    assert stored.value == Decimal(repr(value) if isinstance(value, float) else value)


@pytest.mark.usefixtures("sources")
def test_a_finding_value_of_1e20_is_a_400_naming_the_limit(api):
    body = {"reports": [report("A", 0.9, claim(1e20, "GCC-STAT", "2024"))]}
    response = api.post("/api/v1/contradiction-runs/", body, format="json")
    assert response.status_code == 400
    assert "smaller than 10^20" in str(response.json())
    assert not ContradictionRun.objects.exists()


@pytest.mark.parametrize(
    "path", ["/api/v1/debates/", "/api/v1/contradiction-runs/", "/api/v1/reviews/1/resolve/"]
)
def test_a_10_mb_body_is_a_json_413(staff_api, path):
    body = '{"query": "' + "x" * (10 * 1024 * 1024) + '"}'
    response = staff_api.post(path, body, content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert "too large: at most 2,621,440 bytes" in response.json()["detail"]
    assert not Debate.objects.exists()


def test_a_400_echoes_only_an_excerpt_of_a_huge_input(api):
    huge = "s4" + "x" * 35_000
    response = api.post(
        "/api/v1/debates/", {"query": "Is it safe?", "protocol": huge}, format="json"
    )
    assert response.status_code == 400
    message = response.json()["protocol"][0]
    assert len(response.content) < 1_000
    assert "s4xxx" in message[:10] and "more characters left out" in message
    assert not Debate.objects.exists()


def test_the_schema_states_the_idempotency_keys_length_and_characters(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    parameters = schema["paths"]["/api/v1/debates/"]["post"]["parameters"]
    key = next(p for p in parameters if p["name"] == "Idempotency-Key")
    assert key["schema"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "pattern": "^[ -~]+$",
    }


# --- text UTF-8 cannot carry, days past the calendar: echoed back as escapes, refused as 4xx ---


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/debates/", {"question": "Is it safe?", "protocol": "\ud800"}, "protocol"),
        ("/api/v1/evaluation/replay/", {"protocol": "x\ud800y"}, "protocol"),
        ("/api/v1/reviews/{item}/resolve/", {"verdict": "\ud800", "note": "n"}, "verdict"),
    ],
)
def test_a_lone_surrogate_in_a_choice_is_a_400_that_shows_it_escaped(
    staff_api, review_item, path, body, field
):
    # As JSON carries it: the escape "\\ud800" (a client's encoder that keeps it).
    sent = json.dumps(body)
    response = staff_api.post(
        path.format(item=review_item.pk), sent, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert "\\ud800" in response.json()[field][0]


@pytest.mark.parametrize(
    "query", [{"until": "0001-01-01"}, {"since": "0001-01-01"}, {"until": "9999-12-31"}]
)
def test_days_past_the_calendar_in_the_usage_query_are_a_400(api, query):
    response = api.get("/api/v1/usage/", query)
    assert response.status_code == 400
    assert "Give a day from 1970-01-01 to 9998-12-31." in str(response.json())
