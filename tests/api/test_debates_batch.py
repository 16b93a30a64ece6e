"""Starting several debates in one request: all or nothing, errors named by position, queued in
order, counted against the start rate item by item, in a fixed number of queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from budgets.models import Charge
from debates import tasks
from debates.models import Debate, Participant

URL = "/api/v1/debates/batch/"
pytestmark = pytest.mark.usefixtures("default_agents")


@pytest.fixture
def enqueued(monkeypatch) -> list[str]:
    sent: list[str] = []
    monkeypatch.setattr(tasks.run_debate, "delay", sent.append)
    return sent


def test_a_batch_is_stored_at_once_and_queued_in_order(
    api, user, enqueued, django_capture_on_commit_callbacks
):
    body = {
        "debates": [
            {"question": "Is Bitcoin a good investment?"},
            {"question": "Should I learn Go?", "agents": ["utility", "safety"]},
            {
                "question": "Should city centres be closed to private cars?",
                "protocol": "moderated",
                "agents": ["proponent", "opponent", "moderator"],
                "options": {"max_rounds": 3},
                "callback_url": "http://127.0.0.1:9/hook",
            },
        ]
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(URL, body, format="json")
    assert response.status_code == 202, response.json()
    started = response.json()["debates"]
    assert [d["status"] for d in started] == ["queued"] * 3
    assert started[0]["url"] == f"http://testserver/api/v1/debates/{started[0]['id']}/"
    debates = [Debate.objects.get(id=d["id"]) for d in started]
    assert [d.query for d in debates] == [item["question"] for item in body["debates"]]
    assert [d.protocol for d in debates] == ["s4", "s4", "moderated"]
    assert debates[2].options["max_rounds"] == 3
    assert debates[2].callback_url == "http://127.0.0.1:9/hook"
    assert all(d.created_by == user for d in debates)
    assert [list(d.participants.values_list("slug", flat=True)) for d in debates] == [
        ["utility", "accuracy", "safety"],
        ["utility", "safety"],
        ["proponent", "opponent", "moderator"],
    ]
    assert Charge.objects.filter(subject__in=[f"debate:{d.id}" for d in debates]).count() == 3
    assert enqueued == [d["id"] for d in started]


@pytest.mark.parametrize(
    "bad, field, says",
    [
        ({"question": ""}, "question", "may not be empty"),
        ({"question": "Is it?", "protocol": "chess"}, "protocol", "not a known protocol"),
        ({"question": "Is it?", "agents": ["utility", "nobody"]}, "agents", "nobody"),
        ({"question": "Is it?", "options": {"rounds": 9}}, "options", "Unknown option"),
        ({"question": "Is it?", "callback_url": "ftp://example.org/"}, "callback_url", "http"),
    ],
)
def test_one_refused_item_stores_nothing_and_is_named_by_its_position(
    api, enqueued, django_capture_on_commit_callbacks, bad, field, says
):
    body = {"debates": [{"question": "Is it raining?"}, bad, {"question": "Is it sunny?"}]}
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(URL, body, format="json")
    assert response.status_code == 400, response.json()
    errors = response.json()["debates"]
    assert list(errors) == ["1"]  # the refused item, by its position
    assert says in str(errors["1"][field])
    assert Debate.objects.count() == 0 and Participant.objects.count() == 0
    assert Charge.objects.count() == 0 and enqueued == []


@pytest.mark.parametrize(
    "body, says",
    [
        ({"debates": []}, "at least one"),
        ({"debates": [{"question": f"Q{i}?"} for i in range(4)]}, "at most 3"),
        ({"debates": {"question": "Is it?"}}, "list"),
        ({}, "required"),
        ([{"question": "Is it?"}], ""),
    ],
)
def test_a_batch_of_the_wrong_shape_or_size_is_refused_readably(api, settings, body, says):
    settings.DEBATE_API_BATCH_MAX = 3
    response = api.post(URL, body, format="json")
    assert response.status_code == 400, response.content
    assert says in str(response.json())
    assert Debate.objects.count() == 0


def test_each_debate_of_a_batch_counts_against_the_start_rate(api, settings, enqueued):
    settings.DEBATE_API_CREATE_RATE = "5/minute"

    def batch(n: int):
        return api.post(URL, {"debates": [{"question": f"Q{i}?"} for i in range(n)]}, format="json")

    assert batch(3).status_code == 202
    refused = batch(3)  # 3 + 3 > 5: refused whole, and not counted
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
    assert Debate.objects.count() == 3
    assert api.post("/api/v1/debates/", {"question": "One?"}, format="json").status_code == 202
    assert batch(1).status_code == 202
    assert batch(1).status_code == 429
    assert Debate.objects.count() == 5


def test_a_batch_takes_the_same_queries_whatever_its_size(api, enqueued):
    def queries(n: int) -> list[str]:
        body = {"debates": [{"question": f"Question {i}?"} for i in range(n)]}
        with CaptureQueriesContext(connection) as ctx:
            assert api.post(URL, body, format="json").status_code == 202
        return [q["sql"].removeprefix("QUERY = '") for q in ctx.captured_queries]

    queries(1)  # the session's first request also records the sign-in
    two, twenty = queries(2), queries(20)
    assert len(two) == len(twenty), (two, twenty)
    # The debates, their participants and their charges: one statement of three inserts.
    [stored] = [q for q in twenty if q.startswith("WITH d AS (INSERT")]
    assert stored.count("INSERT INTO") == 3
    assert not any(q.startswith("INSERT") for q in twenty)
    assert Debate.objects.count() == 23


def test_a_batch_over_the_spending_limit_is_refused_whole(api, user, settings, enqueued):
    from django.utils import timezone

    from budgets.limits import DAY, period_key
    from budgets.models import Counter

    settings.BUDGET_USER_DAILY_COST_USD = 1
    Counter.objects.create(
        key=f"user:{user.pk}", period=period_key(DAY, timezone.localtime()), used_cost_usd=1
    )
    response = api.post(URL, {"debates": [{"question": "Is it?"}] * 2}, format="json")
    assert response.status_code == 429, response.json()
    assert response.json()["code"] == "budget_exceeded"
    assert Debate.objects.count() == 0
