"""Serving a test's HTTP server from a thread of its own."""

from __future__ import annotations

import threading
from socketserver import BaseServer

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
