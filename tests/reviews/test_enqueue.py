"""Outcomes that need a human land in the queue when the debate completes, once per reason."""

from __future__ import annotations

from unittest import mock

import pytest

from debates import running, services
from debates.models import Debate, Vote
from debates.reviewing.items import review_items_for_debate
from debates.tasks import run_debate
from reviews.models import ReviewEvent, ReviewItem
from tests.conftest import wait_for
from tests.reviews.conftest import (
    CLEAN,
    INJECTION,
    SPLIT,
    VETO,
    completed_debate,
    high_risk_dissent_metadata,
    run_offline,
)
from tests.support.threads import at_once


def _items(debate) -> dict[str, ReviewItem]:
    """Each reason raised, and the item that lists it."""
    return {r: i for i in ReviewItem.objects.filter(debate=debate) for r in i.reasons}


def _details(item: ReviewItem, reason: str) -> dict:
    return (item.details.get("by_reason") or {reason: item.details})[reason]


def test_a_split_vote_is_queued_when_the_debate_completes(default_agents):
    debate = run_offline(SPLIT)
    items = _items(debate)
    assert debate.decision == "WARN"
    assert set(items) == {"split_vote", "low_confidence"}
    split = items["split_vote"]
    assert items["low_confidence"] == split  # one item for both reasons
    assert split.reasons == ["split_vote", "low_confidence"]
    assert (split.status, split.priority, split.assignee) == ("open", 54, None)
    assert split.summary.startswith("Split vote: 1 ACT, 1 WARN, 1 REFUSE · Average confidence")
    assert split.details["summaries"]["split_vote"] == "Split vote: 1 ACT, 1 WARN, 1 REFUSE"
    assert debate.review_status == Debate.ReviewStatus.PENDING
    created = ReviewEvent.objects.get(item=split)
    assert (created.action, created.actor, created.to_status) == ("created", None, "open")


def test_a_safety_veto_is_queued_first_in_line(default_agents):
    debate = run_offline(VETO)
    [item] = ReviewItem.objects.filter(debate=debate)
    assert debate.decision == "REFUSE"
    assert (item.reason, item.priority) == ("safety_veto", 89)
    assert item.summary == "VETO by Safety Agent (risk 90)"


def test_a_suspected_prompt_injection_is_queued(default_agents):
    debate = run_offline(INJECTION)
    item = _items(debate)["prompt_injection"]
    assert "instruction_override" in item.summary
    assert _details(item, "prompt_injection")["kinds"] == sorted(
        {f["kind"] for f in debate.injection_findings}
    )


def test_an_unparseable_reply_is_queued_as_a_parse_failure(default_agents):
    debate = run_offline(CLEAN, replies={"Accuracy Agent": "I'd rather not say."})
    item = _items(debate)["parse_failure"]
    assert item.details == {"calls": ["r1:accuracy"]}
    assert "fail-safe REFUSE" in item.summary


def test_a_clean_unanimous_outcome_is_not_queued(default_agents):
    debate = run_offline(CLEAN)
    assert debate.decision == "ACT"
    assert not ReviewItem.objects.filter(debate=debate).exists()
    assert debate.review_status == ""


def test_an_outvoted_high_risk_assessment_is_queued(db):
    debate = completed_debate(decision="ACT", metadata=high_risk_dissent_metadata())
    [item] = review_items_for_debate(debate=debate)
    assert (item.reason, item.priority) == ("high_risk_dissent", 88)


def test_reasons_a_protocol_raises_in_its_metadata_are_queued(db):
    debate = completed_debate(
        metadata={
            "max_risk": 20,
            "review_reasons": ["uncertain", "no_consensus", "flag_for_review"],
        }
    )
    [created] = review_items_for_debate(debate=debate)
    assert created.reasons == ["flag_for_review", "no_consensus", "uncertain"]  # most urgent first
    assert created.priority == 62


def test_only_the_reasons_the_setting_names_are_queued(default_agents, settings):
    settings.REVIEW_ENQUEUE_REASONS = ["safety_veto"]
    split = run_offline(SPLIT)
    veto = run_offline(VETO)
    assert not ReviewItem.objects.filter(debate=split).exists()
    assert split.review_status == ""
    assert list(ReviewItem.objects.filter(debate=veto).values_list("reason", flat=True)) == [
        "safety_veto"
    ]


