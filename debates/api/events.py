"""`GET /api/v1/debates/<id>/events/`: a debate's events as server-sent events
(`text/event-stream`), read from its Redis stream (`debates.events`).

An async view, for the ASGI server: a client waiting for the next event holds a Redis read
(`XREAD BLOCK`) and no thread and no database connection; the database is asked once, when the
stream opens (who may see the debate, and whether it has ended), on a connection closed at
once, and again only if the stream stays silent for `RECHECK_SECONDS` (its events were lost).
Each event's id is its place in the stream: a client that reconnects with `Last-Event-ID` gets
what came after it. The stream ends after the debate's last event (`decision` or `failed`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import JsonResponse, StreamingHttpResponse
from rest_framework import exceptions

from accounts.authentication import BearerTokenAuthentication
from debates import events, selectors
from debates.models import Debate

#: A comment line this often keeps proxies from closing a quiet stream.
KEEPALIVE_SECONDS = 15
#: The database is asked whether the debate ended after this long without an event.
RECHECK_SECONDS = 60
#: The most streams one process keeps open at once (one Redis connection each).
MAX_STREAMS = 10_000
_EVENT_ID = re.compile(r"^\d{1,20}-\d{1,20}$")
_FINISHED = (Debate.Status.COMPLETED, Debate.Status.FAILED)


def _who_and_what(request, debate_id) -> tuple[int, str, dict | None]:
    """(status code, message, the debate's state) for the stream's opening: who asks (a bearer
    token, else the session) and whether they may see the debate. The connection is closed
    before returning: the stream holds none."""
    try:
        try:
            found = BearerTokenAuthentication().authenticate(request)
        except exceptions.AuthenticationFailed as exc:
            return 401, str(exc.detail), None
        user = found[0] if found else request.user
        if not user.is_authenticated:
            return 401, "Authentication credentials were not provided.", None
        return 200, "", _state(debate_id, user)
    except Debate.DoesNotExist:
        return 404, "No such debate.", None
    finally:
        connections.close_all()


def _state(debate_id, user=None) -> dict:
    """The debate's status and outcome, read from the database (Debate.DoesNotExist if `user`
    may not see it)."""
    debates = Debate.objects.all()
    if user is not None:
        debates = selectors.debates_visible_to(user, debates)
    return debates.values("status", "decision", "consensus_type", "reasoning", "error").get(
        id=debate_id
    )


def _recheck(debate_id) -> dict:
    try:
        return _state(debate_id)
    finally:
        connections.close_all()


def _event(event_id: str, kind: str, data: str) -> bytes:
    return f"id: {event_id}\nevent: {kind}\ndata: {data}\n\n".encode()


def _ending(debate_id, state: dict) -> bytes:
    """The last event of a debate that ended, told from the database (its stream is gone)."""
    if state["status"] == Debate.Status.FAILED:
        kind, data = "failed", {"error": state["error"]}
    else:
        kind = "decision"
        data = {
            "decision": state["decision"],
            "consensus": state["consensus_type"],
            "reasoning": state["reasoning"],
        }
    return _event("0-1", kind, json.dumps({"debate": str(debate_id), **data}))


_clients: dict = {}


def _client() -> aioredis.Redis:
    """One client (a pool of connections) per event loop."""
    loop = asyncio.get_running_loop()
    if _clients.get("loop") is not loop:
        _clients.update(
            loop=loop,
            client=aioredis.Redis.from_url(
                settings.REDIS_URL,
                socket_connect_timeout=2,
                socket_timeout=KEEPALIVE_SECONDS + 10,  # longer than a blocked read
                # Each waiting stream holds one connection of the pool for its read.
                max_connections=MAX_STREAMS,
            ),
        )
    return _clients["client"]


def _let_go_of_the_requests_thread() -> None:
    """Django's ASGI handler runs a request's synchronous parts (its signals, synchronous
    middleware, the checks above) on a thread of the request's own (asgiref's
    `ThreadSensitiveContext`), kept until the response ends. A stream may stay open for as long
    as a debate runs: it hands the thread back before it waits (a synchronous part after it,
    the request's end, gets a new one for the moment it takes)."""
    context = SyncToAsync.thread_sensitive_context.get(None)
    executor = SyncToAsync.context_to_thread_executor.pop(context, None) if context else None
    if executor is not None:
        executor.shutdown(wait=False)


async def _stream(debate_id, last_id: str, state: dict) -> AsyncIterator[bytes]:
    key = events.stream_key(debate_id)
    client = _client()
    _let_go_of_the_requests_thread()
    yield b"retry: 2000\n\n"
    if state["status"] in _FINISHED:  # what is left of its stream, then its end
        entries = await client.xrange(key, min=f"({last_id}", max="+")
        for entry_id, fields in entries:
            kind = fields[b"event"].decode()
            yield _event(entry_id.decode(), kind, fields[b"data"].decode())
            if kind in events.FINAL:
                return
        yield _ending(debate_id, state)
        return
    silent = 0.0
    while True:
        found = await client.xread({key: last_id}, block=KEEPALIVE_SECONDS * 1000, count=100)
        if not found:
            yield b": keep-alive\n\n"
            silent += KEEPALIVE_SECONDS
            if silent >= RECHECK_SECONDS:
                silent = 0.0
                state = await sync_to_async(_recheck, thread_sensitive=False)(debate_id)
                if state["status"] in _FINISHED:
                    yield _ending(debate_id, state)
                    return
            continue
        silent = 0.0
        for entry_id, fields in found[0][1]:
            last_id = entry_id.decode()
            kind = fields[b"event"].decode()
            yield _event(last_id, kind, fields[b"data"].decode())
            if kind in events.FINAL:
                return


async def debate_events(request, pk):
    """Server-sent events of one debate; see the module."""
    if request.method != "GET":
        return JsonResponse({"detail": f'Method "{request.method}" not allowed.'}, status=405)
    if not isinstance(request, ASGIRequest):
        # A WSGI server (runserver, say) would hold a thread for the whole debate and send the
        # events only at its end: the live page polls instead.
        return JsonResponse(
            {
                "detail": "The event stream is served by the ASGI server (bin/serve, "
                "config.asgi:application); poll GET /api/v1/debates/<id>/ instead."
            },
            status=501,
        )
    last_id = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id") or "0-0"
    if not _EVENT_ID.match(last_id):
        return JsonResponse(
            {
                "detail": "Last-Event-ID must be the id of an event this stream sent "
                "(digits-digits), or be left out to start from the debate's first event."
            },
            status=400,
        )
    status, message, state = await sync_to_async(_who_and_what)(request, pk)
    if state is None:
        response = JsonResponse({"detail": message}, status=status)
        if status == 401:
            response["WWW-Authenticate"] = "Bearer"
        return response
    response = StreamingHttpResponse(
        _stream(pk, last_id, state), content_type="text/event-stream; charset=utf-8"
    )
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # proxies (nginx) pass each event on at once
    return response
