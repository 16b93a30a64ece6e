"""The live page follows the debate's event stream (server-sent events) on the ASGI server, and
polls where the stream cannot be had (a WSGI server, such as the test's live server); in real
headless Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import requests
from django.conf import settings

from debates import running, services
from tests.conftest import ROOT
from tests.debates.test_live_browser import PASSWORD, log_in
from tests.support.serve import free_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def asgi_server(tmp_path):
    """The ASGI application under uvicorn, on the test database: its base URL."""
    db = settings.DATABASES["default"]
    port = free_port()
    log = open(tmp_path / "uvicorn.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port)],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "REDIS_URL": settings.REDIS_URL,
        },
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            requests.get(f"{url}/accounts/login/", timeout=2)
            break
        except requests.RequestException:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError((tmp_path / "uvicorn.log").read_text()) from None
            time.sleep(0.2)
    yield url
    proc.terminate()
    proc.wait(timeout=20)
    log.close()


def _watch_a_debate_unfold(page, base_url, django_user_model):
    user = django_user_model.objects.create_user("lea", password=PASSWORD)
    log_in(page, base_url, "lea")
    debate = services.debate_create(
        query="Is tea better than coffee?", created_by=user, enqueue=False
    )
    page.goto(f"{base_url}/debates/{debate.id}/")
    page.wait_for_function("() => window.debateLive.transport !== ''")
    if page.evaluate("window.debateLive.transport") == "stream":
        page.wait_for_function("() => window.debateLive.transport === 'stream'")
    running.debate_run(debate_id=debate.id)
    page.locator("#decision").wait_for()
    assert page.locator("section.round").count() == 4
    assert page.evaluate("window.debateLive.updates") >= 1


def test_on_the_asgi_server_the_live_page_follows_the_debates_events(
    asgi_server, page, default_agents, django_user_model
):
    _watch_a_debate_unfold(page, asgi_server, django_user_model)
    assert page.evaluate("window.debateLive.transport") == "stream"
    assert page.evaluate("window.debateLive.events") >= 12


def test_where_the_stream_cannot_be_had_the_live_page_polls(
    live_server, page, default_agents, django_user_model
):
    _watch_a_debate_unfold(page, live_server.url, django_user_model)
    assert page.evaluate("window.debateLive.transport") == "poll"
    assert page.evaluate("window.debateLive.events") == 0
