"""Overriding a safety veto to ACT is deliberate: the reviewer holds the item, writes a note and
confirms, by name, what the vetoing agent saw; over the API, on the page and in the admin. Every
such override is in the audit trail and counted in the metrics; with
REVIEW_VETO_OVERRIDE_APPROVAL on, it takes effect only once a second reviewer agrees."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from audit.models import AuditEntry
from debates.models import Debate
from reviews import services
from reviews.models import ReviewerVerdict, ReviewItem
from tests.api.conftest import client_for
from tests.factories import StaffFactory
from tests.reviews.conftest import VETO_REASONING, vetoed_item

pytestmark = pytest.mark.django_db

OVERRIDE = {"verdict": "override", "decision": "ACT", "note": "A parent locked out of their own"}


@pytest.fixture
def item() -> ReviewItem:
    return vetoed_item()


@pytest.fixture
def operator():
    return StaffFactory(username="olga")


@pytest.fixture
def second_operator():
    return StaffFactory(username="pavel")


def _resolve_url(item) -> str:
    return f"/api/v1/reviews/{item.pk}/resolve/"


def _unchanged(item) -> None:
    item.refresh_from_db()
    debate = Debate.objects.get(pk=item.debate_id)
    assert (item.status, item.verdict, debate.effective_decision) == ("open", "", "REFUSE")
    assert not ReviewerVerdict.objects.filter(item=item).exists()
    assert not AuditEntry.objects.filter(action="review.veto_override").exists()


def test_the_api_says_what_is_missing_to_override_a_veto(item, operator):
    api = client_for(operator)
    response = api.post(_resolve_url(item), OVERRIDE, format="json")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"claim", "confirm_veto_override"}
    assert "Claim review item" in body["claim"][0]
    confirm = body["confirm_veto_override"][0]
    assert "Safety Agent vetoed this debate at risk 90" in confirm
    assert "unauthorised access" in confirm
    assert '"confirm_veto_override": true' in confirm
    _unchanged(item)

    # claimed, still unconfirmed: only the confirmation is missing
    assert api.post(f"/api/v1/reviews/{item.pk}/claim/").status_code == 200
    response = api.post(_resolve_url(item), OVERRIDE, format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"confirm_veto_override"}
    # confirmed but no note: the note is missing
    response = api.post(
        _resolve_url(item), {**OVERRIDE, "note": "", "confirm_veto_override": True}, format="json"
    )
    assert response.status_code == 400
    assert "note" in response.json()
    # "yes" is not a confirmation
    response = api.post(
        _resolve_url(item), {**OVERRIDE, "confirm_veto_override": "yes"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["confirm_veto_override"] == ["Expected true or false, got str."]
    item.refresh_from_db()
    assert (item.status, item.verdict) == ("claimed", "")


def test_a_claimed_confirmed_override_takes_effect_is_audited_counted_and_reviewed_again(
    item, operator, client, fresh_metrics
):
    api = client_for(operator)
    api.post(f"/api/v1/reviews/{item.pk}/claim/")
    response = api.post(
        _resolve_url(item), {**OVERRIDE, "confirm_veto_override": True}, format="json"
    )
    assert response.status_code == 200, response.json()
    # in effect at once, and reviewed again by a second reviewer (every veto override is)
    assert (response.json()["status"], response.json()["stage"]) == ("open", "second")
    debate = Debate.objects.get(pk=item.debate_id)
    assert (debate.decision, debate.effective_decision, debate.review_status) == (
        "REFUSE",
        "ACT",
        "pending",
    )
    [entry] = AuditEntry.objects.filter(action="review.veto_override")
    assert entry.actor_name == "olga"
    assert entry.changes["decision"] == {"from": "REFUSE", "to": "ACT"}
    assert entry.changes["takes_effect"]["to"] is True
    assert VETO_REASONING in entry.note and OVERRIDE["note"] in entry.note
    [given] = ReviewerVerdict.objects.filter(item=item)
    assert (given.reviewer, given.verdict, given.decision, given.veto_override) == (
        operator,
        "override",
        "ACT",
        True,
    )
    client.force_login(operator)
    metrics = client.get("/metrics").content.decode()
    assert 'debates_review_veto_overrides_total{status="open"} 1.0' in metrics


def test_upholding_or_overriding_to_warn_needs_no_confirmation(item, operator):
    api = client_for(operator)
    response = api.post(
        _resolve_url(item), {"verdict": "override", "decision": "WARN", "note": "Warn"}, "json"
    )
    assert response.status_code == 200
    assert not AuditEntry.objects.filter(action="review.veto_override").exists()


def test_a_reviewer_without_the_operator_role_may_not_override_a_veto(item):
    reviewer = StaffFactory(username="rita", roles=["Reviewer"])
    api = client_for(reviewer)
    api.post(f"/api/v1/reviews/{item.pk}/claim/")
    response = api.post(
        _resolve_url(item), {**OVERRIDE, "confirm_veto_override": True}, format="json"
    )
    assert response.status_code == 403
    assert "reviews.override_safety_veto" in response.json()["detail"]


def test_with_approval_on_a_veto_override_waits_for_a_second_reviewer(
    item, operator, second_operator, settings
):
    settings.REVIEW_VETO_OVERRIDE_APPROVAL = True
    services.review_claim(item_id=item.pk, user=operator)
    services.review_resolve(item_id=item.pk, user=operator, confirm_veto_override=True, **OVERRIDE)
    item.refresh_from_db()
    debate = Debate.objects.get(pk=item.debate_id)
    assert (item.status, item.stage, item.assignee, item.verdict) == ("open", "second", None, "")
    assert (debate.effective_decision, debate.review_status) == ("REFUSE", "pending")
    [entry] = AuditEntry.objects.filter(action="review.veto_override")
    assert entry.changes["takes_effect"]["to"] is False
    # the first reviewer cannot give the second review
    with pytest.raises(services.ReviewConflict, match="another reviewer"):
        services.review_claim(item_id=item.pk, user=operator)
    # the second reviewer must hold the item, then confirms too
    with pytest.raises(services.ReviewConflict, match="claim it first"):
        services.review_resolve(
            item_id=item.pk, user=second_operator, confirm_veto_override=True, **OVERRIDE
        )
    services.review_claim(item_id=item.pk, user=second_operator)
    services.review_resolve(
        item_id=item.pk,
        user=second_operator,
        confirm_veto_override=True,
        **{**OVERRIDE, "note": "Agreed"},
    )
    item.refresh_from_db()
    debate.refresh_from_db()
    assert (item.status, item.verdict, item.decision_override, item.assignee) == (
        "resolved",
        "override",
        "ACT",
        second_operator,
    )
    assert (debate.effective_decision, debate.review_status) == ("ACT", "resolved")
    assert list(item.verdicts.values_list("stage", "reviewer__username")) == [
        ("first", "olga"),
        ("second", "pavel"),
    ]


def test_with_approval_on_a_second_reviewer_who_disagrees_sends_it_to_adjudication(
    item, operator, second_operator, settings
):
    settings.REVIEW_VETO_OVERRIDE_APPROVAL = True
    third = StaffFactory(username="quinn")
    services.review_claim(item_id=item.pk, user=operator)
    services.review_resolve(item_id=item.pk, user=operator, confirm_veto_override=True, **OVERRIDE)
    services.review_claim(item_id=item.pk, user=second_operator)
    services.review_resolve(
        item_id=item.pk, user=second_operator, verdict="uphold", note="The veto is right"
    )
    item.refresh_from_db()
    assert (item.status, item.stage) == ("open", "adjudication")
    assert Debate.objects.get(pk=item.debate_id).effective_decision == "REFUSE"
    for reviewer in (operator, second_operator):
        with pytest.raises(services.ReviewConflict, match="another reviewer"):
            services.review_claim(item_id=item.pk, user=reviewer)
    with pytest.raises(services.ReviewConflict, match="awaits its adjudication"):
        services.review_dismiss(item_id=item.pk, user=third, note="meh")
    services.review_claim(item_id=item.pk, user=third)
    services.review_resolve(item_id=item.pk, user=third, verdict="uphold", note="Veto stands")
    item.refresh_from_db()
    assert (item.status, item.verdict, item.assignee) == ("resolved", "uphold", third)
    assert Debate.objects.get(pk=item.debate_id).review_status == "resolved"


def test_the_page_asks_for_a_claim_then_a_separate_confirmation(item, operator, client):
    client.force_login(operator)
    url = f"/reviews/{item.pk}/resolve/"
    page = client.get(f"/reviews/{item.pk}/").content.decode()
    assert 'data-testid="veto-warning"' in page
    response = client.post(url, OVERRIDE)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="veto-confirm"' in page and escape(VETO_REASONING) in page
    assert 'data-testid="veto-claim-first"' in page and 'id="veto-confirm-form"' not in page
    _unchanged(item)

    client.post(f"/reviews/{item.pk}/claim/")
    response = client.post(url, OVERRIDE)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="veto-confirm-form"' in page and "data-no-shortcut-submit" in page
    assert "A parent locked out of their own</textarea>" in page
    item.refresh_from_db()
    assert item.verdict == ""

    response = client.post(url, {**OVERRIDE, "confirm_veto_override": "on"})
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.status, item.stage) == ("open", "second")
    assert Debate.objects.get(pk=item.debate_id).effective_decision == "ACT"


def test_the_admins_bulk_override_leaves_a_veto_as_it_is(item, operator, client):
    client.force_login(operator)
    response = client.post(
        "/admin/reviews/reviewitem/",
        {
            "action": "resolve_override",
            "_selected_action": [item.pk],
            "apply": "1",
            "decision": "ACT",
            "note": "bulk",
        },
        follow=True,
    )
    assert "overridden to ACT only on the item&#x27;s review page" in response.content.decode()
    _unchanged(item)


def test_the_second_reviewer_does_not_see_the_first_review_until_giving_theirs(
    item, operator, second_operator, settings, client
):
    settings.REVIEW_VETO_OVERRIDE_APPROVAL = True
    services.review_claim(item_id=item.pk, user=operator)
    services.review_resolve(item_id=item.pk, user=operator, confirm_veto_override=True, **OVERRIDE)

    def reviewed_event(user):
        events = client_for(user).get(f"/api/v1/reviews/{item.pk}/").json()["events"]
        [event] = [e for e in events if e["action"] == "reviewed"]
        return event

    seen_by_first = reviewed_event(operator)
    assert (seen_by_first["data"]["verdict"], seen_by_first["note"]) == (
        "override",
        OVERRIDE["note"],
    )
    hidden = reviewed_event(second_operator)
    assert hidden["note"] == "" and hidden["data"] == {
        "stage": "first",
        "awaits": "second",
        "withheld": True,
    }
    client.force_login(second_operator)
    page = client.get(f"/reviews/{item.pk}/").content.decode()
    assert OVERRIDE["note"] not in page and "shows once you give yours" in page
    assert 'data-testid="item-stage"' in page
