"""A failed debate's (or run's) review item: what an analyst sees and may do with it, through
the services, the pages and the admin."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from contradictions import running as contradiction_running
from contradictions import services as contradiction_services
from contradictions.models import ContradictionRun
from debates.models import Debate
from reviews import services
from reviews.models import ReviewItem
from tests.contradictions.conftest import reports_of
from tests.recovery.test_sweeper import LATER_THAN_QUEUED
from tests.reviews.conftest import PROVIDER_ERROR, SPLIT, failed_debate, run_offline

QUEUE = reverse("reviews:queue")
CHANGELIST = reverse("admin:reviews_reviewitem_changelist")


@pytest.fixture
def failed_item(default_agents) -> ReviewItem:
    return failed_debate().review_items.get()


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def run_item(db) -> ReviewItem:
    """A contradiction run no worker ever took, given up by the sweeper."""
    run = contradiction_services.contradiction_run_create(
        reports=reports_of("simple"), enqueue=False
    )
    ContradictionRun.objects.filter(id=run.id).update(recoveries=settings.DEBATE_MAX_RECOVERIES)
    contradiction_running.recover_stuck_contradiction_runs(now=timezone.now() + LATER_THAN_QUEUED)
    return run.review_items.get()


# --- services -----------------------------------------------------------------------------------


def test_an_analyst_sets_the_decision_of_a_failed_debate(failed_item, staff):
    done = services.review_resolve(
        item_id=failed_item.pk,
        user=staff,
        verdict="override",
        decision="refuse",
        note="Investment advice: refuse.",
    )
    assert (done.status, done.verdict, done.decision_override) == ("resolved", "override", "REFUSE")
    debate = Debate.objects.get(id=failed_item.debate_id)
    assert (debate.status, debate.decision, debate.effective_decision) == ("failed", "", "REFUSE")
    assert debate.review_status == Debate.ReviewStatus.RESOLVED
    assert done.events.get(action="resolved").data == {
        "verdict": "override",
        "decision": "REFUSE",
        "machine_decision": "",
        "effective_before": "",
    }


@pytest.mark.parametrize(
    ("verdict", "decision", "message"),
    [
        (
            "uphold",
            "",
            "there is none to uphold: set the decision (override), re-run it, or dismiss the item",
        ),
        (
            "override",
            "MAYBE",
            "Choose the decision that the debate gets: one of ACT, WARN, REFUSE.",
        ),
    ],
    ids=["uphold", "unknown-decision"],
)
def test_a_failed_debate_gets_only_one_of_its_protocols_decisions(
    failed_item, staff, verdict, decision, message
):
    with pytest.raises(ValidationError, match=re.escape(message)):
        services.review_resolve(
            item_id=failed_item.pk, user=staff, verdict=verdict, decision=decision, note="x"
        )
    assert ReviewItem.objects.get(pk=failed_item.pk).status == "open"


def test_dismissing_a_failed_debates_item_leaves_it_failed_without_a_decision(failed_item, staff):
    services.review_dismiss(item_id=failed_item.pk, user=staff, note="Duplicate question.")
    debate = Debate.objects.get(id=failed_item.debate_id)
    assert (debate.status, debate.effective_decision, debate.review_status) == (
        "failed",
        "",
        "dismissed",
    )


# --- pages --------------------------------------------------------------------------------------


def test_the_review_page_says_why_the_debate_failed_and_what_is_stored(staff_client, failed_item):
    text = staff_client.get(reverse("reviews:item", args=[failed_item.pk])).content.decode()
    assert f"Review item #{failed_item.pk}: Debate failed" in text
    assert f"The language model failed (permanent): {PROVIDER_ERROR}" in text
    assert "none: the debate failed" in text
    assert re.search(
        r'data-testid="progress">3 LLM calls answered \(3 statements in 2 rounds\)'
        r", 6 failed</dd>",
        text,
    )
    assert "started 1 time; re-enqueued by the sweeper 0 times" in text
    for action in ("Re-run the debate", "Set the decision", "Dismiss", "Claim"):
        assert action in text
    assert "Uphold the machine" not in text  # there is no machine decision
    assert "Round 1: Initial Analysis" in text  # the transcript so far


def test_an_analyst_sets_the_decision_through_the_page(staff_client, failed_item):
    response = staff_client.post(
        reverse("reviews:resolve", args=[failed_item.pk]),
        {"decide-decision": "WARN", "decide-note": "Mixed views; warn."},
        follow=True,
    )
    assert response.redirect_chain == [(QUEUE, 302)]
    assert (
        "the debate&#x27;s decision is now WARN (set by you; the debate failed before deciding)"
        in response.content.decode()
    )
    text = staff_client.get(reverse("reviews:item", args=[failed_item.pk])).content.decode()
    assert (
        'WARN</span> <span class="override">set by a reviewer; the debate failed without a decision'
    ) in text
    assert "Resolved: set the decision WARN" in text


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"decide-note": "x"}, "Choose the decision the debate gets."),
        ({"decide-decision": "WARN"}, "A note is required"),
        ({"decide-decision": "MAYBE", "decide-note": "x"}, "Choose one of the protocol&#x27;s"),
    ],
    ids=["no-decision", "no-note", "unknown-decision"],
)
def test_a_bad_decision_form_is_a_400_saying_what_to_fix(staff_client, failed_item, data, message):
    response = staff_client.post(reverse("reviews:resolve", args=[failed_item.pk]), data)
    assert response.status_code == 400
    assert message in response.content.decode()


def test_an_analyst_reruns_a_failed_debate_through_the_page(
    staff_client, failed_item, django_capture_on_commit_callbacks
):
    with (
        mock.patch("debates.tasks.run_debate.delay") as enqueue,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = staff_client.post(
            reverse("reviews:rerun", args=[failed_item.pk]),
            {"rerun-note": "Key renewed."},
            follow=True,
        )
    enqueue.assert_called_once_with(str(failed_item.debate_id))
    assert response.redirect_chain == [(QUEUE, 302)]
    assert "it is queued again and resumes from what is stored" in response.content.decode()
    text = staff_client.get(reverse("reviews:item", args=[failed_item.pk])).content.decode()
    assert "Resolved: re-ran it" in text and "Key renewed." in text
    assert "the debate was queued again; it is queued" in text
    assert "Re-run the debate" not in text  # closed: nothing more to do


def test_rerun_is_offered_for_failures_only(staff_client, default_agents):
    split = ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")
    page = staff_client.get(reverse("reviews:item", args=[split.pk])).content.decode()
    assert "Re-run" not in page
    response = staff_client.post(reverse("reviews:rerun", args=[split.pk]))
    assert response.status_code == 400
    assert "Only a failed debate or run can be re-run" in response.content.decode()


def test_a_rerun_of_an_item_someone_else_holds_is_a_409(client, staff, other_staff, failed_item):
    services.review_claim(item_id=failed_item.pk, user=other_staff)
    client.force_login(staff)
    response = client.post(reverse("reviews:rerun", args=[failed_item.pk]))
    assert response.status_code == 409
    assert "was claimed by bob" in response.content.decode()
    assert Debate.objects.get(id=failed_item.debate_id).status == "failed"


def test_the_queue_shows_failed_debates_and_runs(staff_client, failed_item, run_item):
    text = staff_client.get(QUEUE, {"reason": "debate_failed"}).content.decode()
    assert f'<tr data-item="{failed_item.pk}">' in text and "Debate failed" in text
    assert "none: the debate failed" in text
    runs = staff_client.get(QUEUE, {"reason": "run_failed"}).content.decode()
    assert f"Contradiction run {str(run_item.contradiction_run_id)[:8]}" in runs


def test_a_failed_runs_page_offers_rerun_and_dismiss_only(staff_client, run_item):
    page = reverse("reviews:item", args=[run_item.pk])
    text = staff_client.get(page).content.decode()
    assert f"Review item #{run_item.pk}: Contradiction run failed" in text
    assert "no worker took the contradiction run" in text
    assert "nothing yet: detection had not run" in text
    assert "Re-run the contradiction run" in text and "Dismiss" in text
    assert "Set the decision" not in text and "Pick the value" not in text
    refused = staff_client.post(
        reverse("reviews:resolve", args=[run_item.pk]), {"verdict": "uphold", "note": "x"}
    )
    assert refused.status_code == 400
    assert "has no decision to set" in refused.content.decode()
    dismissed = staff_client.post(
        reverse("reviews:dismiss", args=[run_item.pk]),
        {"dismiss-note": "Reports withdrawn."},
        follow=True,
    )
    assert f"Dismissed review item #{run_item.pk}." in dismissed.content.decode()


# --- the admin ----------------------------------------------------------------------------------


def test_the_admin_lists_failures_and_shows_why(admin_client, failed_item, run_item):
    text = admin_client.get(CHANGELIST, {"reason__exact": "debate_failed"}).content.decode()
    assert SPLIT in text and "- (failed)" in text
    runs = admin_client.get(CHANGELIST, {"reason__exact": "run_failed"}).content.decode()
    assert f"Contradiction run {str(run_item.contradiction_run_id)[:8]} failed" in runs
    change = admin_client.get(
        reverse("admin:reviews_reviewitem_change", args=[failed_item.pk])
    ).content.decode()
    assert f"The language model failed (permanent): {PROVIDER_ERROR}" in change
    assert "Round 1: Initial Analysis" in change
    run_change = admin_client.get(
        reverse("admin:reviews_reviewitem_change", args=[run_item.pk])
    ).content.decode()
    assert "no worker took the contradiction run" in run_change


def test_the_admins_rerun_action_requeues_failures_and_reports_the_rest(
    admin_client, admin_user, failed_item, run_item, default_agents
):
    split = ReviewItem.objects.get(debate=run_offline(SPLIT), reason="split_vote")
    with (
        mock.patch("debates.tasks.run_debate.delay"),
        mock.patch("contradictions.tasks.run_contradictions.delay"),
    ):
        response = admin_client.post(
            CHANGELIST,
            {"action": "rerun", "_selected_action": [failed_item.pk, run_item.pk, split.pk]},
            follow=True,
        )
    text = response.content.decode()
    assert "Queued 2 failed debate(s) or run(s) again" in text
    assert f"#{split.pk}: Only a failed debate or run can be re-run" in text
    assert Debate.objects.get(id=failed_item.debate_id).status == "queued"
    assert ContradictionRun.objects.get(id=run_item.contradiction_run_id).status == "queued"
    assert set(ReviewItem.objects.filter(verdict="rerun").values_list("pk", flat=True)) == {
        failed_item.pk,
        run_item.pk,
    }


def test_the_admins_dismiss_action_asks_for_a_note_then_dismisses(admin_client, failed_item):
    ask = admin_client.post(CHANGELIST, {"action": "dismiss", "_selected_action": [failed_item.pk]})
    assert ask.status_code == 200 and "Note (required)" in ask.content.decode()
    assert SPLIT in ask.content.decode()
    admin_client.post(
        CHANGELIST,
        {
            "action": "dismiss",
            "_selected_action": [failed_item.pk],
            "apply": "1",
            "note": "Asked twice.",
        },
    )
    item = ReviewItem.objects.get(pk=failed_item.pk)
    assert (item.status, item.note) == ("dismissed", "Asked twice.")


# --- debates given up before failures had items -------------------------------------------------


def test_debates_given_up_before_get_their_items_when_migrating(db):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("reviews.migrations.0003_failed_debates_and_runs")
    given_up = Debate.objects.create(
        query="Q?",
        status="failed",
        error="Gave up after 3 restarts.",
        recoveries=3,
        metadata={"injection_suspected": True, "review_reasons": ["debate_failed"]},
    )
    rerun_since = Debate.objects.create(
        query="R?", metadata={"review_reasons": ["debate_failed", "uncertain"]}
    )
    migration.queue_debates_given_up_before(apps, None)
    migration.queue_debates_given_up_before(apps, None)  # twice: nothing more

    given_up.refresh_from_db()
    assert given_up.metadata == {"injection_suspected": True}
    assert given_up.review_status == "pending"
    [item] = given_up.review_items.all()
    assert (item.reason, item.summary, item.priority, item.status) == (
        "debate_failed",
        "Gave up after 3 restarts.",
        70,
        "open",
    )
    assert list(item.events.values_list("action", flat=True)) == ["created"]
    rerun_since.refresh_from_db()
    assert rerun_since.metadata == {"review_reasons": ["uncertain"]}
    assert not rerun_since.review_items.exists()


def test_the_debate_page_shows_the_decision_a_reviewer_set_on_a_failed_debate(
    client, failed_item, staff
):
    client.force_login(staff)
    page = reverse("debates:detail", args=[failed_item.debate_id])
    assert "It is in the review queue" in client.get(page).content.decode()
    services.review_resolve(
        item_id=failed_item.pk, user=staff, verdict="override", decision="WARN", note="Mixed views."
    )
    text = client.get(page).content.decode()
    assert "The debate failed" in text
    assert re.search(r"A reviewer set the decision: <span class=\"decision-WARN\">WARN", text)
