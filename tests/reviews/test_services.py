"""What analysts do to review items: claim, release, resolve, dismiss; and what the debate shows."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from debates import selectors as debate_selectors
from debates.models import Debate
from debates.transcript import render_text
from reviews import services
from reviews.models import ReviewEvent, ReviewItem
from reviews.triage import priority_for
from tests.reviews.conftest import SPLIT, run_offline
from tests.support.threads import at_once


@pytest.fixture
def split_item(split_debate) -> ReviewItem:
    return ReviewItem.objects.get(debate=split_debate, reason="split_vote")


def _events(item) -> list[tuple]:
    return list(
        ReviewEvent.objects.filter(item=item).values_list(
            "action", "actor__username", "from_status", "to_status", "note"
        )
    )


def test_claiming_assigns_the_item_to_me_and_records_it(split_item, staff):
    item = services.review_claim(item_id=split_item.id, user=staff)
    item.refresh_from_db()
    assert (item.status, item.assignee, item.claimed_at is not None) == ("claimed", staff, True)
    assert _events(item)[-1] == ("claimed", "alice", "open", "claimed", "")


def test_claiming_an_item_i_already_hold_changes_nothing(split_item, staff):
    services.review_claim(item_id=split_item.id, user=staff)
    services.review_claim(item_id=split_item.id, user=staff)
    assert [e[0] for e in _events(split_item)] == ["created", "claimed"]


def test_an_item_claimed_by_someone_else_cannot_be_claimed_resolved_or_dismissed(
    split_item, staff, other_staff
):
    services.review_claim(item_id=split_item.id, user=staff)
    for act in (
        lambda: services.review_claim(item_id=split_item.id, user=other_staff),
        lambda: services.review_resolve(
            item_id=split_item.id, user=other_staff, verdict="uphold", note="fine"
        ),
        lambda: services.review_dismiss(item_id=split_item.id, user=other_staff, note="no"),
    ):
        with pytest.raises(services.ReviewConflict, match="claimed by alice"):
            act()
    split_item.refresh_from_db()
    assert (split_item.status, split_item.assignee) == ("claimed", staff)


def test_releasing_puts_the_item_back_in_the_queue(split_item, staff, other_staff):
    services.review_claim(item_id=split_item.id, user=staff)
    with pytest.raises(services.ReviewConflict, match="only they"):
        services.review_release(item_id=split_item.id, user=other_staff)
    item = services.review_release(item_id=split_item.id, user=staff, note="out of my depth")
    assert (item.status, item.assignee, item.claimed_at) == ("open", None, None)
    assert _events(item)[-1] == ("released", "alice", "claimed", "open", "out of my depth")
    with pytest.raises(services.ReviewConflict, match="nothing to release"):
        services.review_release(item_id=split_item.id, user=staff)


def test_a_superuser_can_release_someone_elses_claim(split_item, staff, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", password="pw-boss-long")
    services.review_claim(item_id=split_item.id, user=staff)
    services.review_release(item_id=split_item.id, user=boss, note="alice is away")
    event = ReviewEvent.objects.filter(item=split_item).last()
    assert (event.actor, event.data) == (boss, {"released_from": "alice"})


def test_an_override_becomes_the_effective_decision_and_keeps_the_machines(split_item, staff):
    services.review_claim(item_id=split_item.id, user=staff)
    services.review_resolve(
        item_id=split_item.id,
        user=staff,
        verdict="override",
        decision="REFUSE",
        note="Reads as personal investment advice.",
    )
    debate = debate_selectors.debate_get(split_item.debate_id)
    split_item.refresh_from_db()
    assert (debate.decision, debate.decision_override) == ("WARN", "REFUSE")
    assert (debate.effective_decision, debate.is_overridden) == ("REFUSE", True)
    assert (split_item.status, split_item.verdict, split_item.decision_override) == (
        "resolved",
        "override",
        "REFUSE",
    )
    assert split_item.note == "Reads as personal investment advice."
    event = ReviewEvent.objects.filter(item=split_item).last()
    assert (event.action, event.actor, event.from_status, event.to_status) == (
        "resolved",
        staff,
        "claimed",
        "resolved",
    )
    assert event.data == {
        "verdict": "override",
        "decision": "REFUSE",
        "machine_decision": "WARN",
        "effective_before": "WARN",
    }
    # shown wherever the decision is shown: the export and the terminal transcript
    export = debate_selectors.debate_export(debate)["final_decision"]
    assert (export["decision"], export["effective_decision"]) == ("WARN", "REFUSE")
    assert "REVIEWER OVERRIDE: REFUSE (replaces the machine's WARN)" in render_text(debate)


def test_a_split_with_low_confidence_is_one_item_and_one_verdict(split_item, staff):
    assert ReviewItem.objects.filter(debate=split_item.debate).count() == 1
    assert (split_item.reason, split_item.reasons) == (
        "split_vote",
        ["split_vote", "low_confidence"],
    )
    # the highest: split_vote's (50 + risk points), not low_confidence's (30 + risk points)
    assert split_item.priority == priority_for("split_vote", split_item.debate.metadata["max_risk"])
    services.review_resolve(item_id=split_item.id, user=staff, verdict="uphold", note="ok")
    debate = Debate.objects.get(id=split_item.debate_id)
    assert debate.review_status == "resolved"
    assert (debate.decision_override, debate.effective_decision) == ("", "WARN")


def test_the_debate_stays_pending_until_every_item_is_closed(split_item, staff):
    failed = ReviewItem.objects.create(
        debate=split_item.debate, reason="debate_failed", reasons=["debate_failed"], priority=70
    )
    services.review_resolve(item_id=split_item.id, user=staff, verdict="uphold", note="ok")
    assert Debate.objects.get(id=split_item.debate_id).review_status == "pending"
    services.review_dismiss(item_id=failed.id, user=staff, note="it ran again since")
    debate = Debate.objects.get(id=split_item.debate_id)
    assert debate.review_status == "resolved"


def test_a_debate_whose_items_were_all_dismissed_is_marked_dismissed(split_debate, staff):
    for item in ReviewItem.objects.filter(debate=split_debate):
        services.review_dismiss(item_id=item.id, user=staff, note="false alarm")
    assert Debate.objects.get(id=split_debate.id).review_status == "dismissed"


def test_the_latest_verdict_on_a_debate_stands(split_item, staff, other_staff):
    services.review_resolve(
        item_id=split_item.id, user=staff, verdict="override", decision="REFUSE", note="too risky"
    )
    # raised again once the first verdict was given (e.g. a protocol flagged it afterwards)
    low = ReviewItem.objects.create(
        debate=split_item.debate, reason="flag_for_review", reasons=["flag_for_review"]
    )
    services.review_resolve(
        item_id=low.id, user=other_staff, verdict="uphold", note="WARN with caveats is right"
    )
    debate = Debate.objects.get(id=split_item.debate_id)
    assert (debate.effective_decision, debate.is_overridden) == ("WARN", False)
    event = ReviewEvent.objects.filter(item=low).last()
    assert event.data["effective_before"] == "REFUSE"


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"verdict": "override", "decision": "REFUSE", "note": "   "}, "note", "note is required"),
        ({"verdict": "maybe", "note": "x"}, "verdict", "uphold or override"),
        ({"verdict": "override", "decision": "MAYBE", "note": "x"}, "decision", "ACT, REFUSE"),
        ({"verdict": "override", "decision": "", "note": "x"}, "decision", "replaces WARN"),
        ({"verdict": "override", "decision": "WARN", "note": "x"}, "decision", "uphold instead"),
    ],
    ids=["blank-note", "bad-verdict", "unknown-decision", "no-decision", "same-as-machine"],
)
def test_a_bad_resolution_is_refused_with_a_message_and_changes_nothing(
    split_item, staff, kwargs, field, message
):
    with pytest.raises(ValidationError) as info:
        services.review_resolve(item_id=split_item.id, user=staff, **kwargs)
    assert message in " ".join(info.value.message_dict[field])
    split_item.refresh_from_db()
    assert split_item.status == "open"
    assert Debate.objects.get(id=split_item.debate_id).decision_override == ""
    assert [e[0] for e in _events(split_item)] == ["created"]


def test_dismissing_needs_a_note(split_item, staff):
    with pytest.raises(ValidationError, match="note is required"):
        services.review_dismiss(item_id=split_item.id, user=staff, note="")


def test_a_closed_item_cannot_be_acted_on_again(split_item, staff):
    services.review_resolve(item_id=split_item.id, user=staff, verdict="uphold", note="fine")
    with pytest.raises(services.ReviewConflict, match="already resolved by alice"):
        services.review_claim(item_id=split_item.id, user=staff)
    with pytest.raises(services.ReviewConflict, match="already resolved"):
        services.review_dismiss(item_id=split_item.id, user=staff, note="again")


def test_only_staff_may_act(split_item, member):
    with pytest.raises(PermissionDenied):
        services.review_claim(item_id=split_item.id, user=member)
    with pytest.raises(PermissionDenied):
        services.review_resolve(item_id=split_item.id, user=member, verdict="uphold", note="x")


def test_an_unknown_item_is_reported_as_missing(db, staff):
    with pytest.raises(ReviewItem.DoesNotExist):
        services.review_claim(item_id=999_999, user=staff)
    with pytest.raises(ReviewItem.DoesNotExist):
        services.review_resolve(item_id=999_999, user=staff, verdict="uphold", note="x")


# --- two analysts at once -----------------------------------------------------------------------


def _race(*actions):
    """Run the actions in threads started together; return (results, conflicts)."""
    outcomes = at_once(*actions, expected=(services.ReviewConflict,))
    conflicts = [o.message for o in outcomes if isinstance(o, services.ReviewConflict)]
    return [o for o in outcomes if not isinstance(o, services.ReviewConflict)], conflicts


@pytest.mark.django_db(transaction=True)
def test_two_analysts_claiming_at_once_exactly_one_wins(default_agents, staff, other_staff):
    item = ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")
    results, conflicts = _race(
        lambda: services.review_claim(item_id=item.id, user=staff),
        lambda: services.review_claim(item_id=item.id, user=other_staff),
    )
    item.refresh_from_db()
    assert len(results) == 1 and len(conflicts) == 1
    assert item.assignee == results[0].assignee
    loser = "bob" if item.assignee == staff else "alice"
    assert f"claimed by {item.assignee.username}" in conflicts[0]
    assert loser not in conflicts[0]
    assert ReviewEvent.objects.filter(item=item, action="claimed").count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_analysts_resolving_at_once_exactly_one_verdict_stands(
    default_agents, staff, other_staff
):
    item = ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")
    results, conflicts = _race(
        lambda: services.review_resolve(
            item_id=item.id, user=staff, verdict="override", decision="REFUSE", note="too risky"
        ),
        lambda: services.review_resolve(
            item_id=item.id, user=other_staff, verdict="override", decision="ACT", note="harmless"
        ),
    )
    assert len(results) == 1 and len(conflicts) == 1
    assert "already resolved" in conflicts[0]
    item.refresh_from_db()
    debate = Debate.objects.get(id=item.debate_id)
    assert debate.decision_override == item.decision_override == results[0].decision_override
    assert ReviewEvent.objects.filter(item=item, action="resolved").count() == 1
