"""The node in another application's pipeline (docs/concepts/contradictions.md#pipeline-node):
`resolve_contradictions(reports, on_event=...)` in-process, its result keys and events, the same
storage and review hand-off as the API. The arbitrator is the offline model (the service
default)."""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.exceptions import ValidationError

from agents import gateway
from agents.errors import LLMError
from contradictions.models import ContradictionRun
from contradictions.pipeline import ContradictionRunFailed, resolve_contradictions
from reviews.models import ReviewItem
from tests.contradictions.conftest import SCENARIOS, claim, report

pytestmark = pytest.mark.usefixtures("sources")

COMPLETE_RESULT_KEYS = {
    "contradictions_found",
    "resolved",
    "flagged_for_review",
    "consensus_narrative",
    "latency_ms",
    "status",
}


class Events(list):
    def __call__(self, *args):
        self.append(args)


def test_no_contradictions_give_the_skipped_result_and_only_the_running_event():
    events = Events()
    out = resolve_contradictions(SCENARIOS["no_contradictions"], on_event=events)
    assert out["debate_results"] == {
        "contradictions_found": 0,
        "status": "skipped",
        "latency_ms": 0,
    }
    assert events == [("debate", "running")]
    run = ContradictionRun.objects.get(id=out["run_id"])
    assert run.origin == "pipeline" and run.status == "completed" and run.arbitration_skipped
    assert [len(r["findings"]) for r in out["agent_reports"]] == [1, 1, 1]


def test_a_resolved_contradiction_gives_the_complete_result_and_events():
    events = Events()
    out = resolve_contradictions(SCENARIOS["both_valid"], on_event=events)
    results = out["debate_results"]
    assert set(results) == COMPLETE_RESULT_KEYS
    assert (
        results["status"],
        results["contradictions_found"],
        results["resolved"],
        results["flagged_for_review"],
    ) == ("complete", 1, 1, 0)
    assert "GCC-STAT reports 0.1% for Q1-2024" in results["consensus_narrative"]
    assert isinstance(results["latency_ms"], int)
    assert [e[:2] for e in events] == [("debate", "running"), ("debate", "complete")]
    stage, status, data, latency_ms = events[1]
    assert data == {"contradictions": 1, "resolved": 1, "flagged": 0}
    assert latency_ms >= results["latency_ms"]
    # The adjusted reports carry the resolution (both values kept, with their context).
    statuses = [f["status"] for r in out["agent_reports"] for f in r["findings"]]
    assert statuses == ["annotated", "annotated"]


def test_a_flagged_contradiction_is_handed_to_review_as_over_the_api():
    reports = [
        report("A", 0.8, claim(3.0, "Ministry", "2024", metric="inflation")),
        report("B", 0.8, claim(3.5, "Ministry", "2024", metric="inflation")),
    ]
    events = Events()
    out = resolve_contradictions(reports, on_event=events)
    assert out["debate_results"]["flagged_for_review"] == 1
    assert events[-1][2] == {"contradictions": 1, "resolved": 0, "flagged": 1}
    run = ContradictionRun.objects.get(id=out["run_id"])
    assert run.review_status == "pending"
    [item] = ReviewItem.objects.filter(contradiction__run=run)
    assert (item.reason, item.contradiction.metric) == ("flag_for_review", "inflation")


def test_bad_reports_are_refused_with_what_to_fix_and_nothing_is_stored_or_emitted():
    events = Events()
    bad = [report("A", 0.8, claim("high", "GCC-STAT", "2024"))]
    with pytest.raises(ValidationError) as info:
        resolve_contradictions(bad, on_event=events)
    assert any("value" in m and "Expected a number" in m for m in info.value.messages)
    with pytest.raises(ValidationError, match="Expected a list of reports, got dict"):
        resolve_contradictions({"reports": []})
    assert events == [] and ContradictionRun.objects.count() == 0


def test_a_failed_run_raises_emits_failed_and_is_queued_for_review():
    events = Events()
    boom = LLMError("invalid api key", permanent=True, attempts=1)
    with (
        mock.patch.object(gateway, "acomplete", side_effect=boom),
        pytest.raises(ContradictionRunFailed) as info,
    ):
        resolve_contradictions(SCENARIOS["simple"], on_event=events)
    run = ContradictionRun.objects.get(id=info.value.run_id)
    assert run.status == "failed" and "invalid api key" in run.error
    assert run.debate_results["status"] == "failed"
    assert events[-1][:2] == ("debate", "failed")
    assert ReviewItem.objects.filter(contradiction_run=run, reason="run_failed").count() == 1


def test_it_works_as_the_node_between_agents_and_verify_in_a_state_pipeline():
    # The README's example: the graph agents -> debate -> verify as plain functions
    # over a state dict, the way a LangGraph StateGraph calls its nodes.
    seen = Events()

    def agents_node(state):
        return {**state, "agent_reports": SCENARIOS["source_conflict"]}

    def debate_node(state):
        out = resolve_contradictions(state["agent_reports"], on_event=state["event_callback"])
        return {
            **state,
            "agent_reports": out["agent_reports"],
            "debate_results": out["debate_results"],
        }

    def verify_node(state):
        kept = [
            f["value"]
            for r in state["agent_reports"]
            for f in r["findings"]
            if f["status"] != "annotated"
        ]
        return {**state, "verified_values": kept}

    state = {"event_callback": seen}
    for node in (agents_node, debate_node, verify_node):
        state = node(state)
    assert state["debate_results"]["status"] == "complete"
    assert state["debate_results"]["resolved"] == 1
    assert state["verified_values"] == [0.1, 0.1]  # World Bank's 0.12 replaced by GCC-STAT's
    assert [e[:2] for e in seen] == [("debate", "running"), ("debate", "complete")]
