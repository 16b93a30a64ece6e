"""Failed debates go to the review queue, and an analyst re-runs them from what is stored: the
services, against the real PostgreSQL and Redis (the run itself in-process)."""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from agents import gateway
from debates import running, services
from debates.models import Debate, LLMCall, Statement
from reviews import services as reviews
from reviews.models import ReviewEvent, ReviewItem
from tests.factories import with_roles
from tests.recovery.test_sweeper import _messages
from tests.reviews.conftest import (
    PROVIDER_ERROR,
    SPLIT,
    failed_debate,
    llm_failing_at,
    run_offline,
)
from tests.support.threads import at_once

FAILED_ERROR = f"The language model failed (permanent): {PROVIDER_ERROR}"


@pytest.fixture
def staff(django_user_model):
    return with_roles(
        django_user_model.objects.create_user("alice", password="pw-alice-long", is_staff=True)
    )


@pytest.fixture
def other_staff(django_user_model):
    return with_roles(
        django_user_model.objects.create_user("bob", password="pw-bob-long", is_staff=True)
    )


def test_a_debate_that_fails_for_good_is_queued_for_review_with_its_error(default_agents):
    debate = failed_debate()
    assert (debate.status, debate.error) == (Debate.Status.FAILED, FAILED_ERROR)
    assert debate.review_status == Debate.ReviewStatus.PENDING
    [item] = ReviewItem.objects.filter(debate=debate)
    assert (item.reason, item.status, item.summary) == ("debate_failed", "open", FAILED_ERROR)
    # Round 1 was stored before the failure: its highest risk ranks the item.
    risk = max(Statement.objects.filter(debate=debate).values_list("risk", flat=True))
    assert item.priority == 70 + risk // 10
    assert item.details == {"error": FAILED_ERROR, "attempts": 1, "recoveries": 0, "max_risk": risk}
    assert list(item.events.values_list("action", "actor")) == [("created", None)]


def test_failing_a_debate_twice_queues_it_once(default_agents):
    debate = services.debate_create(query=SPLIT, enqueue=False)
    assert running.debate_fail(debate_id=debate.id, error="first") is True
    assert running.debate_fail(debate_id=debate.id, error="second") is False
    item = ReviewItem.objects.get(debate=debate)
    assert (item.summary, item.priority) == ("first", 70)  # nothing stored: no risk points


def test_a_failure_is_stored_with_its_review_item_or_not_at_all(default_agents):
    debate = services.debate_create(query=SPLIT, enqueue=False)
    with mock.patch(
        "debates.running.review_item_for_failure", side_effect=RuntimeError("queue unavailable")
    ):
        with pytest.raises(RuntimeError):
            running.debate_fail(debate_id=debate.id, error="lost")
    debate.refresh_from_db()
    assert (debate.status, debate.error) == (Debate.Status.QUEUED, "")  # the sweeper's again


def test_failures_are_not_queued_when_the_reason_is_switched_off(default_agents, settings):
    settings.REVIEW_ENQUEUE_REASONS = ["split_vote"]
    debate = failed_debate()
    assert debate.status == Debate.Status.FAILED
    assert not debate.review_items.exists()
    assert debate.review_status == Debate.ReviewStatus.NONE


def test_rerunning_a_failed_debate_resumes_from_what_is_stored(
    default_agents, staff, private_queue, redis_client, django_capture_on_commit_callbacks
):
    debate = failed_debate()
    item = debate.review_items.get()
    stored = list(
        LLMCall.objects.filter(debate=debate, status=LLMCall.Status.DONE).values_list(
            "key", "prompt"
        )
    )
    assert sorted(key for key, _ in stored) == ["r1:accuracy", "r1:safety", "r1:utility"]

    with django_capture_on_commit_callbacks(execute=True):
        done = reviews.review_rerun(item_id=item.pk, user=staff, note="New API key in place.")
    assert (done.status, done.verdict, done.note, done.assignee) == (
        "resolved",
        "rerun",
        "New API key in place.",
        staff,
    )
    assert done.events.get(action="resolved").data == {
        "verdict": "rerun",
        "error": FAILED_ERROR,
        "attempts": 1,
        "recoveries": 0,
    }
    debate.refresh_from_db()
    assert (debate.status, debate.error, debate.attempts, debate.recoveries) == (
        Debate.Status.QUEUED,
        "",
        0,
        0,
    )
    assert (debate.started_at, debate.completed_at) == (None, None)
    assert _messages(redis_client, private_queue) == [
        {"task": "debates.run_debate", "args": [str(debate.id)], "kwargs": {}}
    ]

    made = []
    real = gateway.acomplete

    async def counting(**kwargs):
        made.append(kwargs["messages"])
        return await real(**kwargs)

    with mock.patch.object(gateway, "acomplete", counting):
        running.debate_run(debate_id=debate.id)  # what the worker does with the message
    debate.refresh_from_db()
    assert (debate.status, debate.decision, debate.attempts) == (Debate.Status.COMPLETED, "WARN", 1)
    assert len(made) == 9 and not [m for m in made if m in [p for _, p in stored]]
    assert LLMCall.objects.filter(debate=debate, status=LLMCall.Status.DONE).count() == 12
    # The completed debate is triaged as usual; the failure's item stays resolved.
    reasons = dict(debate.review_items.values_list("reason", "status"))
    assert reasons["debate_failed"] == "resolved" and reasons["split_vote"] == "open"
    assert debate.review_status == Debate.ReviewStatus.PENDING


