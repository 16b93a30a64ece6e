"""A debate's events (`debates.events`): published as its runner stores each step, and served as
server-sent events by `GET /api/v1/debates/<id>/events/` (an async view), with resuming after
`Last-Event-ID`."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from accounts.services import token_issue
from debates import events, running, services
from debates.models import Debate
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _run(question: str, user) -> Debate:
    debate = services.debate_create(query=question, created_by=user, enqueue=False)
    running.debate_run(debate_id=debate.id)
    return Debate.objects.get(id=debate.id)


def _in_own_thread(call):
    """`call()` on a thread of its own (the browser tests' Playwright may hold an event loop on
    this one, where no other can run)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(call).result()


def _parse(body: bytes) -> list[dict]:
    """The events of a text/event-stream body: id, event, data (as JSON)."""
    found = []
    for block in body.decode().split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if not line.startswith(":")
        )
        if "event" in fields:
            found.append({**fields, "data": json.loads(fields["data"])})
    return found


def _get(path: str, token: str | None, **headers) -> tuple[int, dict, bytes]:
    async def fetch():
        client = AsyncClient()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        response = await client.get(path, headers=headers)
        if response.streaming:
            body = b"".join([chunk async for chunk in response.streaming_content])
        else:
            body = response.content
        return response.status_code, response, body

    return _in_own_thread(async_to_sync(fetch))


@pytest.fixture
def owner(default_agents):
    user = UserFactory()
    _, token = token_issue(user=user, name="events")
    return user, token


def test_every_stored_step_is_an_event_in_order_ending_with_the_decision(owner, redis_client):
    user, token = owner
    debate = _run("Is Bitcoin a good investment?", user)
    status, response, body = _get(f"/api/v1/debates/{debate.id}/events/", token)
    assert status == 200
    assert response["Content-Type"] == "text/event-stream; charset=utf-8"
    assert response["Cache-Control"] == "no-store"
    got = _parse(body)
    kinds = [e["event"] for e in got]
    assert kinds.count("call.started") == kinds.count("call.finished") == 12
    assert kinds.count("round.finished") == 3
    assert kinds[-1] == "decision" or kinds[-2:] == ["decision", "review.flagged"]
    assert got[kinds.index("decision")]["data"]["decision"] == debate.decision
    # Each call starts before it finishes; a finished call carries its parsed reply.
    first_done = kinds.index("call.finished")
    assert kinds[:3] == ["call.started"] * 3 and first_done == 3
    done = got[first_done]["data"]
    assert done["status"] == "done" and done["round"] == 1
    assert {"decision", "confidence", "risk"} <= set(done["reply"])
    assert done["participant"] in {"utility", "accuracy", "safety"}
    # Ids are the stream's, in order: a reconnecting client resumes after the last it saw.
    ids = [e["id"] for e in got]
    assert ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-"))))
    status, _, body = _get(
        f"/api/v1/debates/{debate.id}/events/", token, **{"Last-Event-ID": ids[4]}
    )
    assert status == 200
    assert [e["id"] for e in _parse(body)] == ids[5:]


def test_a_debate_whose_events_are_gone_still_tells_its_end(owner, redis_client):
    user, token = owner
    debate = _run("What is the capital of France?", user)
    redis_client.delete(events.stream_key(debate.id))
    _, _, body = _get(f"/api/v1/debates/{debate.id}/events/", token)
    assert [(e["event"], e["data"]["decision"]) for e in _parse(body)] == [("decision", "ACT")]


def test_events_arrive_while_the_debate_runs(owner, redis_client):
    user, token = owner
    debate = services.debate_create(
        query="Is Bitcoin a good investment?", created_by=user, enqueue=False
    )
    seen: list[str] = []

    async def watch():
        client = AsyncClient()
        response = await client.get(
            f"/api/v1/debates/{debate.id}/events/", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 200
        stream = response.streaming_content.__aiter__()
        await stream.__anext__()  # the retry hint: the stream is open and waiting
        runner = threading.Thread(target=running.debate_run, kwargs={"debate_id": debate.id})
        runner.start()
        async for chunk in stream:
            seen.extend(e["event"] for e in _parse(chunk))
        await asyncio.get_running_loop().run_in_executor(None, runner.join)

    _in_own_thread(async_to_sync(watch))
    assert seen[0] == "call.started" and "decision" in seen
    assert seen.count("call.finished") == 12


@pytest.mark.parametrize(
    ("token", "headers", "status", "says"),
    [
        (None, {}, 401, "credentials were not provided"),
        ("not-a-token", {}, 401, "unknown or has been revoked"),
        ("mine", {"Last-Event-ID": "yesterday"}, 400, "Last-Event-ID must be the id"),
        ("someone else's", {}, 404, "No such debate"),
    ],
)
def test_a_stream_that_cannot_open_says_why(owner, token, headers, status, says):
    user, mine = owner
    debate = services.debate_create(query="Is it raining?", created_by=user, enqueue=False)
    if token == "mine":
        token = mine
    elif token == "someone else's":
        _, token = token_issue(user=UserFactory(), name="other")
    got, response, body = _get(f"/api/v1/debates/{debate.id}/events/", token, **headers)
    assert got == status
    assert says in json.loads(body)["detail"]
