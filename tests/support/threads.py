"""Threads in tests: serving a test's HTTP server from a thread of its own (`serve_in_thread`),
and actions started at the same moment, as two workers or two reviewers would (`at_once`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from socketserver import BaseServer
from typing import Any

from django.db import connections

#: How often the serving thread looks whether `shutdown()` was asked. The standard library's
#: half a second is what every test's teardown would then wait.
POLL_INTERVAL = 0.01


def serve_in_thread(server: BaseServer, *, name: str | None = None, start: bool = True):
    """A daemon thread serving `server` until `server.shutdown()` (started unless `start` is
    False)."""
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": POLL_INTERVAL},
        daemon=True,
        name=name,
    )
    if start:
        thread.start()
    return thread


def at_once(
    *actions: Callable[[], Any], expected: tuple[type[BaseException], ...] = ()
) -> list[Any]:
    """Run each of `actions` in a thread of its own, all let go at the same moment (a barrier),
    each thread closing its database connections when its action ends. Returns what each action
    returned, in their order, or the exception it raised when that is one of `expected`; any
    other exception is raised here once every thread has ended."""
    barrier = threading.Barrier(len(actions))
    outcomes: list[Any] = [None] * len(actions)
    unexpected: list[BaseException] = []

    def run(index: int, action: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            outcomes[index] = action()
        except expected as exc:
            outcomes[index] = exc
        except BaseException as exc:  # noqa: BLE001 - raised in the test's thread below
            unexpected.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if unexpected:
        raise unexpected[0]
    return outcomes
