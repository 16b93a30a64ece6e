"""Deadlines: each item is due its reasons' shortest deadline; past it, the sweep marks it
overdue once (first in the queue, highlighted, a signed `review.overdue` webhook, the gauge),
and closes it with its reason's fallback when one is set, which never counts as a reviewer's
verdict."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from debates.models import Debate
from debates.reviewing.items import review_items_for_debate
from debates.reviewing.pages import decision_html
from evaluation import ground_truth
from reviews import deadlines, services, tasks
from reviews.models import ReviewEvent, ReviewItem
from tests.api.conftest import client_for
from tests.conftest import wait_for
from tests.factories import StaffFactory
from tests.reviews.conftest import completed_debate, vetoed_item

pytestmark = pytest.mark.django_db

SPLIT = {"consensus_type": "split", "vote_breakdown": {"ACT": 1, "WARN": 1, "REFUSE": 1}}


def _split_item(question="Split?") -> ReviewItem:
    [item] = review_items_for_debate(debate=completed_debate(question, metadata=SPLIT))
    return item


def _age(item: ReviewItem, hours: float) -> None:
    """Make `item` raised `hours` ago (its deadline moves with it)."""
    shift = timedelta(hours=hours)
    ReviewItem.objects.filter(pk=item.pk).update(
        created_at=item.created_at - shift, due_at=item.due_at - shift
    )
    item.refresh_from_db()


def test_an_items_deadline_is_its_reasons_shortest(db, settings):
    settings.REVIEW_DEADLINE_HOURS = {"safety_veto": 4, "split_vote": 24, "low_confidence": 48}
    veto = vetoed_item()
    assert veto.due_at - veto.created_at == pytest.approx(
        timedelta(hours=4), abs=timedelta(seconds=2)
    )
    split = _split_item()
    assert split.due_at - split.created_at == pytest.approx(
        timedelta(hours=24), abs=timedelta(seconds=2)
    )
    settings.REVIEW_DEADLINE_HOURS = {}
    assert _split_item("Another split?").due_at is None
    body = client_for(StaffFactory()).get(f"/api/v1/reviews/{veto.pk}/").json()
    assert body["due_at"] and body["overdue_at"] is None


def test_the_sweep_marks_an_overdue_item_once_and_sends_its_webhook(
    db, settings, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    from debates import webhooks

    monkeypatch.setattr(
        webhooks,
        "delivery_task",
        type("T", (), {"delay": staticmethod(lambda **kw: sent.append(kw))}),
    )
    settings.REVIEW_DEADLINE_FALLBACKS = {}
    owner = StaffFactory(username="owner")
    split = _split_item()
    Debate.objects.filter(pk=split.debate_id).update(
        created_by=owner, callback_url="https://example.org/hook"
    )
    fresh = _split_item("Fresh split?")
    _age(split, 25)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep_deadlines() == "overdue: 1; closed at their deadline: 0"
    split.refresh_from_db()
    assert split.overdue_at is not None and split.status == "open"
    assert ReviewEvent.objects.filter(item=split, action="overdue").count() == 1
    [event] = sent
    assert event["event"] == "review.overdue"
    assert event["payload"]["review"]["item_id"] == split.pk
    assert event["payload"]["review"]["due_at"] == split.due_at.isoformat()
    # a second sweep finds nothing more to mark
    with django_capture_on_commit_callbacks(execute=True):
        assert deadlines.deadlines_sweep() == {"overdue": 0, "closed": 0}
    assert len(sent) == 1
    # the queue: overdue first (though its priority is the same), highlighted
    staff = StaffFactory(username="sam")
    rows = client_for(staff).get("/api/v1/reviews/").json()["results"]
    assert [r["id"] for r in rows][:2] == [split.pk, fresh.pk]
    assert rows[0]["overdue_at"] and rows[1]["overdue_at"] is None
    only = client_for(staff).get("/api/v1/reviews/", {"overdue": "true"}).json()["results"]
    assert [r["id"] for r in only] == [split.pk]


def test_the_queue_page_shows_overdue_items_first_and_highlighted(db, client, settings):
    split, fresh = _split_item(), _split_item("Fresh split?")
    ReviewItem.objects.filter(pk=fresh.pk).update(priority=99)
    _age(split, 25)
    deadlines.overdue_mark()
    staff = StaffFactory(username="sam")
    client.force_login(staff)
    page = client.get("/reviews/").content.decode()
    assert page.index(f'data-item="{split.pk}"') < page.index(f'data-item="{fresh.pk}"')
    assert f'<tr data-item="{split.pk}" class="overdue">' in page
    assert "overdue 1\xa0hour" in page and "in 23\xa0hours" in page


def test_the_metrics_gauge_counts_overdue_items(db, client, fresh_metrics):
    split = _split_item()
    _split_item("Fresh?")
    _age(split, 30)
    deadlines.overdue_mark()
    client.force_login(StaffFactory(username="ops"))
    metrics = client.get("/metrics").content.decode()
    assert 'debates_review_overdue{reason="split_vote"} 1.0' in metrics


@pytest.mark.parametrize(
    ("fallback", "effective", "override"), [("machine", "WARN", ""), ("WARN", "WARN", "")]
)
def test_a_fallback_closes_the_item_without_a_human_verdict(
    db, settings, fallback, effective, override
):
    settings.REVIEW_DEADLINE_FALLBACKS = {"split_vote": fallback}
    split = _split_item()
    _age(split, 25)
    assert deadlines.deadlines_sweep()["closed"] == 1
    split.refresh_from_db()
    debate = Debate.objects.get(pk=split.debate_id)
    assert (split.status, split.verdict, split.decision_override) == (
        "expired",
        "fallback",
        override,
    )
    assert (debate.effective_decision, debate.review_status) == (effective, "expired")
    assert "Closed at its deadline with no review" in split.note
    assert not split.verdicts.exists()


def test_a_warn_fallback_on_a_veto_sets_warn_and_stays_out_of_ground_truth(db, settings):
    settings.REVIEW_DEADLINE_FALLBACKS = {"safety_veto": "WARN"}
    veto = vetoed_item()
    _age(veto, 5)
    deadlines.deadlines_sweep()
    veto.refresh_from_db()
    debate = Debate.objects.get(pk=veto.debate_id)
    assert (veto.status, veto.decision_override) == ("expired", "WARN")
    assert (debate.decision, debate.effective_decision, debate.review_status) == (
        "REFUSE",
        "WARN",
        "expired",
    )
    rows, _ = ground_truth.ground_truth_rows()
    assert [r.verdict for r in rows] == [""]  # not labelled: no reviewer gave a verdict
    # the pages say it was the fallback, not a reviewer
    assert "fallback at the review deadline, no reviewer" in decision_html(debate)


def test_an_item_closed_by_a_reviewer_first_is_left_alone(db, settings):
    settings.REVIEW_DEADLINE_FALLBACKS = {"split_vote": "WARN"}
    split = _split_item()
    _age(split, 25)
    services.review_resolve(
        item_id=split.pk, user=StaffFactory(), verdict="uphold", note="fine, just in time"
    )
    assert deadlines.deadlines_sweep() == {"overdue": 0, "closed": 0}
    assert services.review_expire(item_id=split.pk, fallback="WARN") is None
    split.refresh_from_db()
    assert (split.status, split.verdict) == ("resolved", "uphold")


def test_bad_deadline_settings_fail_the_system_check(db, settings):
    settings.REVIEW_DEADLINE_HOURS = {"split_vote": -1, "nonsense": 2}
    settings.REVIEW_DEADLINE_FALLBACKS = {"debate_failed": "machine", "split_vote": "ACT"}
    with pytest.raises(SystemCheckError) as raised:
        call_command("check")
    text = str(raised.value)
    for expected in (
        "reviews.E003",
        "nonsense",
        "reviews.E004",
        "reviews.E005",
        "split_vote must be",
    ):
        assert expected in text


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_beat_schedules_the_sweep_and_a_real_worker_runs_it(celery_worker_process, settings):
    from django.conf import settings as live

    entry = live.CELERY_BEAT_SCHEDULE["review-deadlines"]
    assert (entry["task"], entry["schedule"]) == ("reviews.sweep_deadlines", 60.0)
    split = _split_item()
    _age(split, 25)
    tasks.sweep_deadlines.delay()
    marked = wait_for(lambda: ReviewItem.objects.filter(pk=split.pk, overdue_at__isnull=False))
    assert marked.get().events.filter(action="overdue").count() == 1
