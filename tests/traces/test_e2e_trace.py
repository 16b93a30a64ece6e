"""One debate is one trace, end to end: the API request in this process and a real Celery
worker process (threads and prefork pools), both exporting over OTLP/HTTP to a collector on
127.0.0.1 (`tests/support/otlp_collector.py`). The worker sets its traces up itself, from
OTEL_EXPORTER_OTLP_ENDPOINT, as in production."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.db import connection
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from rest_framework.test import APIClient

from accounts.services import token_issue
from config import tracing
from debates.models import Debate, LLMCall
from tests.conftest import wait_for
from tests.factories import UserFactory
from tests.support.otlp_collector import OTLPCollector

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTION = "Should the harbour authority dredge the northern channel before winter?"
PUBLISH, RUN = "apply_async/debates.run_debate", "run/debates.run_debate"


@pytest.fixture
def collector():
    with OTLPCollector() as running:
        yield running


@pytest.fixture
def web_traces(collector):
    """This process as a web process exporting to the collector, on a new database connection
    (one opened before would not be instrumented)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    provider = TracerProvider(resource=Resource.create({"service.name": "debates-web"}))
    provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{collector.url}/v1/traces"))
    )
    tracing.start(provider)
    connection.close()
    yield provider
    tracing.stop()
    connection.close()
    provider.shutdown()


def _ancestors(span, by_id):
    chain = []
    while span.parent_id in by_id:
        span = by_id[span.parent_id]
        chain.append(span)
    return chain


@pytest.mark.parametrize("pool", ["threads", "prefork"])
def test_a_debate_is_one_trace_from_the_api_request_to_the_decision(
    pool, collector, worker_factory, default_agents, web_traces
):
    worker_factory(
        extra_env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_BSP_SCHEDULE_DELAY": "100"},
        pool=pool,
    )
    user = UserFactory(username="tracer")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=user, name='traces')[1]}")

    response = api.post("/api/v1/debates/", {"question": QUESTION}, format="json")

    assert response.status_code == 202, response.json()
    debate_id = response.json()["id"]
    done = wait_for(
        lambda: Debate.objects.filter(id=debate_id, status=Debate.Status.COMPLETED).first(), 60
    )
    calls = LLMCall.objects.filter(debate=done).count()

    def whole():  # the worker's last span (its task's) ends last
        return [s for s in collector.spans() if s.name == RUN and s.service == "debates-worker"]

    wait_for(whole, timeout=30)
    spans = collector.spans()
    (request,) = [s for s in spans if s.kind == Span.SPAN_KIND_SERVER]
    trace = [s for s in spans if s.trace_id == request.trace_id]
    by_id = {s.span_id: s for s in trace}
    names = Counter(s.name for s in trace)
    print(f"{pool}: {len(trace)} spans in one trace:", json.dumps(names, sort_keys=True))
    # Every span of the debate, the web process's and the worker's, is in the request's trace.
    assert request.name == "POST api/v1/debates/$"  # method and route
    assert request.service == "debates-web" and request.parent_id == ""
    assert {s.trace_id for s in spans if s.attributes.get("debate.id") == debate_id} == {
        request.trace_id
    }
    (publish,) = [s for s in trace if s.name == PUBLISH]
    assert request in _ancestors(publish, by_id)  # enqueued on commit, inside the request
    (run,) = [s for s in trace if s.name == RUN]
    assert run.service == "debates-worker" and run.parent_id == publish.span_id
    (debate_run,) = [s for s in trace if s.name == "debate.run"]
    assert debate_run.parent_id == run.span_id
    assert debate_run.attributes["debate.protocol"] == "s4"
    step_spans = [s for s in trace if s.name == "debate.step"]
    assert {s.parent_id for s in step_spans} == {debate_run.span_id}
    assert sum(s.attributes["debate.calls"] for s in step_spans) == calls == 12

    llm = [s for s in trace if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(llm) == calls
    for span in llm:  # each asks its step and role's group ("chat reasoning", "chat cheap")
        assert by_id[span.parent_id].name == "debate.step"
        assert span.name == f"chat {span.attributes['gen_ai.request.model']}"
        assert span.kind == Span.SPAN_KIND_CLIENT and span.status != Status.STATUS_CODE_ERROR
        assert span.attributes["gen_ai.response.model"] == "offline/heuristic-demo"
        assert span.attributes["gen_ai.usage.input_tokens"] > 0
        assert span.attributes["gen_ai.usage.output_tokens"] > 0
        assert span.attributes["debates.llm.outcome"] == "ok"
    assert sum(s.attributes["gen_ai.usage.output_tokens"] for s in llm) == done.tokens_out

    # SQL statements: the debate stored in the request, the replies stored in each step (one
    # statement each, `debates.one_statement`), with placeholders for the values.
    sql = [s for s in trace if s.attributes.get("db.system") == "postgresql"]
    assert {s.service for s in sql} == {"debates-web", "debates-worker"}
    stores = [s for s in sql if s.attributes["db.statement"].startswith("WITH ")]
    assert any(request in _ancestors(s, by_id) for s in stores)
    assert {s.parent_id for s in stores} >= {s.span_id for s in step_spans}

    # No span carries the question (nor, so, a prompt made of it, nor a reply quoting it).
    assert "harbour" not in json.dumps([s.attributes for s in trace], default=str)
