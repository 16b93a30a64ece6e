"""The five worked cases (docs/concepts/contradictions.md#worked-cases) end to end: through a real
Celery worker process, the Redis broker and PostgreSQL, arbitrated by the offline model."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from contradictions import services
from contradictions.models import ArbitrationCall, ContradictionRun, Resolution
from reviews.models import ReviewItem
from tests.conftest import wait_for
from tests.contradictions.conftest import SCENARIOS, reports_of

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("sources"),
]


def _finished(run_id):
    def check():
        run = ContradictionRun.objects.get(id=run_id)
        return run if run.is_finished else None

    return check


def _adjusted(run) -> dict[str, dict]:
    return {r["agent"]: r["findings"][0] for r in run.adjusted_reports}


def test_the_five_worked_cases_come_out_as_documented(celery_worker_process):
    runs = {name: services.contradiction_run_create(reports=reports_of(name)) for name in SCENARIOS}
    done = {name: wait_for(_finished(run.id), timeout=60) for name, run in runs.items()}
    for name, run in done.items():
        assert run.status == ContradictionRun.Status.COMPLETED, (name, run.error)

    # 1. Three agreeing agents: nothing detected, arbitration skipped, nothing called.
    run = done["no_contradictions"]
    assert run.contradictions_found == 0 and run.arbitration_skipped
    assert not ArbitrationCall.objects.filter(run=run).exists()
    assert {f["status"] for f in _adjusted(run).values()} == {"kept"}

    # 2. Same source, different values: the more confident agent.
    run = done["simple"]
    resolution = Resolution.objects.get(contradiction__run=run)
    assert resolution.resolution == "agent1_correct"
    assert resolution.chosen_finding.report.agent_name == "LabourEconomist"
    assert _adjusted(run)["NationalStrategy"]["status"] == "replaced"
    assert _adjusted(run)["NationalStrategy"]["value"] == 0.1

    # 3. GCC-STAT against World Bank for one period: the authoritative source, although the
    #    World Bank's agent is more confident.
    run = done["source_conflict"]
    resolution = Resolution.objects.get(contradiction__run=run)
    assert resolution.chosen_finding.source == "GCC-STAT"
    assert (run.resolved_count, run.flagged_count) == (1, 0)

    # 4. Different periods: both valid, each value kept with its context.
    run = done["both_valid"]
    resolution = Resolution.objects.get(contradiction__run=run)
    assert (resolution.resolution, resolution.action) == ("both_valid", "use_both")
    assert {f["status"] for f in _adjusted(run).values()} == {"annotated"}
    assert (
        "Qatar unemployment rate ranges 0.1-0.12% depending on source and period: "
        "GCC-STAT reports 0.1% for Q1-2024; World Bank reports 0.12% for 2024."
    ) in run.consensus_narrative

    # 5. Three agents, three values: one multi-way case, resolved by authority + confidence.
    run = done["multi_way"]
    [row] = run.contradictions.all()
    assert row.members.count() == 3 and len(row.pairs) == 3
    resolution = Resolution.objects.get(contradiction__run=run)
    assert resolution.chosen_finding.report.agent_name == "LabourEconomist"
    adjusted = _adjusted(run)
    assert adjusted["LabourEconomist"]["status"] == "kept"
    assert (
        adjusted["NationalStrategy"]["status"]
        == adjusted["SkillsAnalyst"]["status"]
        == ("replaced")
    )
    assert not ReviewItem.objects.filter(contradiction__run__in=done.values()).exists()

    # The result shape (docs/concepts/contradictions.md#result-shape), as the worker's runs end.
    assert done["no_contradictions"].debate_results == {
        "contradictions_found": 0,
        "status": "skipped",
        "latency_ms": 0,
    }
    for name in ("simple", "source_conflict", "both_valid", "multi_way"):
        results = done[name].debate_results
        assert (results["status"], results["resolved"], results["flagged_for_review"]) == (
            "complete",
            1,
            0,
        ), name
        assert results["latency_ms"] == done[name].arbitration_ms


def test_the_command_reads_a_json_file_and_runs_it_through_the_worker(
    celery_worker_process, tmp_path
):
    path = tmp_path / "reports.json"
    path.write_text(json.dumps(SCENARIOS["both_valid"]))
    out = io.StringIO()
    call_command("contradictions", str(path), stdout=out)
    text = out.getvalue()
    assert "1 contradiction: 1 resolved, 0 flagged for review" in text
    assert "both_valid / use_both" in text
    assert "GCC-STAT reports 0.1% for Q1-2024" in text
    assert "offline heuristic demo model" in text

    out = io.StringIO()
    call_command("contradictions", str(path), "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["status"] == "completed"
    assert data["contradictions"][0]["resolution"]["resolution"] == "both_valid"
    assert data["debate_results"]["status"] == "complete"
    assert data["debate_results"]["flagged_for_review"] == data["flagged"] == 0
    assert ContradictionRun.objects.filter(origin="command").count() == 2
