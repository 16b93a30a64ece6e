"""Contradiction runs against replies as real models send them: arbitrations holding NULs or
`<think>` blocks, or empty at first, through the real gateway and litellm to a fake
OpenAI-compatible server on 127.0.0.1 (`tests/support/fake_openai.py`)."""

from __future__ import annotations

import pytest

from contradictions import running, services
from contradictions.inputs import parse_payload
from contradictions.models import ArbitrationCall, ContradictionRun, Resolution
from tests.contradictions.conftest import claim, report
from tests.support.fake_openai import Reply

pytestmark = pytest.mark.usefixtures("sources")

REPORTS = [
    report("A", 0.9, *[claim(10 + i, "GCC-STAT", "2024", metric=f"metric {i}") for i in range(4)]),
    report(
        "B", 0.6, *[claim(20 + i, "World Bank", "2024", metric=f"metric {i}") for i in range(4)]
    ),
]


@pytest.fixture(autouse=True)
def arbitrator(settings, fake_openai):
    settings.CONTRADICTION_ARBITRATOR_MODEL = fake_openai.model
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 0.01


def run_contradictions() -> ContradictionRun:
    run = services.contradiction_run_create(
        reports=parse_payload(REPORTS)["reports"], enqueue=False
    )
    running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    return run


def outcome(run) -> list[tuple]:
    return sorted(
        Resolution.objects.filter(contradiction__run=run).values_list(
            "contradiction__metric", "resolution", "action", "chosen_finding__value"
        )
    )


def test_arbitrations_holding_nul_think_blocks_or_empty_replies_are_stored_and_the_run_completes(
    fake_openai,
):
    expected = outcome(run_contradictions())
    fake_openai.log.clear()
    faults = {
        1: Reply.nul("character"),
        2: Reply.nul("json_escape"),
        3: Reply.think("Hmm."),
        4: Reply.empty(),
    }
    fake_openai.plan = lambda r: faults.get(r.number)

    run = run_contradictions()

    assert run.status == ContradictionRun.Status.COMPLETED, run.error
    assert outcome(run) == expected and len(expected) == 4
    calls = list(ArbitrationCall.objects.filter(run=run))
    assert {(c.status, c.parse_failed) for c in calls} == {("done", False)}
    raw = " ".join(c.raw_reply for c in calls)
    assert "\x00NUL\x00" in raw and "\\u0000NUL\\u0000" in raw and "<think>Hmm.</think>" in raw
    assert sorted(c.attempts for c in calls) == [1, 1, 1, 2]  # the empty reply was retried
    assert fake_openai.count() == 5
    explanations = " ".join(
        Resolution.objects.filter(contradiction__run=run).values_list("explanation", flat=True)
    )
    assert "\ufffdNUL\ufffd" in explanations and "<think>" not in explanations
