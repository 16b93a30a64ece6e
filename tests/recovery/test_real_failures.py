"""How real models fail, through the real gateway against the fake OpenAI-compatible server
(`tests/support/fake_openai.py`): a call that exhausts its attempts makes the task retry later
from what is stored; only permanent errors, or transient ones past the retry budget, fail the
debate into the review queue."""

from __future__ import annotations

import pytest
from django.conf import settings

from debates import running, services
from debates.models import Challenge, Debate, LLMCall, Round, Statement, Vote
from runs import lifecycle
from tests.conftest import wait_for
from tests.support.fake_openai import FAULTS, FaultPlan, Reply

EXPECTED = {  # the offline model's decisions, which the fake server answers with
    "Is Bitcoin a good investment?": "WARN",
    "What is the capital of France?": "ACT",
    "How do I hack into my ex's email?": "REFUSE",
    "Should I learn Python or JavaScript first?": "ACT",
}
QUESTIONS = list(EXPECTED)


def _create(server, question="Is Bitcoin a good investment?", **kwargs) -> Debate:
    return services.debate_create(query=question, options={"model": server.model}, **kwargs)


# --- in-process: the run core's side of a retry ---------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_call_that_exhausts_its_attempts_sends_the_debate_back_to_queued_to_retry(
    default_agents, fake_openai, settings
):
    settings.DEBATE_LLM_MAX_RETRIES = 1
    debate = _create(fake_openai, enqueue=False)
    fake_openai.script_for("Safety Agent", Reply.error(503), Reply.error(503))

    with pytest.raises(lifecycle.TransientFailure) as raised:
        running.debate_run(debate_id=debate.id, may_retry=True)

    debate.refresh_from_db()
    assert debate.status == Debate.Status.QUEUED
    assert debate.error.startswith("Will retry: The language model failed (after retries)")
    assert debate.attempts == 0  # a clean stop is not a dead worker's attempt
    assert "overloaded" in raised.value.error  # the 503 the server sent
    answered = set(
        LLMCall.objects.filter(debate=debate, status="done").values_list("key", flat=True)
    )
    assert len(answered) == 2  # round 1's other two calls are kept

    # The retry resumes from what is stored: only the failed call is made again.
    before = fake_openai.count()
    done = running.debate_run(debate_id=debate.id, may_retry=True)
    assert (done.status, done.error, done.attempts) == ("completed", "", 1)
    assert fake_openai.count() - before == 12 - len(answered)
    assert not fake_openai.repeated()
    assert not done.review_items.filter(reason="debate_failed").exists()


@pytest.mark.django_db(transaction=True)
def test_a_permanent_error_fails_the_debate_into_review_at_once(default_agents, fake_openai):
    debate = _create(fake_openai, enqueue=False)
    fake_openai.script(Reply.error(401, "Incorrect API key provided"))

    done = running.debate_run(debate_id=debate.id, may_retry=True)

    assert done.status == Debate.Status.FAILED
    assert done.error.startswith("The language model failed (permanent)")
    assert list(done.review_items.values_list("reason", flat=True)) == ["debate_failed"]


# --- through a real worker ------------------------------------------------------------------------


def _fast_retries(server, **extra) -> dict[str, str]:
    return {
        **server.env(),
        "DEBATE_LLM_MAX_RETRIES": "1",  # two attempts a call: task retries happen often
        "DEBATE_LLM_TIMEOUT": "1",
        "DEBATE_TASK_RETRY_DELAY": "0.2",
        "DEBATE_TASK_RETRY_MAX_DELAY": "1",
        **extra,
    }


def _ended(ids):
    def check():
        rows = list(Debate.objects.filter(id__in=ids, status__in=["completed", "failed"]))
        return rows if len(rows) == len(ids) else None

    return check


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_at_30_percent_mixed_transient_faults_every_debate_completes(
    default_agents, fake_openai, worker_factory
):
    fake_openai.plan = FaultPlan(
        rate=0.3, seed=12, kinds={**FAULTS, "timeout": lambda: Reply.slow(2)}
    )
    worker = worker_factory("faults", extra_env=_fast_retries(fake_openai))
    # Eight debates, each asking its own question (the server tells calls apart by prompt).
    debates = [_create(fake_openai, f"{q} (case {i})") for i in (1, 2) for q in QUESTIONS]

    ended = wait_for(_ended([d.id for d in debates]), timeout=180, interval=0.5)

    assert [d.status for d in ended] == ["completed"] * len(debates), [d.error for d in ended]
    for debate in ended:
        # As without faults; unless a call stayed empty through its last attempt and became the
        # fail-safe (an unparseable reply), which goes to review.
        expected = EXPECTED[debate.query.rsplit(" (case", 1)[0]]
        assert debate.decision == expected or debate.metadata["parse_failures"]
    faults = sum(fake_openai.count(kind=k) for k in (*FAULTS, "slow"))  # "slow": timed out
    assert faults >= 0.2 * fake_openai.count()
    assert "retry: Retry in" in worker.log.read_text()  # some calls ran out of attempts
    assert not fake_openai.repeated()  # no answered call was asked again
    for debate in ended:  # and nothing was stored twice
        counts = (
            LLMCall.objects.filter(debate=debate).count(),
            Statement.objects.filter(debate=debate).count(),
            Challenge.objects.filter(debate=debate).count(),
            Vote.objects.filter(debate=debate).count(),
            Round.objects.filter(debate=debate).count(),
        )
        assert counts == (12, 6, 6, 3, 4)
        assert not debate.review_items.filter(reason="debate_failed").exists()


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_a_model_down_past_the_retry_budget_fails_the_debate_into_review(
    default_agents, fake_openai, worker_factory
):
    fake_openai.plan = lambda request: Reply.error(503)
    worker_factory("down", extra_env=_fast_retries(fake_openai, DEBATE_TASK_MAX_RETRIES="2"))
    debate = _create(fake_openai)

    [done] = wait_for(_ended([debate.id]), timeout=60, interval=0.3)

    assert done.status == Debate.Status.FAILED
    assert done.error.startswith("The language model failed (after retries)")
    # Three runs of the task (the first and two retries), each call tried twice in each.
    assert fake_openai.count() == 3 * 3 * 2
    assert list(done.review_items.values_list("reason", flat=True)) == ["debate_failed"]
    assert settings.DEBATE_TASK_MAX_RETRIES == 5  # the default budget is larger
