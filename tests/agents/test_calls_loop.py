"""The calls' event loop: a step's calls are in flight at once on one thread of the process (not a
thread each), a forked child gets a loop of its own, and a step cut short by an unexpected
error lets its calls in flight end and counts them. Real calls to the offline model through
litellm's `acompletion`."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time

import pytest

from agents import calls_loop, gateway
from budgets.limits import EVER, Allowance, Spender

OFFLINE = "offline/heuristic-demo"


def _calls(n: int) -> dict[str, dict]:
    return {
        f"c{i}": {"model": OFFLINE, "messages": [{"role": "user", "content": f"Is {i} safe?"}]}
        for i in range(n)
    }


class Watched:
    """Stands around `gateway.acomplete`: the threads the calls ran on, and the most in flight
    at once."""

    def __init__(self):
        self.ran_on: list[str] = []
        self.in_flight = 0
        self.most = 0
        self.real = gateway.acomplete

    async def __call__(self, **kwargs):
        self.ran_on.append(threading.current_thread().name)
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            return await self.real(**kwargs)
        finally:
            self.in_flight -= 1


@pytest.fixture
def watched(monkeypatch) -> Watched:
    calls = Watched()
    monkeypatch.setattr(gateway, "acomplete", calls)
    return calls


def _run(n: int, max_workers: int) -> tuple[list, list]:
    returned: list = []
    errors = gateway.complete_concurrently(
        _calls(n),
        max_workers=max_workers,
        on_returned=lambda answered: returned.extend(k for k, _ in answered),
        on_failed=lambda key, exc: None,
    )
    return returned, errors


def test_a_steps_calls_are_in_flight_at_once_on_the_loops_one_thread(settings, watched):
    settings.DEBATE_OFFLINE_LATENCY = 0.3
    started = time.monotonic()
    returned, errors = _run(6, max_workers=6)
    took = time.monotonic() - started
    assert errors == [] and sorted(returned) == [f"c{i}" for i in range(6)]
    # all six on the loop's one thread, all in flight together (no thread each)
    assert set(watched.ran_on) == {"llm-calls"} and watched.most == 6
    assert took < 6 * 0.3 / 2  # together, not one after another (1.8 s)


def test_at_most_max_workers_calls_of_a_step_are_in_flight(settings, watched):
    settings.DEBATE_OFFLINE_LATENCY = 0.05
    returned, _ = _run(7, max_workers=2)
    assert len(returned) == 7 and watched.most == 2


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_process_makes_its_calls_on_a_loop_of_its_own(settings):
    settings.DEBATE_OFFLINE_LATENCY = 0
    parent_loop = calls_loop.calls_loop()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: as a prefork worker's process is
        try:
            reply = gateway.complete(
                model=OFFLINE, messages=[{"role": "user", "content": "Is it raining?"}]
            )
            same = calls_loop.calls_loop() is parent_loop
            os.write(write, json.dumps({"content": reply.content, "same": same}).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        answer = json.loads(pipe.read() or "{}")
    os.waitpid(pid, 0)
    assert answer.get("content") and answer["same"] is False
    assert calls_loop.calls_loop() is parent_loop


def test_waiting_on_a_call_from_the_loops_own_thread_is_refused():
    async def inside():
        return gateway.complete(model=OFFLINE, messages=[{"role": "user", "content": "Hm?"}])

    future = asyncio.run_coroutine_threadsafe(inside(), calls_loop.calls_loop())
    with pytest.raises(RuntimeError, match="calls' own loop"):
        future.result(timeout=10)


def _os_name() -> str:
    with open(f"/proc/self/task/{threading.get_native_id()}/comm") as f:
        return f.read().strip()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads Linux's /proc")
def test_the_calls_threads_are_named_at_the_os_level_too():
    # `top -H` and the benchmark tell the calls' threads (the loop's, and the executor's where
    # litellm runs a call's synchronous part) from the debates' by this name.
    async def names():
        on_executor = await asyncio.get_running_loop().run_in_executor(None, _os_name)
        return _os_name(), on_executor

    loop_thread, executor_thread = asyncio.run_coroutine_threadsafe(
        names(), calls_loop.calls_loop()
    ).result(timeout=10)
    assert loop_thread == "llm-calls"
    assert executor_thread.startswith("llm-calls_")
    assert _os_name() != "llm-calls"


class _Died(BaseException):
    pass


@pytest.mark.django_db
def test_a_step_cut_short_lets_its_calls_in_flight_end_and_counts_them(settings, monkeypatch):
    from budgets.models import Counter

    settings.DEBATE_OFFLINE_LATENCY = 0
    ended = []
    real = gateway.acomplete

    async def one_dies(**kwargs):
        if "Is 0 safe?" in kwargs["messages"][0]["content"]:
            await asyncio.sleep(0.05)
            raise _Died()
        await asyncio.sleep(0.3)  # still in flight when the other dies
        reply = await real(**kwargs)
        ended.append(kwargs["messages"][0]["content"])
        return reply

    monkeypatch.setattr(gateway, "acomplete", one_dies)
    spender = Spender(
        allowances=(Allowance(scope="debate", key="debate:cut", period=EVER, calls=10),),
        user_id=None,
        max_tokens=256,
    )
    calls = {k: {**v, "spender": spender} for k, v in _calls(3).items()}
    handed = []
    with pytest.raises(_Died):
        gateway.complete_concurrently(
            calls,
            max_workers=2,
            on_returned=lambda answered: handed.extend(k for k, _ in answered),
            on_failed=lambda key, exc: None,
        )
    # c0 died, c1 was in flight and ended (its reply not kept), c2 was never sent.
    assert ended == ["Is 1 safe?"] and handed == []
    counter = Counter.objects.get(key="debate:cut")
    assert (counter.used_calls, counter.reserved_calls) == (2, 0)
