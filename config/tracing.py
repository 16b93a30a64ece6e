"""Traces (docs/operations/traces.md): OpenTelemetry spans of requests, tasks, SQL statements
and LLM calls, exported over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, and entirely off otherwise.

Each process sets them up once, before it serves anything: the web processes in
`config.wsgi`, `config.asgi` and `manage.py runserver`, each Celery worker process in
`config.celery` (a prefork pool's children each in their own, after the fork). Off, nothing
of OpenTelemetry is imported, no tracer provider is installed, and `span` and `carried` cost
one comparison.

What a span may hold is the docs' rule: ids, names, counts, models, timings, never the
question, a prompt, a reply or a secret.
"""

from __future__ import annotations

import os
from collections.abc import Coroutine, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

#: The tracer provider while traces are on in this process (None: off).
_provider = None
_tracer = None

ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")

#: Spans' attribute values: what OpenTelemetry accepts.
Attributes = Mapping[str, str | bool | int | float]


def is_on() -> bool:
    return _provider is not None


def wanted() -> bool:
    """Whether the environment asks for traces: an OTLP endpoint, and the SDK not disabled."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return any(os.environ.get(name, "").strip() for name in ENDPOINT_VARIABLES)


def setup(service: str) -> bool:
    """Set traces up for this process when the environment asks for them (`wanted`): a tracer
    provider (the service named `OTEL_SERVICE_NAME`, else `service`) exporting in batches over
    OTLP/HTTP, installed as the global one, and the instrumentations (`start`). Once per
    process; returns whether traces are on."""
    global _provider
    if _provider is not None or not wanted():
        return is_on()
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    name = os.environ.get("OTEL_SERVICE_NAME", "").strip() or service
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    start(provider)
    return True


def start(provider) -> None:
    """Instrument Django (a span per request), psycopg (a span per SQL statement, its text
    with placeholders, never its values) and Celery (a span per task sent and per task run,
    the trace carried in the message's headers), all reporting to `provider`; the service's
    own spans (`span`) too. Tests start it with a provider of their own and `stop` it."""
    global _provider, _tracer
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor

    DjangoInstrumentor().instrument(tracer_provider=provider, request_hook=_without_query)
    PsycopgInstrumentor().instrument(tracer_provider=provider)
    CeleryInstrumentor().instrument(tracer_provider=provider)
    _tracer = provider.get_tracer("debates")
    _provider = provider


def _without_query(span, request) -> None:
    """A request's span keeps its URL without the query string, which may carry a search, a
    page to go back to or a token."""
    attributes = getattr(span, "attributes", None) or {}
    for key in ("http.url", "url.full"):
        if "?" in str(attributes.get(key, "")):
            span.set_attribute(key, str(attributes[key]).split("?", 1)[0])
    if "http.target" in attributes:
        span.set_attribute("http.target", request.path)
    if "url.query" in attributes:
        span.set_attribute("url.query", "")


def stop() -> None:
    """Undo `start` (tests): no instrumentation, no spans of the service's own."""
    global _provider, _tracer
    if _provider is None:
        return
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor

    for instrumentor in (DjangoInstrumentor(), PsycopgInstrumentor(), CeleryInstrumentor()):
        instrumentor.uninstrument()
    _provider = _tracer = None


def flush() -> None:
    """Send the spans not sent yet (a worker process about to exit)."""
    if _provider is not None:
        _provider.force_flush()


class _Off:
    """What `span` yields while traces are off: takes attributes and keeps none."""

    def is_recording(self) -> bool:
        return False

    def set_attribute(self, key: str, value: Any) -> None:
        pass

    def set_attributes(self, attributes: Attributes) -> None:
        pass


_OFF = _Off()


@contextmanager
def span(name: str, attributes: Attributes | None = None, *, client: bool = False) -> Iterator:
    """A span of the service's own around the block, a child of the current one (`client`:
    a call to another service). An exception leaving the block marks it failed with its type
    (`error.type`), never its message, which may quote a provider's reply."""
    if _tracer is None:
        yield _OFF
        return
    from opentelemetry.trace import SpanKind, Status, StatusCode

    with _tracer.start_as_current_span(
        name,
        kind=SpanKind.CLIENT if client else SpanKind.INTERNAL,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as current:
        try:
            yield current
        except BaseException as exc:
            current.set_attribute("error.type", type(exc).__qualname__)
            current.set_status(Status(StatusCode.ERROR, type(exc).__qualname__))
            raise


def carried(call: Coroutine) -> Coroutine:
    """`call`, to be run on another thread's event loop (`agents.calls_loop`), in the trace
    context of the thread that hands it over, so its spans are children of that thread's."""
    if _provider is None:
        return call
    from opentelemetry import context

    current = context.get_current()

    async def in_context():
        token = context.attach(current)
        try:
            return await call
        finally:
            context.detach(token)

    return in_context()
