"""Assignment: reviewers on duty get each new item, the least loaded first; nobody on duty
leaves it unassigned; assigning does not claim; others take or reassign deliberately; going off
duty hands the open items back; and routing never overrides a claim, even racing one."""

from __future__ import annotations

import pytest

from debates.reviewing.items import review_items_for_debate
from reviews import assignment, services
from reviews.models import ReviewEvent, ReviewItem
from tests.api.conftest import client_for
from tests.factories import StaffFactory
from tests.reviews.conftest import SPLIT, completed_debate, run_offline, vetoed_item
from tests.reviews.test_services import _race

SPLIT_METADATA = {"consensus_type": "split", "vote_breakdown": {"ACT": 1, "WARN": 1, "REFUSE": 1}}


def _open_items(n: int, capture) -> list[ReviewItem]:
    """`n` split-vote items opened as a debate's finish opens them when it joins reasons (the
    queue's own path), each routed as its transaction commits."""
    items = []
    for i in range(n):
        debate = completed_debate(f"Split {i}?", metadata=SPLIT_METADATA)
        with capture(execute=True):
            [item] = review_items_for_debate(debate=debate)
        item.refresh_from_db()
        items.append(item)
    return items


def _events(item) -> list[tuple]:
    return list(
        ReviewEvent.objects.filter(item=item).values_list("action", "actor__username", "data")
    )


@pytest.fixture
def reviewers(db):
    return [StaffFactory(username=name) for name in ("ana", "bea", "cy")]


def test_with_nobody_on_duty_new_items_stay_unassigned(
    reviewers, django_capture_on_commit_callbacks
):
    [item] = _open_items(1, django_capture_on_commit_callbacks)
    assert (item.status, item.assignee) == ("open", None)
    assert [e[0] for e in _events(item)] == ["created"]


def test_new_items_go_to_the_least_loaded_reviewer_on_duty_without_being_claimed(
    reviewers, django_capture_on_commit_callbacks
):
    ana, bea, cy = reviewers
    assignment.duty_set(user=ana, on_duty=True)
    assignment.duty_set(user=bea, on_duty=True)
    items = _open_items(4, django_capture_on_commit_callbacks)
    # ties go to whoever went on duty first; then each to the one with fewer open items
    assert [(i.status, i.assignee.username) for i in items] == [
        ("open", "ana"),
        ("open", "bea"),
        ("open", "ana"),
        ("open", "bea"),
    ]
    assert _events(items[0])[-1] == ("assigned", None, {"to": "ana", "by": "duty"})
    # bea resolves hers: her load drops, so the next item is hers
    services.review_resolve(item_id=items[1].pk, user=bea, verdict="uphold", note="fine")
    [fifth] = _open_items(1, django_capture_on_commit_callbacks)
    assert fifth.assignee == bea
    # cy (not on duty) is never routed anything
    assert not ReviewItem.objects.filter(assignee=cy).exists()


def test_a_debates_finish_routes_its_item_in_the_same_statement(default_agents, reviewers):
    ana = reviewers[0]
    assignment.duty_set(user=ana, on_duty=True)
    item = ReviewItem.objects.get(debate=run_offline(SPLIT))
    assert (item.status, item.assignee) == ("open", ana)
    assert [(e[0], e[2]) for e in _events(item)] == [
        ("created", {"reasons": ["split_vote", "low_confidence"]}),
        ("assigned", {"to": "ana", "by": "duty"}),
    ]


