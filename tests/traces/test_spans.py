"""Traces in one process (`config.tracing`, `agents.call_spans`): the span of a gateway call,
made through the real gateway and litellm with the offline model, caught by the SDK's
in-memory exporter; and traces off when no OTLP endpoint is set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from agents import gateway, litellm_loader
from agents.errors import LLMError
from config import tracing
from debates import running, services, webhooks
from tests.api.conftest import Receiver
from tests.conftest import ROOT

OFFLINE_MODEL = "offline/heuristic-demo"
QUESTION = "Should the lighthouse keeper repaint the tower this spring?"
MESSAGES = [
    {"role": "system", "content": "You are the analyst. Reply with a JSON object."},
    {"role": "user", "content": QUESTION},
]


@pytest.fixture
def exported(settings):
    """Traces on in this process, into the SDK's in-memory exporter; off again after."""
    settings.DEBATE_OFFLINE_LATENCY = 0
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.start(provider)
    yield exporter
    tracing.stop()
    provider.shutdown()


def _calls(exporter):
    return [s for s in exporter.get_finished_spans() if s.name.startswith("chat ")]


def test_a_gateway_call_is_one_span_with_model_tokens_cost_and_attempts(exported):
    response = gateway.complete(
        model=OFFLINE_MODEL, messages=MESSAGES, step="initial", role="analyst", max_tokens=512
    )

    (span,) = _calls(exported)
    assert span.name == f"chat {OFFLINE_MODEL}"
    assert span.kind == SpanKind.CLIENT
    assert span.status.status_code == StatusCode.UNSET
    assert span.attributes == {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": OFFLINE_MODEL,
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.max_tokens": 512,
        "gen_ai.response.model": OFFLINE_MODEL,
        "gen_ai.provider.name": "offline",
        "gen_ai.usage.input_tokens": response.tokens_in,
        "gen_ai.usage.output_tokens": response.tokens_out,
        "debates.llm.deployment": response.deployment,
        "debates.llm.cost_usd": 0.0,
        "debates.llm.attempts": 1,
        "debates.llm.retries": 0,
        "debates.llm.outcome": "ok",
        "debates.llm.step": "initial",
        "debates.llm.role": "analyst",
    }
    # The offline model is the default, so the default group's one deployment answers.
    assert response.deployment == "reasoning-1"
    assert response.tokens_in > 0 and response.tokens_out > 0


def test_the_call_span_is_a_child_of_the_callers_span_across_the_calls_thread(exported):
    with tracing.span("debate.step", {"debate.round": 1}):
        gateway.complete(model=OFFLINE_MODEL, messages=MESSAGES)

    (call,) = _calls(exported)
    (step,) = [s for s in exported.get_finished_spans() if s.name == "debate.step"]
    assert call.parent is not None
    assert call.parent.span_id == step.context.span_id
    assert call.context.trace_id == step.context.trace_id