def test_running_the_debate_or_the_enqueue_again_never_duplicates(split_debate):
    before = sorted(ReviewItem.objects.values_list("id", "reason"))
    assert running.debate_run(debate_id=split_debate.id) is None  # already completed
    assert review_items_for_debate(debate=split_debate) == []
    assert review_items_for_debate(debate=split_debate.id) == []
    assert sorted(ReviewItem.objects.values_list("id", "reason")) == before
    assert ReviewEvent.objects.count() == len(before)


def test_a_reason_already_reviewed_is_not_raised_again(split_debate, staff):
    from reviews import services as review_services

    item = ReviewItem.objects.get(debate=split_debate, reason="split_vote")
    review_services.review_dismiss(item_id=item.id, user=staff, note="seen it")
    assert review_items_for_debate(debate=split_debate) == []
    assert ReviewItem.objects.filter(debate=split_debate, reason="split_vote").count() == 1


def test_a_debate_that_has_not_completed_is_not_queued(default_agents):
    debate = services.debate_create(query=SPLIT, enqueue=False)
    assert review_items_for_debate(debate=debate) == []


def _item_unavailable(*args, **kwargs):
    raise RuntimeError("queue unavailable")


def _item_refused_by_the_database(debate_id, flags, *, at):
    from debates import one_statement

    # The statement that completes the debate fails on its item part (division by zero).
    return [one_statement.Part("ri", "SELECT (1 / (SELECT 0))::bigint AS id", [])]


@pytest.mark.parametrize("failure", [_item_unavailable, _item_refused_by_the_database])
def test_the_decision_and_its_review_items_are_stored_together_or_not_at_all(
    default_agents, failure
):
    debate = services.debate_create(query=SPLIT, enqueue=False)
    with mock.patch("debates.storage.outcome_item_parts", side_effect=failure):
        running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert debate.decision == ""
    assert not Vote.objects.filter(debate=debate).exists()
    # None of the decision's items (split vote ...): only the failure's own.
    assert list(ReviewItem.objects.values_list("reason", flat=True)) == ["debate_failed"]


@pytest.mark.django_db(transaction=True)
def test_two_enqueues_of_the_same_debate_at_once_create_each_item_once():
    debate = completed_debate(
        metadata={
            "consensus_type": "split",
            "veto_applied": True,
            "low_confidence_warning": True,
        }
    )
    created = at_once(*[lambda: review_items_for_debate(debate=debate.id)] * 2)
    assert sorted(len(c) for c in created) == [0, 1]
    [item] = ReviewItem.objects.filter(debate=debate)
    assert item.reasons == ["safety_veto", "split_vote", "low_confidence"]
    assert ReviewEvent.objects.filter(item__debate=debate).count() == 1


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_a_debate_task_delivered_twice_at_once_queues_each_reason_once(
    celery_worker_process, default_agents
):
    debate = services.debate_create(query=SPLIT)
    run_debate.delay(str(debate.id))  # a second delivery of the same task, concurrently

    def finished():
        d = Debate.objects.get(id=debate.id)
        return d if d.is_finished else None

    done = wait_for(finished, timeout=60)
    assert done.status == Debate.Status.COMPLETED
    assert done.review_status == Debate.ReviewStatus.PENDING
    # Items are only ever created while completing, so once completed the set is final.
    [reasons] = ReviewItem.objects.filter(debate=debate).values_list("reasons", flat=True)
    assert reasons == ["split_vote", "low_confidence"]


def test_a_misspelt_reason_in_the_setting_fails_the_system_check(settings):
    from reviews.checks import check_enqueue_reasons

    settings.REVIEW_ENQUEUE_REASONS = ["safety_veto", "split_votes"]
    [error] = check_enqueue_reasons()
    assert error.id == "reviews.E001"
    assert "split_votes" in error.msg and "split_vote" in error.hint
    settings.REVIEW_ENQUEUE_REASONS = ["safety_veto"]
    assert check_enqueue_reasons() == []


def test_a_reason_raised_while_the_debates_item_is_open_joins_that_item(db):
    from reviews import queueing, triage

    debate = completed_debate(metadata={"consensus_type": "split", "max_risk": 40})
    [item] = review_items_for_debate(debate=debate)
    assert item.reasons == ["split_vote"]
    veto = triage.Flag("safety_veto", 84, "VETO by Safety Agent (risk 40)", {"veto_risk": 40})
    assert queueing.items_open("debate", [(debate.id, veto)]) == []
    item.refresh_from_db()
    assert (item.reason, item.reasons, item.priority) == (
        "safety_veto",
        ["safety_veto", "split_vote"],
        84,
    )
    assert item.summary.startswith("VETO by Safety Agent (risk 40) · Split vote")
    assert ReviewItem.objects.filter(debate=debate).count() == 1