def test_an_assigned_item_is_claimed_by_its_assignee_and_taken_by_anyone_else(
    reviewers, django_capture_on_commit_callbacks
):
    ana, bea, _ = reviewers
    assignment.duty_set(user=ana, on_duty=True)
    [item] = _open_items(1, django_capture_on_commit_callbacks)
    for act in (
        lambda: services.review_claim(item_id=item.pk, user=bea),
        lambda: services.review_resolve(item_id=item.pk, user=bea, verdict="uphold", note="x"),
        lambda: services.review_dismiss(item_id=item.pk, user=bea, note="x"),
    ):
        with pytest.raises(services.ReviewConflict, match="assigned to ana; take it"):
            act()
    taken = services.review_take(item_id=item.pk, user=bea)
    assert (taken.status, taken.assignee) == ("claimed", bea)
    assert _events(item)[-1] == ("claimed", "bea", {"taken_from": "ana"})
    # a claimed item is not taken from its holder
    with pytest.raises(services.ReviewConflict, match="claimed by bea"):
        services.review_take(item_id=item.pk, user=ana)


def test_reassigning_over_the_api(reviewers, django_capture_on_commit_callbacks):
    ana, bea, cy = reviewers
    assignment.duty_set(user=ana, on_duty=True)
    [item] = _open_items(1, django_capture_on_commit_callbacks)
    api = client_for(cy)
    url = f"/api/v1/reviews/{item.pk}/assign/"
    response = api.post(url, {"assignee": "bea"}, format="json")
    assert response.status_code == 200
    assert (response.json()["assignee"], response.json()["status"]) == ("bea", "open")
    assert _events(item)[-1] == ("assigned", "cy", {"from": "ana", "to": "bea", "by": "reassign"})
    assert api.post(url, {"assignee": "nobody-here"}, format="json").status_code == 400
    outsider = StaffFactory(username="dee", roles=[])
    response = api.post(url, {"assignee": "dee"}, format="json")
    assert response.status_code == 400
    assert "cannot work the review queue" in response.json()["assignee"][0]
    assert outsider.pk
    # the list filters on the assignee
    listed = api.get("/api/v1/reviews/", {"assignee": "bea"}).json()["results"]
    assert [(i["id"], i["assignee"]) for i in listed] == [(item.pk, "bea")]
    assert api.post(url, {"assignee": None}, format="json").json()["assignee"] is None
    services.review_claim(item_id=item.pk, user=ana)
    assert api.post(url, {"assignee": "bea"}, format="json").status_code == 409
    take = client_for(bea).post(f"/api/v1/reviews/{item.pk}/take/")
    assert take.status_code == 409 and "claimed by ana" in take.json()["detail"]


def test_duty_over_the_api_and_off_duty_hands_open_items_back(
    reviewers, django_capture_on_commit_callbacks
):
    ana, bea, _ = reviewers
    api = client_for(ana)
    assert api.get("/api/v1/reviews/duty/").json() == {
        "on_duty": False,
        "since": None,
        "assigned_open": 0,
    }
    response = api.put("/api/v1/reviews/duty/", {"on_duty": "yes"}, format="json")
    assert response.status_code == 400
    assert response.json()["on_duty"] == ["Expected true or false, got str."]
    body = api.put("/api/v1/reviews/duty/", {"on_duty": True}, format="json").json()
    assert body["on_duty"] is True and body["since"]
    first, second = _open_items(2, django_capture_on_commit_callbacks)
    services.review_claim(item_id=second.pk, user=ana)
    assert api.get("/api/v1/reviews/duty/").json()["assigned_open"] == 1
    assignment.duty_set(user=bea, on_duty=True)
    with django_capture_on_commit_callbacks(execute=True):
        body = api.put("/api/v1/reviews/duty/", {"on_duty": False}, format="json").json()
    assert body == {"on_duty": False, "since": None, "assigned_open": 0}
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.assignee, second.assignee) == (bea, ana)  # the claimed one stays hers
    assert [e[:2] for e in _events(first)][-2:] == [("assigned", "ana"), ("assigned", None)]
    outsider = StaffFactory(username="eve", roles=[])
    assert (
        client_for(outsider).put("/api/v1/reviews/duty/", {"on_duty": True}, "json").status_code
        == 403
    )


