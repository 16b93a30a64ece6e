"""A crash is charged, not forgotten: debates killed with their worker while round 2's calls are
in flight at a provider that bills with a real tokenizer (`tests/support/fake_openai.py`). The
provider answers and bills those calls all the same, and the resumed debates make them again;
every dollar it billed is counted against the limits (the calls in flight at their most), the
holds they left are charged when the sweeper finds the debates, and each debate's cost says
what was counted for it."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from budgets.limits import DAY, period_key
from budgets.models import Counter, Hold, SpendingLimit
from debates import recovery, services
from debates.models import Debate, LLMCall
from tests.conftest import wait_for
from tests.factories import UserFactory
from tests.support.fake_openai import Reply

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PRICES = {"input": 20, "output": 60}  # USD per million tokens
ROUND_TWO = "STEP: challenge (round 2 of 4)"
DEBATES = 2  # the worker runs two at once
QUESTIONS = [
    "Is it a good idea to invest now? " + "🙂" * 300,
    "现在投资是个好主意吗？" * 40,
    "Should we rewrite `for i in range(10**9): x += i` in C? " * 8,
]


def _finished(debate_id):
    def check():
        debate = Debate.objects.get(id=debate_id)
        return debate if debate.is_finished else None

    return check


def test_calls_in_flight_when_a_worker_dies_are_counted_and_no_billed_dollar_is_lost(
    worker_factory, fake_openai, default_agents, settings
):
    settings.BUDGET_MODEL_PRICES = {fake_openai.model: PRICES}
    settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL = 150
    env = {**fake_openai.env(), "BUDGET_MODEL_PRICES": json.dumps({fake_openai.model: PRICES})}
    released = threading.Event()
    fake_openai.script_for(ROUND_TWO, *[Reply.held(released)] * (6 * DEBATES))
    ana = UserFactory(username="ana")
    SpendingLimit.objects.create(scope="user", user=ana, daily_cost_usd=Decimal("50"))
    first = worker_factory("first", extra_env=env)
    debates = [
        services.debate_create(query=q, created_by=ana, options={"model": fake_openai.model})
        for q in QUESTIONS[:DEBATES]
    ]
    wait_for(lambda: fake_openai.count(kind="held") == 6 * DEBATES, timeout=120, interval=0.05)

    first.kill()  # SIGKILL to the whole worker: its machine died, 12 calls in flight
    in_flight = LLMCall.objects.filter(debate__in=debates, status=LLMCall.Status.PENDING).count()
    released.set()  # the provider answers them all the same (to no one), and bills them
    wait_for(
        lambda: all(r.completion_tokens for r in fake_openai.requests(kind="held")), timeout=30
    )

    # The sweeper finds the debates (clock moved past the heartbeat timeout; a killed worker's
    # session may take a moment to end, and its locks with it) and charges what they left.
    later = timezone.now() + timedelta(seconds=django_settings.DEBATE_HEARTBEAT_TIMEOUT + 1)
    requeued: set[str] = set()

    def sweep():
        requeued.update(recovery.recover_stuck_debates(now=later).requeued)
        return requeued >= {str(d.id) for d in debates}

    wait_for(sweep, timeout=30, interval=0.2)
    assert not Hold.objects.filter(run__in=[f"debate:{d.id}" for d in debates]).exists()
    lost = LLMCall.objects.filter(debate__in=debates, lost_cost_usd__gt=0)
    assert lost.count() == in_flight == 6 * DEBATES

    worker_factory("second", extra_env=env)
    ended = [wait_for(_finished(d.id), timeout=180) for d in debates]

    requests = fake_openai.requests(status=200)
    _, _, billed = fake_openai.billed({"fake-model": (PRICES["input"], PRICES["output"])})
    counter = Counter.objects.get(key=f"user:{ana.pk}", period=period_key(DAY, timezone.now()))
    charged = sum(c.lost_cost_usd for c in LLMCall.objects.filter(debate__in=debates))
    print(
        f"\n{DEBATES} debates, {in_flight} calls in flight at the kill: the provider answered "
        f"{len(requests)} requests for {len({r.fingerprint for r in requests})} prompts and "
        f"billed ${billed:.6f}; counted ${counter.used_cost_usd:.6f} (calls in flight at their "
        f"most: ${charged:.6f})"
    )
    assert [d.status for d in ended] == [Debate.Status.COMPLETED] * DEBATES, [
        d.error for d in ended
    ]
    assert len(requests) == 12 * DEBATES + in_flight  # each lost call made twice
    # Every dollar billed is counted; what is counted beyond it is the lost calls' margin.
    replies = sum(c.cost_usd for c in LLMCall.objects.filter(debate__in=debates))
    billed_lost = billed - replies
    assert counter.used_cost_usd >= billed
    assert counter.used_cost_usd == replies + charged
    assert charged >= billed_lost > 0
    assert counter.reserved_cost_usd == 0 and not Hold.objects.exists()
    # Each debate's cost is what was counted for it, lost calls included.
    assert sum(d.cost_usd for d in ended) == counter.used_cost_usd.quantize(Decimal("1e-6"))