def test_a_rerun_that_fails_again_queues_a_new_item(default_agents, staff):
    debate = failed_debate()
    reviews.review_rerun(item_id=debate.review_items.get().pk, user=staff)
    with llm_failing_at("challenge"):
        running.debate_run(debate_id=debate.id)
    assert list(debate.review_items.order_by("id").values_list("reason", "status", "verdict")) == [
        ("debate_failed", "resolved", "rerun"),
        ("debate_failed", "open", ""),
    ]


def test_a_rerun_clears_a_decision_an_analyst_had_set(default_agents, staff):
    debate = failed_debate()
    Debate.objects.filter(id=debate.id).update(decision_override="REFUSE")
    reviews.review_rerun(item_id=debate.review_items.get().pk, user=staff)
    debate.refresh_from_db()
    assert (debate.decision_override, debate.effective_decision) == ("", "")


def test_rerun_is_refused_while_another_analyst_holds_the_item(default_agents, staff, other_staff):
    debate = failed_debate()
    item = debate.review_items.get()
    reviews.review_claim(item_id=item.pk, user=other_staff)
    with pytest.raises(reviews.ReviewConflict, match="claimed by bob"):
        reviews.review_rerun(item_id=item.pk, user=staff)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    reviews.review_rerun(item_id=item.pk, user=other_staff)  # the holder may
    assert Debate.objects.get(id=debate.id).status == Debate.Status.QUEUED


def test_only_a_failure_can_be_rerun(default_agents, staff, django_user_model):
    member = django_user_model.objects.create_user("carol", password="pw-carol-long")
    split = ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")
    with pytest.raises(ValidationError, match="Only a failed debate or run can be re-run"):
        reviews.review_rerun(item_id=split.pk, user=staff)
    failed = failed_debate().review_items.get()
    with pytest.raises(PermissionDenied):
        reviews.review_rerun(item_id=failed.pk, user=member)


def test_a_debate_queued_again_already_is_not_rerun_twice(default_agents, staff):
    debate = failed_debate()
    item = debate.review_items.get()
    Debate.objects.filter(id=debate.id).update(status=Debate.Status.QUEUED)
    with pytest.raises(reviews.ReviewConflict, match="is queued, not failed"):
        reviews.review_rerun(item_id=item.pk, user=staff)
    assert ReviewItem.objects.get(pk=item.pk).status == "open"


@pytest.mark.django_db(transaction=True)
def test_two_analysts_rerunning_at_once_queue_the_debate_once(
    default_agents, staff, other_staff, private_queue, redis_client
):
    debate = failed_debate()
    item = debate.review_items.get()
    outcomes = at_once(
        *[lambda u=u: reviews.review_rerun(item_id=item.pk, user=u) for u in (staff, other_staff)],
        expected=(reviews.ReviewConflict,),
    )
    conflicts = [o.message for o in outcomes if isinstance(o, reviews.ReviewConflict)]
    results = [o for o in outcomes if not isinstance(o, reviews.ReviewConflict)]
    assert len(results) == 1 and len(conflicts) == 1
    assert "already resolved" in conflicts[0]
    assert ReviewEvent.objects.filter(item=item, action="resolved").count() == 1
    assert redis_client.llen(private_queue) == 1