def test_an_item_awaiting_a_second_review_goes_to_someone_who_has_not_reviewed_it(
    reviewers, settings, django_capture_on_commit_callbacks
):
    settings.REVIEW_VETO_OVERRIDE_APPROVAL = True
    ana, bea, _ = reviewers
    item = vetoed_item()
    assignment.duty_set(user=ana, on_duty=True)
    services.review_claim(item_id=item.pk, user=ana)
    with django_capture_on_commit_callbacks(execute=True):
        services.review_resolve(
            item_id=item.pk,
            user=ana,
            verdict="override",
            decision="ACT",
            note="ok",
            confirm_veto_override=True,
        )
    item.refresh_from_db()
    assert (item.stage, item.assignee) == ("second", None)  # only ana is on duty
    assignment.duty_set(user=bea, on_duty=True)
    assert assignment.items_assign([item.pk]) == {item.pk: bea.pk}


def test_the_queue_page_toggles_duty_and_lists_what_is_assigned_to_me(
    reviewers, client, django_capture_on_commit_callbacks
):
    ana = reviewers[0]
    client.force_login(ana)
    page = client.get("/reviews/").content.decode()
    assert "Off duty" in page and "Go on duty" in page
    client.post("/reviews/duty/", {"on_duty": "on"})
    page = client.get("/reviews/").content.decode()
    assert "On duty" in page and "Go off duty" in page
    first, second = _open_items(2, django_capture_on_commit_callbacks)
    services.review_claim(item_id=second.pk, user=ana)
    assigned = client.get("/reviews/", {"assignee": "me", "status": "open"}).content.decode()
    assert f'data-item="{first.pk}"' in assigned and f'data-item="{second.pk}"' not in assigned
    assert "Assigned to me (1)" in assigned
    mine = client.get("/reviews/", {"assignee": "me", "status": "claimed"}).content.decode()
    assert f'data-item="{second.pk}"' in mine and f'data-item="{first.pk}"' not in mine
    # another reviewer sees "Take it" instead of "Claim" on ana's item, and takes it
    bea = reviewers[1]
    client.force_login(bea)
    page = client.get(f"/reviews/{first.pk}/").content.decode()
    assert "Take it" in page and 'name="claim"' not in page
    assert "Open (assigned to ana)" in page
    client.post(f"/reviews/{first.pk}/take/")
    first.refresh_from_db()
    assert (first.status, first.assignee) == ("claimed", bea)
    client.post("/reviews/duty/", {})  # the toggle sends nothing when turning duty off
    client.force_login(ana)
    client.post("/reviews/duty/", {})
    page = client.get("/reviews/").content.decode()
    assert "Off duty" in page


@pytest.mark.django_db(transaction=True)
def test_routing_racing_a_claim_never_overrides_it(reviewers):
    ana, bea, _ = reviewers
    assignment.duty_set(user=ana, on_duty=True)
    outcomes = set()
    for i in range(8):
        debate = completed_debate(f"Race {i}?", metadata=SPLIT_METADATA)
        # opened with nobody routed yet (as inside the debate's transaction)
        item = ReviewItem.objects.create(debate=debate, reason="split_vote", reasons=["split_vote"])
        results, conflicts = _race(
            lambda pk=item.pk: assignment.items_assign([pk]),
            lambda pk=item.pk: services.review_claim(item_id=pk, user=bea),
        )
        item.refresh_from_db()
        actions = [e[0] for e in _events(item)]
        if item.status == "claimed":  # the claim came first: routing left it alone
            assert item.assignee == bea and not conflicts
            assert actions == ["claimed"] and {} in results
            outcomes.add("claim first")
        else:  # routed first: the claim was refused, saying to whom it went
            assert (item.status, item.assignee) == ("open", ana)
            assert len(conflicts) == 1 and "assigned to ana; take it" in conflicts[0]
            assert actions == ["assigned"]
            outcomes.add("routed first")
    assert outcomes  # each run ended in one of the two consistent states
