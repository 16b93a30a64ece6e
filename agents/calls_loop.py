"""The calls' event loop: one per process, on a thread of its own, on which every LLM call runs
as a coroutine (at most `DEBATE_LLM_MAX_IN_FLIGHT` at once); threads that ask wait on futures."""

from __future__ import annotations

import asyncio
import ctypes
import os
import sys
import threading
from collections.abc import Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.conf import settings

from agents.replies import LLMResponse
from config import tracing

_setup_lock = threading.Lock()

_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: threading.Thread | None = None
_loop_pid: int | None = None
_in_flight: asyncio.Semaphore | None = None


#: The name of the calls' loop thread, and the prefix of its executor's threads (litellm runs
#: the synchronous part of each call there), in Python and at the OS level.
CALLS_THREAD_NAME = "llm-calls"


def _name_os_thread() -> None:
    """Give the calling thread its Python name at the OS level too (its first 15 bytes, as
    Linux keeps them), so `top -H`, `ps -L` and `/proc/<pid>/task/*/comm` tell the calls'
    threads from the others; Python 3.14 does this itself. Best effort: elsewhere, nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, threading.current_thread().name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def _run_forever(loop: asyncio.AbstractEventLoop) -> None:
    _name_os_thread()
    loop.run_forever()


def calls_loop() -> asyncio.AbstractEventLoop:
    """The process's one event loop for LLM calls, on a thread of its own ("llm-calls"),
    started on first use and kept for the life of the process. Every call is a coroutine on
    it (litellm's `acompletion`): a call waiting on its model holds no thread, so the calls of
    every debate the process runs share one thread instead of taking one each, and fewer
    threads contend for the interpreter. A forked child starts its own: threads do not
    survive a fork. The loop's thread and those of its default executor (where litellm runs
    the synchronous part of each call) are named `llm-calls`, in Python and at the OS level,
    so what the calls cost can be read per thread."""
    global _loop, _loop_thread, _loop_pid, _in_flight
    if _loop is None or _loop_pid != os.getpid():
        with _setup_lock:
            if _loop is None or _loop_pid != os.getpid():
                loop = asyncio.new_event_loop()
                loop.set_default_executor(
                    ThreadPoolExecutor(
                        thread_name_prefix=CALLS_THREAD_NAME, initializer=_name_os_thread
                    )
                )
                thread = threading.Thread(
                    target=_run_forever, args=(loop,), name=CALLS_THREAD_NAME, daemon=True
                )
                thread.start()
                _in_flight = asyncio.Semaphore(settings.DEBATE_LLM_MAX_IN_FLIGHT)
                _loop, _loop_thread, _loop_pid = loop, thread, os.getpid()
    return _loop


async def _held(call: Coroutine[Any, Any, LLMResponse]) -> LLMResponse:
    """`call`, once fewer than `DEBATE_LLM_MAX_IN_FLIGHT` calls of the process are in flight."""
    assert _in_flight is not None
    async with _in_flight:
        return await call


def start(call: Coroutine[Any, Any, LLMResponse]) -> Future:
    """Start `call` on the calls' loop, in the trace context of the calling thread (its spans
    are children of the caller's: `config.tracing.carried`); its future, to wait on from any
    thread but the loop's own."""
    loop = calls_loop()
    if threading.current_thread() is _loop_thread:
        call.close()
        raise RuntimeError("an LLM call cannot be waited on from the calls' own loop")
    return asyncio.run_coroutine_threadsafe(_held(tracing.carried(call)), loop)