def test_a_retried_call_counts_its_attempts(exported, monkeypatch, settings):
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 0.001
    litellm = litellm_loader.get_litellm()
    real = litellm.acompletion
    failures = [litellm.RateLimitError(message="slow down", llm_provider="openai", model="x")]

    async def flaky(**kwargs):
        if failures:
            raise failures.pop()
        return await real(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", flaky)

    response = gateway.complete(model=OFFLINE_MODEL, messages=MESSAGES)

    (span,) = _calls(exported)
    assert response.attempts == 2
    assert span.attributes["debates.llm.attempts"] == 2
    assert span.attributes["debates.llm.retries"] == 1
    assert span.attributes["debates.llm.outcome"] == "ok"


def test_a_failed_call_is_marked_failed_without_the_providers_words(exported, monkeypatch):
    litellm = litellm_loader.get_litellm()
    said = "Invalid API key sk-live-0123456789 for prompt: " + QUESTION

    async def refused(**kwargs):
        raise litellm.AuthenticationError(message=said, llm_provider="openai", model="x")

    monkeypatch.setattr(litellm, "acompletion", refused)

    with pytest.raises(LLMError):
        gateway.complete(model=OFFLINE_MODEL, messages=MESSAGES)

    (span,) = _calls(exported)
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes["error.type"] == "LLMError"
    assert span.attributes["debates.llm.outcome"] == "permanent_error"
    assert span.attributes["debates.llm.attempts"] == 1
    shown = json.dumps(
        [dict(span.attributes), span.status.description, [e.name for e in span.events]]
    )
    assert "sk-live" not in shown and "lighthouse" not in shown


def test_a_request_span_keeps_the_url_without_its_query_string(exported, client):
    response = client.get("/nowhere/?q=lighthouse+keeper&token=sk-live-0123", HTTP_USER_AGENT="t")

    assert response.status_code == 404
    (span,) = [s for s in exported.get_finished_spans() if s.kind == SpanKind.SERVER]
    assert span.attributes["http.url"] == "http://testserver/nowhere/"
    assert span.attributes["http.status_code"] == 404
    assert "lighthouse" not in json.dumps(dict(span.attributes))


def test_no_span_when_traces_are_off(settings):
    settings.DEBATE_OFFLINE_LATENCY = 0
    assert not tracing.is_on()
    with tracing.span("debate.run") as span:
        assert not span.is_recording()
        response = gateway.complete(model=OFFLINE_MODEL, messages=MESSAGES)
    assert response.attempts == 1


# --- set up once per process, from the environment --------------------------------------------

PROBE = """
import json, sys
from config.wsgi import application
from config import celery, tracing
from agents import gateway
from django.conf import settings
from opentelemetry import trace

celery._set_up_traces(sender=None)
gateway.complete(model="offline/heuristic-demo", messages=[{"role": "user", "content": "?"}])
provider = trace.get_tracer_provider()
resource = getattr(provider, "resource", None)
print(json.dumps({
    "on": tracing.is_on(),
    "provider": type(provider).__name__,
    "service": resource.attributes.get("service.name") if resource else None,
    "middleware": [m for m in settings.MIDDLEWARE if "opentelemetry" in m],
    "loaded": sorted(
        m for m in sys.modules
        if m.startswith(("opentelemetry.instrumentation.", "opentelemetry.exporter."))
    ),
}))
"""


def _probe(**env) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        # The endpoints below refuse connections: the exporter's retries at exit give up after
        # half a second, not the default ten.
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "0.5",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_without_an_otlp_endpoint_no_provider_is_installed_and_nothing_is_instrumented():
    found = _probe()
    assert found == {
        "on": False,
        "provider": "ProxyTracerProvider",
        "service": None,
        "middleware": [],
        "loaded": [],
    }


@pytest.mark.slow
def test_with_an_otlp_endpoint_the_web_process_exports_as_debates_web():
    # Nothing listens there: spans that cannot be sent are dropped, the process goes on.
    found = _probe(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    assert found["on"] is True
    assert found["provider"] == "TracerProvider"
    assert found["service"] == "debates-web"
    assert found["middleware"] == [
        "opentelemetry.instrumentation.django.middleware.otel_middleware._DjangoMiddleware"
    ]
    assert "opentelemetry.exporter.otlp.proto.http.trace_exporter" in found["loaded"]


@pytest.mark.slow
def test_otel_service_name_and_sdk_disabled_are_honoured():
    named = _probe(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9", OTEL_SERVICE_NAME="eu-web")
    assert named["service"] == "eu-web"
    disabled = _probe(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9", OTEL_SDK_DISABLED="true")
    assert disabled["on"] is False and disabled["provider"] == "ProxyTracerProvider"


# --- webhooks ---------------------------------------------------------------------------------


def _deliver(debate, url: str, attempt: int = 1):
    event_id = uuid.uuid4()
    payload = webhooks.event_payload(debate=debate, event="debate.completed", event_id=event_id)
    return webhooks.deliver(
        event_id=event_id,
        debate_id=debate.id,
        event="debate.completed",
        url=url,
        payload=payload,
        attempt=attempt,
    )


def test_a_webhook_attempt_is_one_client_span_without_its_url_path_or_payload(
    exported, default_agents, django_user_model
):
    receiver = Receiver()
    try:
        user = django_user_model.objects.create_user("wendy")
        question = "Should the lighthouse keeper repaint the tower this spring?"
        created = services.debate_create(
            query=question,
            created_by=user,
            callback_url=receiver.url + "?token=s3cret",
            enqueue=False,
        )
        debate = running.debate_run(debate_id=created.id)
        receiver.answer(503)
        assert _deliver(debate, debate.callback_url, attempt=2).status == "failed"
        assert _deliver(debate, debate.callback_url, attempt=3).status == "delivered"
    finally:
        receiver.close()

    posts = [s for s in exported.get_finished_spans() if s.name == "webhook.post"]
    assert [s.kind for s in posts] == [SpanKind.CLIENT, SpanKind.CLIENT]
    assert [dict(s.attributes) for s in posts] == [
        {
            "debates.webhook.debate": str(debate.id),
            "debates.webhook.event": "debate.completed",
            "debates.webhook.attempt": str(attempt),
            "server.address": "127.0.0.1",
            "http.response.status_code": status,
        }
        for attempt, status in ((2, 503), (3, 200))
    ]
    for span in posts:  # neither the question, the URL's path and query, nor a secret
        text = json.dumps(dict(span.attributes))
        assert "lighthouse" not in text and "hooks" not in text and "s3cret" not in text


def test_a_webhook_that_cannot_connect_is_a_failed_span_with_the_errors_type(
    exported, default_agents, django_user_model
):
    receiver = Receiver()
    url = receiver.url
    receiver.close()  # nothing listens there any more
    user = django_user_model.objects.create_user("wendy")
    created = services.debate_create(query="Is it raining?", created_by=user, enqueue=False)
    debate = running.debate_run(debate_id=created.id)

    assert _deliver(debate, url).status == "failed"

    (span,) = [s for s in exported.get_finished_spans() if s.name == "webhook.post"]
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes["error.type"] == "ConnectionError"
    assert "http.response.status_code" not in span.attributes
