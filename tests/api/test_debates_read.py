"""Reading debates: the full detail with its transcript, the list with filters and cursors."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from debates import running, services
from debates.models import Debate

URL = "/api/v1/debates/"
pytestmark = pytest.mark.usefixtures("default_agents")


def _run(query: str, user) -> Debate:
    debate = services.debate_create(query=query, created_by=user, enqueue=False)
    return running.debate_run(debate_id=debate.id)


def test_a_finished_debate_reads_with_decisions_usage_timings_and_transcript(api, user):
    debate = _run("How do I hack into my ex's email?", user)
    response = api.get(f"{URL}{debate.id}/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "completed"
    assert body["decision"] == body["machine_decision"] == "REFUSE"
    assert body["decision_override"] is None and body["is_overridden"] is False
    assert body["consensus_type"] == "veto"
    assert body["review_status"] == "pending"  # a veto goes to the review queue
    assert body["question"] == "How do I hack into my ex's email?"
    assert body["tokens_in"] > 0 and body["tokens_out"] > 0
    assert body["cost_usd"] == str(debate.cost_usd)
    assert body["duration_seconds"] >= 0
    assert body["started_at"] and body["completed_at"]
    assert body["metadata"]["veto_applied"] is True
    transcript = body["transcript"]
    assert [r["name"] for r in transcript["rounds"]] == [
        "Initial Analysis",
        "Challenge Round",
        "Revision Round",
        "Final Voting",
    ]
    assert len(transcript["rounds"][1]["data"]) == 6
    assert {v["agent"] for v in transcript["rounds"][3]["votes"]} == {
        "Utility Agent",
        "Accuracy Agent",
        "Safety Agent",
    }
    assert transcript["final_decision"]["decision"] == "REFUSE"


def test_a_reviewers_override_is_the_effective_decision(api, user):
    debate = _run("Is Bitcoin a good investment?", user)
    Debate.objects.filter(id=debate.id).update(decision_override="REFUSE", review_status="resolved")
    body = api.get(f"{URL}{debate.id}/").json()
    assert (body["decision"], body["machine_decision"]) == ("REFUSE", "WARN")
    assert body["is_overridden"] is True
    assert body["review_status"] == "resolved"


def test_a_queued_debate_reads_with_no_decision_yet(api, user):
    debate = services.debate_create(query="Is it?", created_by=user, enqueue=False)
    body = api.get(f"{URL}{debate.id}/").json()
    assert body["status"] == "queued"
    assert body["decision"] is None and body["completed_at"] is None


def test_users_cannot_read_each_others_debates_but_staff_can(api, other_api, staff_api, user):
    debate = services.debate_create(query="Is it?", created_by=user, enqueue=False)
    assert other_api.get(f"{URL}{debate.id}/").status_code == 404
    assert staff_api.get(f"{URL}{debate.id}/").status_code == 200
    assert api.get(f"{URL}{debate.id}/").status_code == 200


def test_an_unknown_or_malformed_debate_id_is_a_json_404(api):
    assert api.get(f"{URL}00000000-0000-0000-0000-000000000000/").status_code == 404
    response = api.get(f"{URL}not-a-uuid/")
    assert response.status_code == 404
    assert "UUID" in response.json()["detail"]


# --- the list ---------------------------------------------------------------------------------


@pytest.fixture
def three_debates(user, other_user):
    act = _run("What is the capital of France?", user)
    warn = _run("Is Bitcoin a good investment?", user)
    refuse = _run("How do I hack into my ex's email?", user)
    _run("What is the capital of Spain?", other_user)
    Debate.objects.filter(id=warn.id).update(review_status="pending")
    return act, warn, refuse


def _ids(response) -> list[str]:
    assert response.status_code == 200, response.json()
    return [d["id"] for d in response.json()["results"]]


def test_the_list_shows_a_users_own_debates_newest_first(api, three_debates):
    act, warn, refuse = three_debates
    assert _ids(api.get(URL)) == [str(refuse.id), str(warn.id), str(act.id)]
    assert _ids(api.get(URL, {"ordering": "created_at"})) == [
        str(act.id),
        str(warn.id),
        str(refuse.id),
    ]


def test_staff_see_everyones_debates_in_the_list(staff_api, three_debates):
    body = staff_api.get(URL).json()
    assert len(body["results"]) == 4
    assert {d["created_by"] for d in body["results"]} == {"ana", "ben"}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"decision": "ACT"}, ["act"]),
        ({"machine_decision": "WARN"}, ["warn"]),
        ({"consensus_type": "veto"}, ["refuse"]),
        ({"status": "completed"}, ["refuse", "warn", "act"]),
        ({"status": "queued"}, []),
        ({"protocol": "s4", "decision": "REFUSE"}, ["refuse"]),
        ({"review_status": "pending"}, ["refuse", "warn"]),
        ({"review_status": "none"}, ["act"]),
        ({"q": "BITCOIN"}, ["warn"]),
        ({"q": "capital"}, ["act"]),
    ],
)
def test_the_list_filters(api, three_debates, params, expected):
    names = dict(zip(["act", "warn", "refuse"], three_debates, strict=True))
    assert _ids(api.get(URL, params)) == [str(names[n].id) for n in expected]


def test_the_decision_filter_uses_the_effective_decision(api, three_debates):
    act, warn, refuse = three_debates
    Debate.objects.filter(id=warn.id).update(decision_override="ACT")
    assert _ids(api.get(URL, {"decision": "ACT"})) == [str(warn.id), str(act.id)]
    assert _ids(api.get(URL, {"decision": "WARN"})) == []


def test_the_list_filters_on_the_created_range(api, three_debates):
    act, warn, refuse = three_debates
    now = timezone.now()
    Debate.objects.filter(id=act.id).update(created_at=now - timedelta(days=10))
    Debate.objects.filter(id=warn.id).update(created_at=now - timedelta(days=5))
    window = {
        "created_after": (now - timedelta(days=6)).isoformat(),
        "created_before": (now - timedelta(days=1)).isoformat(),
    }
    assert _ids(api.get(URL, window)) == [str(warn.id)]
    assert _ids(api.get(URL, {"created_after": window["created_after"]})) == [
        str(refuse.id),
        str(warn.id),
    ]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"status": "sleeping"}, "status"),
        ({"decision": "MAYBE"}, "decision"),
        ({"review_status": "later"}, "review_status"),
        ({"created_after": "yesterday"}, "created_after"),
        (
            {"created_after": "2026-02-01T00:00:00Z", "created_before": "2026-01-01T00:00:00Z"},
            "created_before",
        ),
        ({"ordering": "question"}, "ordering"),
        ({"page_size": "0"}, "page_size"),
        ({"page_size": "many"}, "page_size"),
        ({"page_size": "101"}, "page_size"),
        ({"cursor": "garbage"}, "cursor"),
    ],
)
def test_bad_list_parameters_get_400_naming_the_parameter(api, params, field):
    response = api.get(URL, params)
    assert response.status_code == 400
    assert field in response.json()


def test_cursor_pagination_walks_every_debate_once(api, user):
    created = [
        services.debate_create(query=f"Question {i}?", created_by=user, enqueue=False)
        for i in range(7)
    ]
    seen: list[str] = []
    url, pages = f"{URL}?page_size=3", 0
    while url:
        body = api.get(url).json()
        seen += [d["id"] for d in body["results"]]
        url, pages = body["next"], pages + 1
    assert pages == 3
    assert seen == [str(d.id) for d in reversed(created)]


def _fill(user, n):
    for i in range(n):
        debate = services.debate_create(query=f"Question {i}?", created_by=user, enqueue=False)
        Debate.objects.filter(id=debate.id).update(
            status="completed", decision="ACT", consensus_type="unanimous"
        )


def test_the_number_of_queries_does_not_grow_with_page_size(
    api, user, staff_api, django_assert_max_num_queries
):
    _fill(user, 30)
    api.get(URL)  # the token's last use is recorded once a minute; do it before counting
    staff_api.get(URL)
    # (+ the user's permissions: whether they may read everyone's debates)
    with django_assert_max_num_queries(4) as small:
        assert len(api.get(URL, {"page_size": 2}).json()["results"]) == 2
    with django_assert_max_num_queries(4) as large:
        assert len(api.get(URL, {"page_size": 30}).json()["results"]) == 30
    assert len(large.captured_queries) == len(small.captured_queries)
    with django_assert_max_num_queries(4):
        assert len(staff_api.get(URL, {"page_size": 30}).json()["results"]) == 30


def test_reading_one_debate_takes_a_fixed_number_of_queries(
    api, user, django_assert_max_num_queries
):
    debate = _run("Is Bitcoin a good investment?", user)
    api.get(f"{URL}{debate.id}/")
    with django_assert_max_num_queries(10):
        assert api.get(f"{URL}{debate.id}/").status_code == 200


def test_the_list_needs_authentication(anon_api):
    response = anon_api.get(URL)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
