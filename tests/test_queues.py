"""Each kind of task on a queue of its own (settings.CELERY_TASK_ROUTES), read by workers of its
own: a flood of one kind does not hold up another."""

from __future__ import annotations

import http.server
import time
import uuid

import pytest
from celery.app.routes import prepare
from django.conf import settings

from config.celery import app
from debates import services
from debates.models import Debate
from debates.tasks import deliver_webhook
from runs import sweeping
from tests.conftest import wait_for
from tests.factories import UserFactory
from tests.support.threads import serve_in_thread

FLOOD = 60
RECEIVER_HANGS = 2.0  # seconds before the receiver answers 503


@pytest.mark.django_db  # a worker's import checks the models, which reads the server's version
def test_every_task_has_a_queue_of_its_kind(real_task_routes):
    routes = {task: route["queue"] for task, route in settings.CELERY_TASK_ROUTES.items()}
    assert routes == {
        "debates.run_debate": "debates",
        "contradictions.run": "contradictions",
        "debates.deliver_webhook": "webhooks",
        "debates.recover_stuck_debates": "housekeeping",
        "schedules.fire_schedule": "housekeeping",
        "reviews.sweep_deadlines": "housekeeping",
        "evaluation.sweep_runs": "housekeeping",
        "evaluation.advance_run": "housekeeping",
    }
    app.loader.import_default_modules()  # every app's tasks module, as a worker imports them
    registered = {name for name in app.tasks if not name.startswith("celery.")}
    assert registered == set(routes), "a new task needs a route (config/settings/base.py)"
    assert sweeping.sent_to("debates.run_debate") == "debates"
    assert sweeping.sent_to("some.unrouted_task") == settings.CELERY_TASK_DEFAULT_QUEUE


class _DownReceiver:
    """A webhook receiver that is down: it holds each request, then answers 503."""

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the http.server API
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                time.sleep(RECEIVER_HANGS)
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        serve_in_thread(self.server)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_a_flood_of_failing_webhook_deliveries_does_not_delay_a_debate(
    default_agents, private_queue, worker_factory, redis_client
):
    # The test process sends each kind to its own queue (named after the private one), as a
    # deployment does; one worker reads the webhooks' queue, another the debates'.
    queue_of = {kind: f"{private_queue}.{kind}" for kind in settings.TASK_QUEUES}
    app.amqp.router.routes = prepare(
        {
            task: {"queue": queue_of[kind]}
            for task, kind in (
                (task, route["queue"].removeprefix(settings.TASK_QUEUE_PREFIX))
                for task, route in settings.CELERY_TASK_ROUTES.items()
            )
        }
    )
    worker_factory("webhooks", kinds=["webhooks"])
    worker_factory("debates", kinds=["debates"])
    receiver = _DownReceiver()
    try:
        owner = UserFactory()
        finished = services.debate_create(query="What is the capital of France?", enqueue=False)
        Debate.objects.filter(id=finished.id).update(created_by=owner)
        for _ in range(FLOOD):
            deliver_webhook.delay(
                event_id=str(uuid.uuid4()),
                debate_id=str(finished.id),
                event="debate.completed",
                url=receiver.url,
                payload={"event": "debate.completed"},
            )
        # The webhooks' worker is busy: both its threads wait on the receiver.
        wait_for(lambda: redis_client.llen(queue_of["webhooks"]) < FLOOD, timeout=60)

        started = time.monotonic()
        debate = services.debate_create(query="Is Bitcoin a good investment?")
        wait_for(
            lambda: Debate.objects.filter(id=debate.id, status=Debate.Status.COMPLETED).exists(),
            timeout=60,
            interval=0.1,
        )
        took = time.monotonic() - started
        waiting = redis_client.llen(queue_of["webhooks"])
    finally:
        receiver.close()
    # With one queue, the debate would have waited behind ~FLOOD * RECEIVER_HANGS / 2 seconds
    # of deliveries; it did not wait for them, and most of them still wait.
    assert waiting > FLOOD // 2
    assert took < FLOOD * RECEIVER_HANGS / 4, took
    print(f"debate completed in {took:.1f} s with {waiting} webhook deliveries still waiting")
