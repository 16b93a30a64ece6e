"""The review queue over the API: staff list, read, claim, release, resolve and dismiss items,
under the same rules as the browser queue."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from debates.models import Debate
from reviews import services
from reviews.models import ReviewEvent, ReviewItem
from tests.api.conftest import client_for
from tests.factories import with_roles
from tests.reviews.conftest import SPLIT, completed_debate, run_offline
from tests.support.threads import at_once

URL = "/api/v1/reviews/"


@pytest.fixture
def other_staff_user(django_user_model):
    return with_roles(
        django_user_model.objects.create_user("tess", password="a-long-passphrase", is_staff=True)
    )


@pytest.fixture
def split_item(default_agents) -> ReviewItem:
    """A real split-vote debate (WARN) run with the offline model, and its review item."""
    return ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")


def _item(reason: str, priority: int, **fields) -> ReviewItem:
    return ReviewItem.objects.create(
        debate=completed_debate(f"Question for {reason} {priority}?"),
        reason=reason,
        priority=priority,
        summary=f"{reason} summary",
        **fields,
    )


# --- who may ----------------------------------------------------------------------------------

ENDPOINTS = [
    ("get", "", None),
    ("get", "{id}/", None),
    ("post", "{id}/claim/", {}),
    ("post", "{id}/release/", {}),
    ("post", "{id}/resolve/", {"verdict": "uphold", "note": "fine"}),
    ("post", "{id}/dismiss/", {"note": "false alarm"}),
]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    ENDPOINTS,
    ids=["list", "read", "claim", "release", "resolve", "dismiss"],
)
def test_only_staff_reach_the_review_endpoints(method, path, body, anon_api, api, staff_api, user):
    item = _item("split_vote", 55)
    url = URL + path.format(id=item.pk)
    call = {"get": lambda c: c.get(url), "post": lambda c: c.post(url, body, format="json")}
    anonymous = call[method](anon_api)
    assert anonymous.status_code == 401
    assert anonymous["WWW-Authenticate"] == "Bearer"
    member = call[method](api)
    assert member.status_code == 403
    assert "Reviewer role" in member.json()["detail"]
    item.refresh_from_db()
    assert (item.status, item.assignee) == ("open", None)  # nothing changed for them
    staff = call[method](staff_api)
    assert staff.status_code in (200, 409)  # release of an unclaimed item is a conflict


# --- the list ---------------------------------------------------------------------------------


def test_the_queue_lists_active_items_most_urgent_then_oldest(staff_api, staff_user):
    low = _item("low_confidence", 35)
    veto = _item("safety_veto", 88)
    split_old = _item("split_vote", 55)
    split_new = _item("split_vote", 55)
    _item("split_vote", 99, status="dismissed", assignee=staff_user, closed_at=split_new.created_at)

    body = staff_api.get(URL).json()
    assert body["count"] == 4
    assert [r["id"] for r in body["results"]] == [veto.pk, split_old.pk, split_new.pk, low.pk]
    first = body["results"][0]
    assert first["reason"] == "safety_veto" and first["reason_label"] == "Safety veto"
    assert (first["status"], first["priority"], first["assignee"]) == ("open", 88, None)
    assert first["url"] == f"http://testserver{URL}{veto.pk}/"
    assert first["debate"]["question"] == "Question for safety_veto 88?"
    assert first["debate"]["url"] == f"http://testserver/api/v1/debates/{veto.debate_id}/"
    assert (first["debate"]["decision"], first["debate"]["machine_decision"]) == ("WARN", "WARN")


def test_the_queue_filters_by_reason_status_and_assignee(staff_api, staff_user, other_staff_user):
    mine = _item("split_vote", 55, status="claimed", assignee=staff_user)
    theirs = _item("split_vote", 54, status="claimed", assignee=other_staff_user)
    unassigned = _item("low_confidence", 30)
    closed = _item(
        "safety_veto",
        90,
        status="resolved",
        verdict="uphold",
        assignee=staff_user,
        closed_at=mine.created_at,
    )

    def ids(**params):
        response = staff_api.get(URL, params)
        assert response.status_code == 200, response.json()
        return [r["id"] for r in response.json()["results"]]

    assert ids(reason="split_vote") == [mine.pk, theirs.pk]
    assert ids(assignee="me") == [mine.pk]
    assert ids(assignee="none") == [unassigned.pk]
    assert ids(assignee="tess") == [theirs.pk]
    assert ids(status="claimed") == [mine.pk, theirs.pk]
    assert ids(status="resolved") == [closed.pk]
    assert ids(status="all", assignee="me") == [closed.pk, mine.pk]


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"assignee": "nobody-here"}, "assignee", "No user is called 'nobody-here'"),
        ({"reason": "boredom"}, "reason", "not a valid choice"),
        ({"status": "forgotten"}, "status", "not a valid choice"),
        ({"page_size": "500"}, "page_size", "less than or equal to 100"),
        ({"page": "7"}, "page", "There is only 1 page of items"),
    ],
)
def test_bad_queue_filters_get_a_400_naming_the_field(staff_api, params, field, message):
    _item("split_vote", 55)
    response = staff_api.get(URL, params)
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])


def test_the_queue_pages_in_the_same_number_of_queries_whatever_the_page_size(staff_api):
    for n in range(60):
        _item("split_vote" if n % 2 else "low_confidence", 30 + n % 40)

    def queries(**params) -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = staff_api.get(URL, params)
        assert response.status_code == 200
        return len(ctx.captured_queries)

    first = staff_api.get(URL, {"page_size": 25}).json()
    assert (first["count"], len(first["results"])) == (60, 25)
    assert first["next"].endswith("page=2&page_size=25")
    last = staff_api.get(URL, {"page_size": 25, "page": 3}).json()
    assert len(last["results"]) == 10 and last["next"] is None
    # the token, the user's permissions, the count, the page; naming an assignee adds looking
    # them up
    assert queries(page_size=1) == queries(page_size=100) <= 5
    assert queries(page_size=1, assignee="sam") == queries(page_size=100, assignee="sam") <= 5


# --- one item ---------------------------------------------------------------------------------


def test_an_item_reads_with_its_history_debate_summary_and_siblings(
    staff_api, split_item, staff_user
):
    services.review_claim(item_id=split_item.pk, user=staff_user)
    body = staff_api.get(f"{URL}{split_item.pk}/").json()

    assert (body["reason"], body["status"], body["assignee"]) == ("split_vote", "claimed", "sam")
    assert [
        (e["action"], e["actor"], e["from_status"], e["to_status"]) for e in body["events"]
    ] == [("created", None, None, "open"), ("claimed", "sam", "open", "claimed")]
    debate = body["debate"]
    assert debate["question"] == SPLIT
    assert (debate["status"], debate["decision"], debate["review_status"]) == (
        "completed",
        "WARN",
        "pending",
    )
    assert debate["votes"] == {"ACT": 1, "WARN": 1, "REFUSE": 1}
    assert debate["allowed_decisions"] == ["ACT", "REFUSE"]
    assert debate["reasoning"]
    # one item for both of the debate's reasons, most urgent first
    assert [(r["reason"], r["label"]) for r in body["reasons"]] == [
        ("split_vote", "Split vote"),
        ("low_confidence", "Low confidence"),
    ]
    assert body["reasons"][0]["summary"].startswith("Split vote: 1 ACT, 1 WARN, 1 REFUSE")
    assert body["reasons"][1]["summary"].startswith("Average confidence")
    assert body["other_items"] == []
    full = staff_api.get(debate["url"])
    assert full.status_code == 200 and full.json()["id"] == str(split_item.debate_id)


@pytest.mark.parametrize("pk", ["999999", "99999999999999999999999"])
def test_an_unknown_item_is_a_json_404(staff_api, db, pk):
    for response in (
        staff_api.get(f"{URL}{pk}/"),
        staff_api.post(f"{URL}{pk}/claim/", {}, format="json"),
    ):
        assert response.status_code == 404
        assert "no review item" in response.json()["detail"]


# --- actions ----------------------------------------------------------------------------------


def test_claim_then_release_hands_the_item_back(staff_api, split_item):
    claimed = staff_api.post(f"{URL}{split_item.pk}/claim/", format="json")
    assert claimed.status_code == 200
    assert (claimed.json()["status"], claimed.json()["assignee"]) == ("claimed", "sam")
    released = staff_api.post(
        f"{URL}{split_item.pk}/release/", {"note": "out of my depth"}, format="json"
    )
    assert released.status_code == 200
    assert (released.json()["status"], released.json()["assignee"]) == ("open", None)
    assert released.json()["events"][-1]["note"] == "out of my depth"


def test_someone_elses_claim_is_a_409_saying_who_and_changes_nothing(
    staff_api, split_item, other_staff_user
):
    services.review_claim(item_id=split_item.pk, user=other_staff_user)
    for path, body in (
        ("claim/", {}),
        ("release/", {}),
        ("resolve/", {"verdict": "uphold", "note": "fine"}),
        ("dismiss/", {"note": "no"}),
    ):
        response = staff_api.post(f"{URL}{split_item.pk}/{path}", body, format="json")
        assert response.status_code == 409, path
        assert "claimed by tess" in response.json()["detail"]
    split_item.refresh_from_db()
    assert (split_item.status, split_item.assignee) == ("claimed", other_staff_user)


def test_an_override_becomes_the_debates_effective_decision(staff_api, split_item):
    response = staff_api.post(
        f"{URL}{split_item.pk}/resolve/",
        {"verdict": "override", "decision": "refuse", "note": "Reads as investment advice."},
        format="json",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["status"], body["verdict"], body["decision_override"]) == (
        "resolved",
        "override",
        "REFUSE",
    )
    assert body["note"] == "Reads as investment advice."
    assert (body["debate"]["decision"], body["debate"]["machine_decision"]) == ("REFUSE", "WARN")
    debate = staff_api.get(body["debate"]["url"]).json()
    assert (debate["decision"], debate["machine_decision"], debate["is_overridden"]) == (
        "REFUSE",
        "WARN",
        True,
    )
    again = staff_api.post(
        f"{URL}{split_item.pk}/resolve/",
        {"verdict": "uphold", "note": "second thoughts"},
        format="json",
    )
    assert again.status_code == 409
    assert "already resolved by sam" in again.json()["detail"]


def test_dismissing_closes_the_item_with_the_note(staff_api, split_item):
    response = staff_api.post(
        f"{URL}{split_item.pk}/dismiss/", {"note": "false alarm"}, format="json"
    )
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["note"]) == ("dismissed", "false alarm")
    assert ReviewEvent.objects.filter(item=split_item).last().action == "dismissed"


@pytest.mark.parametrize(
    ("path", "body", "field", "message"),
    [
        ("resolve/", {"verdict": "uphold"}, "note", "A note is required to resolve"),
        ("resolve/", {"verdict": "uphold", "note": "   "}, "note", "A note is required"),
        ("resolve/", {"note": "x"}, "verdict", "Choose a verdict"),
        ("resolve/", {"verdict": "maybe", "note": "x"}, "verdict", "not a verdict"),
        (
            "resolve/",
            {"verdict": "override", "note": "x"},
            "decision",
            "Choose the decision that replaces WARN: one of ACT, REFUSE",
        ),
        (
            "resolve/",
            {"verdict": "override", "decision": "BUY", "note": "x"},
            "decision",
            "one of ACT, REFUSE",
        ),
        (
            "resolve/",
            {"verdict": "override", "decision": "WARN", "note": "x"},
            "decision",
            "uphold instead",
        ),
        (
            "resolve/",
            {"verdict": "uphold", "decision": "ACT", "note": "x"},
            "decision",
            "Only an override takes a decision",
        ),
        ("resolve/", {"verdict": "uphold", "note": 42}, "note", "Expected a string, got int"),
        ("dismiss/", {}, "note", "A note is required to dismiss"),
        ("dismiss/", {"note": "x" * 5001}, "note", "no more than 5000"),
        ("release/", {"note": ["a"]}, "note", "Expected a string, got list"),
    ],
)
def test_bad_action_input_gets_a_400_per_field_and_changes_nothing(
    staff_api, split_item, path, body, field, message
):
    response = staff_api.post(f"{URL}{split_item.pk}/{path}", body, format="json")
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    split_item.refresh_from_db()
    assert (split_item.status, split_item.verdict) == ("open", "")
    assert Debate.objects.get(id=split_item.debate_id).decision_override == ""
    assert list(ReviewEvent.objects.filter(item=split_item).values_list("action", flat=True)) == [
        "created"
    ]


@pytest.mark.django_db(transaction=True)
def test_two_analysts_claiming_through_the_api_at_once_exactly_one_wins(
    default_agents, staff_user, other_staff_user
):
    item = ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")
    clients = [client_for(staff_user), client_for(other_staff_user)]
    responses = at_once(
        *[lambda c=c: c.post(f"{URL}{item.pk}/claim/", format="json") for c in clients]
    )

    assert sorted(r.status_code for r in responses) == [200, 409]
    won = next(r for r in responses if r.status_code == 200).json()["assignee"]
    lost = next(r for r in responses if r.status_code == 409).json()["detail"]
    assert f"claimed by {won}" in lost
    item.refresh_from_db()
    assert item.assignee.username == won
    assert ReviewEvent.objects.filter(item=item, action="claimed").count() == 1


def test_claiming_and_overriding_are_recorded_in_the_staff_audit_trail(staff_api, split_item):
    from audit.models import AuditEntry

    assert staff_api.post(f"{URL}{split_item.pk}/claim/", {}, format="json").status_code == 200
    staff_api.post(
        f"{URL}{split_item.pk}/resolve/",
        {"verdict": "override", "decision": "refuse", "note": "Investment advice."},
        format="json",
    )
    entries = list(
        AuditEntry.objects.filter(
            subject_type="reviews.reviewitem", subject_id=str(split_item.pk)
        ).order_by("at", "pk")
    )
    assert [(e.action, e.actor_name) for e in entries] == [
        ("review.claimed", "sam"),
        ("review.resolved", "sam"),
    ]
    assert entries[1].changes["status"] == {"from": "claimed", "to": "resolved"}
    assert entries[1].note == "Investment advice."


def test_one_item_per_debate_is_found_by_any_of_its_reasons(staff_api, split_item):
    for reason in ("split_vote", "low_confidence"):
        body = staff_api.get(URL, {"reason": reason}).json()
        assert [i["id"] for i in body["results"]] == [split_item.pk]
        [listed] = body["results"]
        assert [r["reason"] for r in listed["reasons"]] == ["split_vote", "low_confidence"]
    assert staff_api.get(URL, {"reason": "safety_veto"}).json()["results"] == []
