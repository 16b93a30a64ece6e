"""A Celery app for the crash tests: the project's own app, with every LLM call written down at
the gateway (the one boundary patched), so a test can tell which calls any worker made.

Start a worker with `-A tests.recovery.call_log` and DEBATE_CALL_LOG=<file>. Each line is
`<pid> start|done <fingerprint>`, the fingerprint being that of the messages sent, which
`fingerprint(LLMCall.prompt)` gives for a stored call.
"""

from __future__ import annotations

import hashlib
import json
import os

from agents import gateway
from config.celery import app

__all__ = ["app", "fingerprint", "read"]


def fingerprint(messages) -> str:
    return hashlib.sha256(json.dumps(list(messages), sort_keys=True).encode()).hexdigest()[:16]


def read(path) -> list[tuple[int, str, str]]:
    with open(path) as handle:
        return [(int(pid), event, fp) for pid, event, fp in (line.split() for line in handle)]


def _logged(real):
    path = os.environ.get("DEBATE_CALL_LOG")

    async def acomplete(**kwargs):
        fp = fingerprint(kwargs["messages"])
        _write(path, f"{os.getpid()} start {fp}\n")
        response = await real(**kwargs)
        _write(path, f"{os.getpid()} done {fp}\n")
        return response

    return acomplete


def _write(path, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())  # one write per line: lines from threads never interleave
    finally:
        os.close(fd)


if os.environ.get("DEBATE_CALL_LOG"):
    gateway.acomplete = _logged(gateway.acomplete)
