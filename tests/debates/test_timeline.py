"""A debate's call timeline: every call stored with when it was sent and when it answered (the
gateway's own measure), laid out so calls made at the same time overlap; the rows on the page;
who may open a call's prompt and raw reply; the links between a debate and its review item."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import timezone

from debates import running, services
from debates.models import Debate, LLMCall
from debates.timeline import call_timeline
from reviews.models import ReviewItem
from tests.debates.test_views import text_of
from tests.factories import StaffFactory, UserFactory, with_roles

pytestmark = pytest.mark.usefixtures("default_agents")


@pytest.fixture
def owner(db):
    return UserFactory(username="olga")


@pytest.fixture
def s4_debate(owner, settings):
    settings.DEBATE_OFFLINE_LATENCY = 0.05  # long enough for calls to visibly overlap
    debate = services.debate_create(
        query="Is Bitcoin a good investment?", created_by=owner, enqueue=False
    )
    running.debate_run(debate_id=debate.id)
    return Debate.objects.get(pk=debate.pk)


def test_every_call_keeps_when_it_was_sent_and_when_it_answered(s4_debate):
    calls = list(s4_debate.llm_calls.all())
    assert len(calls) == 12
    for call in calls:
        assert call.status == LLMCall.Status.DONE
        assert s4_debate.created_at <= call.started_at < call.completed_at
        measured = (call.completed_at - call.started_at).total_seconds() * 1000
        assert abs(measured - call.latency_ms) <= 5  # the same clock readings, in two forms


def test_calls_of_one_step_overlap_and_steps_follow_each_other(s4_debate):
    calls = list(s4_debate.llm_calls.all())
    timeline = call_timeline(calls, list(s4_debate.participants.all()))
    assert len(timeline.rows) == 12
    assert timeline.start == min(c.started_at for c in calls)
    assert timeline.end == max(c.completed_at for c in calls)
    span = (timeline.end - timeline.start).total_seconds()
    for row in timeline.rows:  # each bar where its times put it, in percent of the span
        assert row.left == pytest.approx(
            (row.start - timeline.start).total_seconds() / span * 100, abs=0.01
        )
        assert row.left + row.width == pytest.approx(
            (row.end - timeline.start).total_seconds() / span * 100, abs=0.41
        )
    by_step: dict[str, list] = {}
    for row in timeline.rows:
        by_step.setdefault(row.call.step, []).append(row)
    analyses = by_step["analysis"]
    assert len(analyses) == 3
    # The three independent analyses ran at the same time: each started before any ended.
    assert max(r.start for r in analyses) < min(r.end for r in analyses)
    assert timeline.most_at_once >= 3
    # Every challenge was sent after the last analysis came back.
    assert min(r.start for r in by_step["challenge"]) >= max(r.end for r in analyses)
    assert [r.agent for r in analyses] and all(r.screening == "clean" for r in timeline.rows)


def test_a_call_in_flight_runs_to_now():
    now = timezone.now()
    sent = LLMCall(
        pk=1,
        key="k",
        step="analysis",
        round_number=1,
        participant_id=1,
        status="pending",
        created_at=now - dt.timedelta(seconds=4),
        started_at=now - dt.timedelta(seconds=3),
    )
    done = LLMCall(
        pk=2,
        key="j",
        step="analysis",
        round_number=1,
        participant_id=1,
        status="done",
        created_at=now - dt.timedelta(seconds=4),
        started_at=now - dt.timedelta(seconds=4),
        completed_at=now - dt.timedelta(seconds=2),
        attempts=3,
    )
    timeline = call_timeline([sent, done], [], now=now)
    first, second = timeline.rows
    assert (first.call, second.call) == (done, sent)
    assert (first.left, first.width, first.retries) == (0, 50, 2)
    assert (second.left, second.width, second.in_flight) == (25, 75, True)


def bars(html: str) -> list[tuple[str, float, float]]:
    return [
        (call, float(x), float(width))
        for call, x, width in re.findall(
            r'id="call-(\d+)".*?<rect class="tl-bar" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"',
            html,
            flags=re.S,
        )
    ]


def test_the_debate_page_shows_one_row_per_call_to_its_owner_without_raw_text(
    client, owner, s4_debate
):
    client.force_login(owner)
    response = client.get(reverse("debates:detail", args=[s4_debate.pk]))
    html = response.content.decode()
    text = unescape(text_of(response))
    assert "Calls, one by one" in text and "12 calls over" in text
    drawn = bars(html)
    timeline = call_timeline(list(s4_debate.llm_calls.all()), list(s4_debate.participants.all()))
    assert drawn == [(str(r.call.pk), r.left, r.width) for r in timeline.rows]
    assert "Utility Agent analysis · round 1" in text
    assert "data-src=" not in html  # nothing to load for an owner who is not staff
    assert "The prompt and the raw reply are for staff who review debates." in text
    call = s4_debate.llm_calls.first()
    assert client.get(reverse("debates:call", args=[s4_debate.pk, call.pk])).status_code == 403


def test_reviewers_read_raw_replies_and_only_admins_of_model_calls_the_prompts(client, s4_debate):
    call = s4_debate.llm_calls.order_by("id").first()
    url = reverse("debates:call", args=[s4_debate.pk, call.pk])
    reviewer = with_roles(StaffFactory(roles=[]), "Reviewer")
    client.force_login(reviewer)
    page = client.get(reverse("debates:detail", args=[s4_debate.pk])).content.decode()
    assert f'data-src="{url}"' in page
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert unescape(re.search(r'data-testid="raw-reply">(.*?)</pre>', html, re.S)[1]) == (
        call.raw_reply
    )
    assert 'data-testid="prompt-0"' not in html
    assert "The prompt is for staff who may read model calls in the admin." in html

    client.force_login(StaffFactory(is_superuser=True))
    html = client.get(url).content.decode()
    assert (
        unescape(re.search(r'data-testid="prompt-1">(.*?)</pre>', html, re.S)[1])
        == (call.prompt[1]["content"])
    )
    # A call of another debate, or a debate the user may not see: as if there were none.
    other = services.debate_create(query="Another question", enqueue=False)
    assert client.get(reverse("debates:call", args=[other.pk, call.pk])).status_code == 404
    client.force_login(UserFactory())
    assert client.get(url).status_code == 404


def test_the_debate_page_links_to_its_review_item_and_the_item_to_the_timeline(
    client, owner, s4_debate
):
    item = ReviewItem.objects.get(debate=s4_debate)  # a split vote goes to review
    reviewer = with_roles(StaffFactory(roles=[]), "Reviewer")
    client.force_login(reviewer)
    page = client.get(reverse("debates:detail", args=[s4_debate.pk])).content.decode()
    assert f'href="{reverse("reviews:item", args=[item.pk])}" data-testid="review-item-link"' in (
        page
    )
    review = client.get(reverse("reviews:item", args=[item.pk])).content.decode()
    assert f'href="{reverse("debates:detail", args=[s4_debate.pk])}#timeline"' in review
    client.force_login(owner)  # no review role: no link to the queue
    page = client.get(reverse("debates:detail", args=[s4_debate.pk])).content.decode()
    assert "review-item-link" not in page
