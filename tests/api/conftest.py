"""API fixtures: users, tokens and clients that authenticate the way programs do."""

from __future__ import annotations

import sys

import pytest
from rest_framework.test import APIClient

from accounts.services import token_issue
from tests.factories import StaffFactory, UserFactory
from tests.support.threads import serve_in_thread


@pytest.fixture
def user(db):
    return UserFactory(username="ana")


@pytest.fixture
def other_user(db):
    return UserFactory(username="ben")


@pytest.fixture
def staff_user(db):
    return StaffFactory(username="sam")


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        _, raw = token_issue(user=user, name="tests")
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture
def api(user):
    return client_for(user)


@pytest.fixture
def other_api(other_user):
    return client_for(other_user)


@pytest.fixture
def staff_api(staff_user):
    return client_for(staff_user)


@pytest.fixture
def anon_api():
    return APIClient()


class Receiver:
    """A real HTTP server on 127.0.0.1 that records what it is sent and answers with the
    status codes it was told to, in order (then 200)."""

    def __init__(self):
        import http.server
        import threading

        self.requests: list[dict] = []
        self.statuses: list[int] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body}
                    )
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                if 300 <= status < 400:  # somewhere to go: a client that follows comes back
                    self.send_header("Location", f"{self.path}/moved")
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(f"answered {status}".encode())

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/debates"
        self.thread = serve_in_thread(self.server)

    def answer(self, *statuses: int) -> None:
        self.statuses.extend(statuses)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def pytest_terminal_summary(terminalreporter):
    """The property tests' counts per role (`test_schema.FUZZ_COUNTS`), when they ran."""
    module = sys.modules.get("tests.api.test_schema")
    for role, counts in sorted(getattr(module, "FUZZ_COUNTS", {}).items()):
        terminalreporter.write_line(
            f"schemathesis [{role}]: {counts['cases']} cases, {counts['server_errors']} server "
            f"errors, {counts['violations']} schema violations"
        )
