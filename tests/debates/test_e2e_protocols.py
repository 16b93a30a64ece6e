"""Every protocol end to end: a real Celery worker process, the real Redis broker and
PostgreSQL, the offline model playing every role."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from debates import services
from debates.models import Debate, LLMCall, Statement, Vote
from tests.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _finished(debate_id):
    def check():
        d = Debate.objects.get(id=debate_id)
        return d if d.is_finished else None

    return check


def test_each_protocol_runs_through_the_worker_to_its_decision(
    celery_worker_process, default_agents
):
    expected = {
        ("moderated", "Should every website use HTTPS?"): ("SUPPORT", "moderator_consensus", 3),
        ("moderated", "Is Bitcoin a good investment?"): ("UNCERTAIN", "uncertain", 6),
        ("moderated_extended", "Should I learn Python or JavaScript first?"): (
            "SUPPORT",
            "moderator_consensus",
            18,
        ),
        ("round_robin", "Should I invest in Tesla (TSLA) considering all factors?"): (
            "HOLD",
            "unanimous",
            6,
        ),
        ("round_robin", "Should I buy Bitcoin now?"): ("NO_CONSENSUS", "no_consensus", 15),
    }
    debates = {key: services.debate_create(query=key[1], protocol=key[0]) for key in expected}
    for key, debate in debates.items():
        done = wait_for(_finished(debate.id), timeout=90)
        decision, consensus_type, calls = expected[key]
        assert done.status == Debate.Status.COMPLETED, done.error
        assert (done.decision, done.consensus_type) == (decision, consensus_type), key
        assert LLMCall.objects.filter(debate=done, status="done").count() == calls
        assert Statement.objects.filter(debate=done).count() == calls
        if key[0].startswith("moderated"):
            # Compared unrounded; the rounded figures are for display
            # (docs/concepts/moderated.md#compared-unrounded).
            md = done.metadata
            assert md["compared"].startswith("unrounded (exact decimals)")
            assert round(float(md["pro_strength_exact"]), 4) == md["pro_strength"]
            assert round(float(md["con_strength_exact"]), 4) == md["con_strength"]
        if decision in ("UNCERTAIN", "NO_CONSENSUS"):
            assert done.metadata["review_reasons"] == [consensus_type]
        else:
            assert done.metadata["review_reasons"] == []
    tesla = debates[("round_robin", "Should I invest in Tesla (TSLA) considering all factors?")]
    assert Vote.objects.filter(debate=tesla, decision="HOLD").count() == 3
    # The round robin's metadata (docs/concepts/round-robin.md#what-the-decision-records),
    # stored by the worker and shown by the JSON export.
    from debates.selectors import debate_detail_queryset, debate_export

    tesla = debate_detail_queryset().get(id=tesla.id)
    md = debate_export(tesla)["final_decision"]["metadata"]
    assert md["agent_responses_summary"] == {
        "total_agents_consulted": 3,
        "successful_responses": 3,
        "agents_used": ["Valuation Agent", "Sentiment Agent", "Fundamental Agent"],
    }
    assert [p["debate_turns"] for p in md["final_positions"]] == [2, 2, 2]
    assert md["debate_metadata"]["total_turns"] == 6


def test_the_cli_with_auto_runs_the_chosen_protocol_through_the_worker(
    celery_worker_process, default_agents
):
    out = io.StringIO()
    call_command(
        "debate",
        "Is an S&P 500 index fund a good investment for my retirement?",
        "--protocol",
        "auto",
        stdout=out,
    )
    text = out.getvalue()
    assert "Protocol: round_robin" in text
    assert "Chosen:   auto -> round_robin (matched the trigger keyword 'investment')" in text
    assert "DECISION: BUY" in text
    assert "consensus reached after round 2 (first in round 1)" in text
