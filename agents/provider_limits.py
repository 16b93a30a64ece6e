"""Providers' rate limits, kept by every process together: a deployment's requests and tokens
per minute (`rpm`, `tpm` in `DEBATE_MODEL_GROUPS`) are counted in Redis, and a call that would
go past one waits for its turn instead of being sent and refused (HTTP 429).

Each deployment has a sliding window of `DEBATE_PROVIDER_LIMIT_WINDOW` seconds (60: a minute) in
Redis: a sorted set of the requests in it (by time) and a hash of the tokens each one counts
for. One Lua script drops what left the window, checks both limits and, when the call fits,
enters it, all at once (so two workers never both take the last place), reading the time from
Redis (one clock for every machine). A request counts from when it is sent until a window after
its reply came (`finish` moves it on): a provider that counts from when the request reached it
then never sees more than `rpm` in any window, however long the call took. Its tokens are
counted as the prompt's estimate plus the reply's most (`max_tokens`), as providers count them
when a request comes, then as the reply's usage says (`finish`).

A call waits as long as the script says (until the oldest entry leaves the window), then asks
again. When Redis cannot be reached the call goes ahead unlimited (and says so in the log):
a limit must not stop debates.

litellm's Router has rate-limit-aware routing too ("usage-based-routing-v2"), but its counts
are kept in each process and sent to Redis in batches (two workers can both take the last
place), by calendar minute, and a call over the limit fails instead of waiting.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import redis
import redis.asyncio as aioredis
from django.conf import settings

from agents.routing import Deployment

logger = logging.getLogger(__name__)

KEY_PREFIX = "debates:provider-limits"

# KEYS: the window's requests (sorted set: member -> time in ms), their tokens (hash).
# ARGV: window (ms), rpm (0: none), tpm (0: none), the call's tokens, the call's member.
# Returns 0 when the call was entered, else the milliseconds to wait before asking again.
_ACQUIRE = """
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
local window, rpm, tpm = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens = tonumber(ARGV[4])
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - window)) do
  redis.call('HDEL', KEYS[2], member)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local entries = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local count = #entries / 2
if rpm > 0 and count >= rpm then
  return math.max(1, tonumber(entries[2]) + window - now)
end
if tpm > 0 and count > 0 then
  local weights, used = {}, 0
  for i = 1, #entries, 2 do
    weights[i] = tonumber(redis.call('HGET', KEYS[2], entries[i]) or '0')
    used = used + weights[i]
  end
  if used + tokens > tpm then
    for i = 1, #entries, 2 do
      used = used - weights[i]
      if used + tokens <= tpm then
        return math.max(1, tonumber(entries[i + 1]) + window - now)
      end
    end
  end
end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('HSET', KEYS[2], ARGV[5], tokens)
redis.call('PEXPIRE', KEYS[1], 2 * window)
redis.call('PEXPIRE', KEYS[2], 2 * window)
return 0
"""

# The call ended: its entry counts from now, with the tokens it used (if known: ARGV[2] >= 0).
_FINISH = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  local now_parts = redis.call('TIME')
  local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
  redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
  if tonumber(ARGV[2]) >= 0 then
    redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  end
end
return 0
"""


@dataclass(frozen=True)
class Slot:
    """A call's place in its deployment's window (None from `acquire`: nothing to keep)."""

    keys: tuple[str, str]
    member: str


_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aioredis.Redis] = (
    weakref.WeakKeyDictionary()
)


def _client() -> aioredis.Redis:
    """One client per event loop (the process's calls' loop: `agents.calls_loop`)."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = aioredis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2
        )
        _clients[loop] = client
    return client


def keys(deployment: Deployment) -> tuple[str, str]:
    return (
        f"{KEY_PREFIX}:{deployment.id}:requests",
        f"{KEY_PREFIX}:{deployment.id}:tokens",
    )


def estimate_tokens(messages: list[dict], max_tokens: int | None) -> int:
    """What a request counts for when it is sent: about 4 characters a token of the prompt,
    and the most the reply may use."""
    prompt = sum(len(str(m.get("content") or "")) for m in messages)
    return prompt // 4 + 1 + (max_tokens or 0)


async def acquire(deployment: Deployment | None, *, tokens: int) -> Slot | None:
    """Wait until a call to `deployment` fits its limits, and enter it. None when the
    deployment has no limit (or Redis cannot be reached)."""
    if deployment is None or not (deployment.rpm or deployment.tpm):
        return None
    slot = Slot(keys=keys(deployment), member=uuid.uuid4().hex)
    window_ms = int(settings.DEBATE_PROVIDER_LIMIT_WINDOW * 1000)
    client = _client()
    waited = 0.0
    while True:
        try:
            wait_ms = await client.eval(
                _ACQUIRE,
                2,
                *slot.keys,
                window_ms,
                deployment.rpm or 0,
                deployment.tpm or 0,
                tokens,
                slot.member,
            )
        except redis.RedisError:
            logger.warning(
                "%s: the provider's limits cannot be read from Redis; calling unlimited",
                deployment.id,
                exc_info=True,
            )
            return None
        if not wait_ms:
            if waited:
                logger.info("%s: waited %.2f s for the provider's limits", deployment.id, waited)
            return slot
        pause = int(wait_ms) / 1000
        waited += pause
        await asyncio.sleep(pause)


async def finish(slot: Slot | None, *, tokens: int | None) -> None:
    """The call ended (`tokens`: what it used, when a reply says so)."""
    if slot is None:
        return
    try:
        await _client().eval(_FINISH, 2, *slot.keys, slot.member, -1 if tokens is None else tokens)
    except redis.RedisError:
        logger.warning("the provider's limits could not be updated in Redis", exc_info=True)


@dataclass
class Use:
    """What a call held by `held` used: its tokens, once its reply says."""

    tokens: int | None = None


@asynccontextmanager
async def held(deployment: Deployment | None, *, tokens: int) -> AsyncIterator[Use]:
    """`acquire` a place for one request to `deployment` (waiting for it), and `finish` it
    when the block ends, however it ends; set `tokens` on what it yields once known."""
    slot = await acquire(deployment, tokens=tokens)
    use = Use()
    try:
        yield use
    finally:
        await finish(slot, tokens=use.tokens)
