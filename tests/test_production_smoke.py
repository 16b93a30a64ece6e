"""The production stack as a deployment runs it: `bin/serve` with production settings on
127.0.0.1 (a generated strong secret, allowed hosts, the header of a TLS-terminating proxy, an
OpenAI-compatible model server), checked over HTTP: static files with far-future caching,
readiness, a token-authenticated debate through the stack's own worker, the security headers,
a SIGTERM in the middle of a debate that loses nothing, a worker that dies started again, and
traces exported by the ASGI web server and the worker as one trace per debate."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import threading
import time

import pytest

from accounts.services import token_issue
from debates.models import Debate, LLMCall
from tests.conftest import ROOT, wait_for
from tests.factories import UserFactory
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.otlp_collector import OTLPCollector
from tests.support.serve import RedisServer, Stack

# Two starts of six processes each: slow on a busy machine.
pytestmark = [
    pytest.mark.smoke,
    pytest.mark.e2e,  # real Celery workers (the stack's)
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(900),
]

# A debate of the S4 protocol is 12 calls: 3 analyses, 6 challenges, 3 revisions with votes.
S4_CALLS = 12


@pytest.fixture
def model_server():
    with FakeOpenAI() as server:
        yield server


def test_the_production_stack_serves_runs_debates_and_stops_without_losing_one(
    default_agents, model_server, tmp_path
):
    times = {}
    user = UserFactory(username="smoke")
    _, token = token_issue(user=user, name="smoke test")
    with RedisServer() as redis_url, OTLPCollector() as collector:
        stack = Stack(
            tmp_path,
            redis_url=redis_url,
            env={
                **model_server.env(),
                "DEBATE_DEFAULT_MODEL": model_server.model,
                "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
                "OTEL_BSP_SCHEDULE_DELAY": "200",
            },
        )
        stack.session.headers["Authorization"] = f"Bearer {token}"
        try:
            times["first start"] = stack.start()

            # Static files: collected under hashed names, cached for a year, gzip on request.
            manifest = json.loads((stack.static_root / "staticfiles.json").read_text())
            hashed = manifest["paths"]["vendor/chartjs/chart.umd.min.js"]
            assert hashed != "vendor/chartjs/chart.umd.min.js"
            asset = stack.get(f"/static/{hashed}", headers={"Accept-Encoding": "identity"})
            assert asset.status_code == 200
            assert asset.headers["Cache-Control"] == "max-age=315360000, public, immutable"
            assert asset.content == (ROOT / "static/vendor/chartjs/chart.umd.min.js").read_bytes()
            zipped = stack.get(
                f"/static/{hashed}", headers={"Accept-Encoding": "gzip"}, stream=True
            )
            assert zipped.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(zipped.raw.read()) == asset.content
            # Pages link their assets by the hashed names (the API docs: Swagger UI's files).
            docs = stack.get("/api/docs/")
            assert docs.status_code == 200, docs.text[:500]
            linked = re.findall(
                r'"(/static/drf_spectacular_sidecar/[^"]+\.[0-9a-f]{12}\.css)"', docs.text
            )
            assert linked, docs.text[:2000]
            assert stack.get(linked[0]).headers["Cache-Control"].endswith("immutable")
            login = stack.get("/accounts/login/")
            assert login.status_code == 200

            # Readiness, and the security headers on every answer.
            health = stack.get("/api/v1/health/")
            assert health.status_code == 200 and health.json() == {"status": "ok"}
            for response in (health, login, asset):
                assert response.headers["Strict-Transport-Security"] == (
                    "max-age=31536000; includeSubDomains; preload"
                )
                assert response.headers["X-Content-Type-Options"] == "nosniff"
            assert "default-src 'self'" in login.headers["Content-Security-Policy"]
            assert "frame-ancestors 'none'" in login.headers["Content-Security-Policy"]
            assert "'nonce-" in login.headers["Content-Security-Policy"]
            # Plain HTTP (no proxy header) is sent to HTTPS.
            plain = stack.session.get(
                stack.base + "/api/v1/health/",
                headers={"X-Forwarded-Proto": "http"},
                allow_redirects=False,
                timeout=10,
            )
            assert plain.status_code == 301
            assert plain.headers["Location"] == f"https://127.0.0.1:{stack.port}/api/v1/health/"

            # A debate started over the API runs through the stack's worker. SIGTERM while the
            # calls of its second step are in flight: they return and are stored, the debate is
            # queued again and the worker exits; after a restart the debate completes, no call
            # made twice.
            second_step = threading.Event()
            model_server.plan = lambda r: Reply.held(second_step) if r.number > 3 else None
            created = stack.post(
                "/api/v1/debates/", json={"question": "Is Bitcoin a good investment?"}
            )
            assert created.status_code == 202, created.text
            debate_id = created.json()["id"]
            wait_for(lambda: model_server.count() == 3 + 6, timeout=120, interval=0.05)
            stopping = time.monotonic()
            stack.terminate()
            # Every worker (one per queue) has had its SIGTERM: the debates' one too.
            wait_for(lambda: stack.log.read_text().count("Warm shutdown") == 4, timeout=30)
            second_step.set()
            code, _ = stack.stop()
            times["stop during a debate"] = time.monotonic() - stopping
            assert code == 0, stack.tail()
            interrupted = Debate.objects.get(id=debate_id)
            assert interrupted.status == Debate.Status.QUEUED, stack.tail()
            calls = LLMCall.objects.filter(debate_id=debate_id)
            assert calls.filter(status=LLMCall.Status.DONE).count() == 3 + 6 == calls.count()
            assert "queued again: its worker is shutting down" in stack.log.read_text()

            times["second start"] = stack.start()
            done = wait_for(lambda: _finished(stack, debate_id), timeout=120, interval=0.2)
            assert done["status"] == "completed", done
            assert done["decision"] in ("ACT", "WARN", "REFUSE")
            assert LLMCall.objects.filter(debate_id=debate_id).count() == S4_CALLS
            assert model_server.count() == S4_CALLS  # no call made twice
            assert not model_server.repeated()

            # Traces: the request, served by uvicorn under gunicorn, and the worker's run of the
            # debate (before the SIGTERM) are one trace; the calls are spans of the run.
            def traced():
                spans = collector.spans()
                post = [
                    x
                    for x in spans
                    if x.service == "debates-web" and x.name == "POST api/v1/debates/$"
                ]
                runs = [
                    x for x in spans if x.service == "debates-worker" and x.name == "debate.run"
                ]
                return (post, runs) if post and runs else None

            post, runs = wait_for(traced, timeout=30, interval=0.2)
            assert post[0].trace_id in {r.trace_id for r in runs}, (post, runs)
            chats = [x for x in collector.spans() if x.name.startswith("chat ")]
            assert {x.trace_id for x in chats} & {post[0].trace_id}
            # A process that dies is started again.
            dead = int(stack.ctl("pid", "workers:worker-debates"))
            os.kill(dead, signal.SIGKILL)
            wait_for(
                lambda: (
                    stack.ctl("pid", "workers:worker-debates") not in ("0", str(dead))
                    and "RUNNING" in stack.ctl("status", "workers:worker-debates")
                ),
                timeout=60,
            )
            code, times["last stop"] = stack.stop()
            assert code == 0, stack.tail()
        finally:
            stack.kill()
    print("production smoke:", ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))


def _finished(stack: Stack, debate_id: str) -> dict | None:
    body = stack.get(f"/api/v1/debates/{debate_id}/").json()
    return body if body["status"] in ("completed", "failed") else None
