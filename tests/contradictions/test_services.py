"""Running contradiction runs in-process: storage, concurrency, resume, failure, debates, review."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from unittest import mock

import pytest
from django.core.exceptions import ValidationError

from agents import gateway
from agents.errors import LLMError
from contradictions import acting as contradiction_acting
from contradictions import running as contradiction_running
from contradictions import services
from contradictions.inputs import parse_payload
from contradictions.models import (
    AgentReport,
    ArbitrationCall,
    Contradiction,
    ContradictionRun,
    Finding,
    Resolution,
)
from contradictions.reviewing import items as contradiction_items
from reviews import services as review_services
from reviews.models import ReviewEvent, ReviewItem
from tests.contradictions.conftest import (
    ScriptedArbitrator,
    WorkerDied,
    claim,
    report,
    reports_of,
)

pytestmark = pytest.mark.usefixtures("sources")


def run_with(reports, llm=None, **kwargs) -> ContradictionRun:
    run = services.contradiction_run_create(reports=reports, enqueue=False, **kwargs)
    llm = llm or ScriptedArbitrator()
    with mock.patch.object(gateway, "acomplete", llm):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    return run


def many_metrics(n: int, *, second_confidence=0.6) -> list:
    """Two agents disagreeing on `n` metrics, same source and period each time."""
    return parse_payload(
        [
            report(
                "A",
                0.9,
                *[claim(10 + i, "GCC-STAT", "2024", metric=f"metric {i}") for i in range(n)],
            ),
            report(
                "B",
                second_confidence,
                *[claim(20 + i, "GCC-STAT", "2024", metric=f"metric {i}") for i in range(n)],
            ),
        ]
    )["reports"]


def test_a_run_stores_reports_claims_contradictions_resolutions_calls_and_consensus():
    run = run_with(reports_of("source_conflict"), ScriptedArbitrator(cost=Decimal("0.0001")))
    assert run.status == ContradictionRun.Status.COMPLETED, run.error
    assert AgentReport.objects.filter(run=run).count() == 2
    assert Finding.objects.filter(run=run).count() == 2
    [row] = Contradiction.objects.filter(run=run)
    assert row.rules == ["value_gap", "source_conflict"]
    assert row.members.count() == 2
    resolution = Resolution.objects.get(contradiction=row)
    assert (resolution.resolution, resolution.action) == ("agent1_correct", "use_agent1")
    assert resolution.chosen_finding.source == "GCC-STAT"
    call = ArbitrationCall.objects.get(run=run)
    assert call.status == "done" and call.raw_response and call.tokens_in == 100
    assert "1. GCC-STAT, 2. World Bank" in call.prompt[1]["content"]
    assert (run.resolved_count, run.flagged_count) == (1, 0)
    assert (run.tokens_in, run.tokens_out, run.cost_usd) == (100, 40, Decimal("0.0001"))
    assert "GCC-STAT" in run.consensus_narrative
    replaced = [f for r in run.adjusted_reports for f in r["findings"] if f["status"] == "replaced"]
    assert replaced[0]["original"]["source"] == "World Bank"


def test_zero_contradictions_skip_arbitration_at_once():
    llm = ScriptedArbitrator()
    run = run_with(reports_of("no_contradictions"), llm)
    assert llm.calls == []
    assert run.status == "completed" and run.arbitration_skipped
    assert run.arbitration_ms == 0
    assert run.consensus_narrative.startswith("No contradictions among 3 reports")


def test_ten_contradictions_are_arbitrated_at_the_same_time():
    # Every call waits until all ten are in flight: calls one after another would never get
    # there (the barrier would break).
    llm = ScriptedArbitrator(barrier=asyncio.Barrier(10))
    run = run_with(many_metrics(10), llm)
    assert run.status == "completed", run.error
    assert len(llm.calls) == 10 and llm.max_in_flight == 10
    assert Resolution.objects.filter(contradiction__run=run).count() == 10


def test_a_rerun_after_the_worker_died_resumes_without_repeating_calls():
    run = services.contradiction_run_create(reports=many_metrics(6), enqueue=False)
    dying = ScriptedArbitrator(fail_after=3, exc=WorkerDied())
    with (
        mock.patch("contradictions.running.settings.CONTRADICTION_MAX_CONCURRENT_CALLS", 1),
        mock.patch.object(gateway, "acomplete", dying),
        pytest.raises(WorkerDied),
    ):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == "running"
    done_before = set(
        ArbitrationCall.objects.filter(run=run, status="done").values_list("key", flat=True)
    )
    assert len(done_before) == 3

    resumed = ScriptedArbitrator()
    with mock.patch.object(gateway, "acomplete", resumed):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == "completed"
    assert len(resumed.calls) == 3
    asked = {m[1]["content"].split("- Metric: ")[1].split("\n")[0] for m in resumed.calls}
    stored_before = set(
        Contradiction.objects.filter(run=run, call__key__in=done_before).values_list(
            "metric", flat=True
        )
    )
    assert asked.isdisjoint(stored_before)
    assert Resolution.objects.filter(contradiction__run=run).count() == 6
    assert Contradiction.objects.filter(run=run).count() == 6  # detection not repeated
    assert run.attempts == 2


def test_running_a_completed_run_again_makes_no_calls_and_no_rows():
    run = run_with(reports_of("simple"))
    spy = ScriptedArbitrator()
    with mock.patch.object(gateway, "acomplete", spy):
        assert contradiction_running.contradiction_run_execute(run_id=run.id) is None
    assert spy.calls == []
    assert Resolution.objects.filter(contradiction__run=run).count() == 1


def test_a_model_failure_fails_the_run_readably_and_a_retry_pays_only_for_what_is_missing():
    run = services.contradiction_run_create(reports=many_metrics(3), enqueue=False)
    broken = ScriptedArbitrator(
        fail_after=2, exc=LLMError("x: rate limited", permanent=False, attempts=4)
    )
    with (
        mock.patch("contradictions.running.settings.CONTRADICTION_MAX_CONCURRENT_CALLS", 1),
        mock.patch.object(gateway, "acomplete", broken),
    ):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == "failed" and "after retries" in run.error
    assert ArbitrationCall.objects.filter(run=run, status="failed").count() == 1

    with mock.patch("contradictions.tasks.run_contradictions.delay"):
        assert contradiction_acting.contradiction_run_retry(run_id=run.id)
    healthy = ScriptedArbitrator()
    with mock.patch.object(gateway, "acomplete", healthy):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == "completed" and len(healthy.calls) == 1


def test_an_unreadable_arbitration_is_stored_as_a_parse_failure_and_flagged_for_review():
    run = run_with(reports_of("simple"), ScriptedArbitrator(lambda m: "I would rather not say."))
    resolution = Resolution.objects.get(contradiction__run=run)
    assert resolution.parse_failed and resolution.action == "flag_for_review"
    assert run.flagged_count == 1
    item = ReviewItem.objects.get(contradiction__run=run)
    assert item.reason == "flag_for_review"
    assert "could not be read" in item.summary


def test_bad_input_stores_nothing():
    before = ContradictionRun.objects.count()
    with pytest.raises(ValidationError):
        services.contradiction_run_create(reports=[], enqueue=False)
    doubled = parse_payload([report("A", 0.9, claim(1, "X", "2024"))])["reports"] * 2
    with pytest.raises(ValidationError, match="reports once"):
        services.contradiction_run_create(reports=doubled, enqueue=False)
    assert ContradictionRun.objects.count() == before


def test_claims_beyond_the_limit_are_refused(settings):
    settings.CONTRADICTION_MAX_CLAIMS = 5
    with pytest.raises(ValidationError, match="Too many claims: 6; a run takes at most 5"):
        services.contradiction_run_create(reports=many_metrics(3), enqueue=False)


# --- from a debate ------------------------------------------------------------------------------


def test_a_completed_debates_agents_positions_become_reports(default_agents):
    from tests.reviews.conftest import run_offline

    debate = run_offline("Is Bitcoin a good investment?")  # votes ACT / WARN / REFUSE
    run = services.contradiction_run_from_debate(debate_id=debate.id, enqueue=False)
    assert run.debate_id == debate.id and run.origin == "debate"
    assert [r.agent_name for r in run.reports.order_by("position")] == [
        "Utility Agent",
        "Accuracy Agent",
        "Safety Agent",
    ]
    metrics = set(Finding.objects.filter(run=run).values_list("metric", flat=True))
    assert metrics == {"position", "risk"}
    with mock.patch.object(gateway, "acomplete", ScriptedArbitrator()):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == "completed"
    position = Contradiction.objects.get(run=run, metric="position")
    assert "interpretation_conflict" in position.rules


def test_a_debate_that_has_not_completed_gives_no_reports(default_agents):
    from debates.services import debate_create

    debate = debate_create(query="Is it raining?", enqueue=False)
    with pytest.raises(ValidationError, match="queued"):
        services.contradiction_run_from_debate(debate_id=debate.id, enqueue=False)


# --- review hand-off ----------------------------------------------------------------------------


@pytest.fixture
def flagged_run():
    """Two metrics: one the arbitrator settles (authority), one it cannot (equal claims)."""
    reports = parse_payload(
        [
            report(
                "A",
                0.8,
                claim(0.10, "GCC-STAT", "2024"),
                claim(3.0, "Ministry", "2024", metric="inflation"),
            ),
            report(
                "B",
                0.8,
                claim(0.12, "World Bank", "2024"),
                claim(3.5, "Ministry", "2024", metric="inflation"),
            ),
        ]
    )["reports"]
    return run_with(reports)


def test_unsettled_contradictions_go_to_the_queue_with_the_run_pending_review(flagged_run):
    run = flagged_run
    assert (run.resolved_count, run.flagged_count, run.review_status) == (1, 1, "pending")
    [item] = ReviewItem.objects.filter(contradiction__run=run)
    assert item.contradiction.metric == "inflation"
    assert item.reason == "flag_for_review" and item.debate_id is None
    # 3.0 against 3.5 is 14.3 % apart (low), held by two confident agents (one level up).
    assert item.contradiction.severity == "medium" and item.priority == 65
    assert ReviewEvent.objects.filter(item=item, action="created").count() == 1


def test_completing_twice_never_queues_twice(flagged_run):
    contradiction_running.contradiction_run_execute(run_id=flagged_run.id)
    contradiction_items.review_items_for_contradictions(
        run_id=flagged_run.id,
        flagged=[
            (c, mock.Mock(reason="again"))
            for c in Contradiction.objects.filter(run=flagged_run, metric="inflation")
        ],
    )
    assert ReviewItem.objects.filter(contradiction__run=flagged_run).count() == 1


def test_the_analysts_pick_is_recorded_and_applied_to_the_adjusted_reports(flagged_run, staff_user):
    item = ReviewItem.objects.get(contradiction__run=flagged_run)
    finding = Finding.objects.get(run=flagged_run, metric="inflation", report__agent_name="B")
    review_services.review_keep(
        item_id=item.pk,
        user=staff_user,
        choice=f"finding:{finding.pk}",
        note="The later survey revised it to 3.5.",
    )
    item.refresh_from_db()
    flagged_run.refresh_from_db()
    assert (item.status, item.verdict) == ("resolved", "keep")
    event = item.events.get(action="resolved")
    assert event.data["kept"] == "3.5% (Ministry, 2024)"
    assert flagged_run.review_status == "resolved" and flagged_run.reviewed_count == 1
    inflation = {
        f["finding"]: f
        for r in flagged_run.adjusted_reports
        for f in r["findings"]
        if f["metric"] == "inflation"
    }
    statuses = sorted((f["status"], f["value"]) for f in inflation.values())
    assert statuses == [("kept", 3.5), ("replaced", 3.5)]
    assert "decided by sam" in flagged_run.consensus_narrative


def test_a_pick_that_is_not_one_of_the_values_changes_nothing(flagged_run, staff_user):
    item = ReviewItem.objects.get(contradiction__run=flagged_run)
    other = Finding.objects.get(
        run=flagged_run, metric="Qatar unemployment rate", report__agent_name="A"
    )
    with pytest.raises(ValidationError):
        review_services.review_keep(
            item_id=item.pk, user=staff_user, choice=f"finding:{other.pk}", note="x"
        )
    item.refresh_from_db()
    assert item.status == "open"
    assert not Contradiction.objects.get(pk=item.contradiction_id).review_action


def test_dismissing_leaves_the_values_annotated_and_the_run_dismissed(flagged_run, staff_user):
    item = ReviewItem.objects.get(contradiction__run=flagged_run)
    review_services.review_dismiss(item_id=item.pk, user=staff_user, note="Not material.")
    flagged_run.refresh_from_db()
    assert flagged_run.review_status == "dismissed"
    case = next(c for c in flagged_run.consensus["cases"] if c["metric"] == "inflation")
    assert case["status"] == "dismissed"


def test_a_contradiction_item_cannot_be_upheld_like_a_debates(flagged_run, staff_user):
    item = ReviewItem.objects.get(contradiction__run=flagged_run)
    with pytest.raises(ValidationError, match="pick the value"):
        review_services.review_resolve(item_id=item.pk, user=staff_user, verdict="uphold", note="x")
