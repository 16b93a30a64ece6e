"""A small OpenAI-compatible server for tests: the service's real gateway (litellm) talks to it
over HTTP on 127.0.0.1, the way it talks to a hosted model, and it answers the way hosted models
fail.

    with FakeOpenAI() as server:                     # or the `fake_openai` fixture
        server.script(Reply.error(429), Reply.empty())      # the next two requests, in order
        server.plan = FaultPlan(rate=0.3, seed=7)           # then faults at random, by plan
        ... run debates with model `server.model` ...
        server.count(status=200)                            # what was asked and answered

With `rate_limit=(n, seconds)` the server answers 429 to a request that comes when it has
accepted `n` requests in the last `seconds` (a provider's requests-per-minute limit, on a
shorter window); the others go on as below.

Each request to `/v1/chat/completions` is answered by, in order: the next scripted reply (FIFO;
`script_for(match, ...)` queues replies for requests whose prompt contains `match`), else
`plan(request)` when it returns a `Reply`, else the default reply. A `Reply` whose `content` is
None carries the default answer, which is the offline demo model's reply to the same messages
(`agents.offline.reply_to`): a sensible answer for every role, step and protocol, so a debate
completes. `Reply.transform` rewrites that answer (wrap it in `<think>`, slip a NUL into it).

Every request is logged (`server.log`: the messages, the reply kind, the status, when, and the
tokens it was billed), so a test can count what was requested, spot a call made twice
(`server.repeated()`) and add up what a provider would charge (`server.billed(prices)`).

It counts tokens the way a hosted model bills them: with a real tokenizer (`TOKENIZER`, OpenAI's
counting of the chat format around it), so a question dense in tokens (emoji, CJK, long numbers,
code) costs what it would; a reply stops at the request's `max_tokens` (finish_reason
"length"), and `Reply.long()` writes one that fills it.

Workers started by the test reach the server through the environment (`server.env()`:
`OPENAI_API_BASE`, a dummy `OPENAI_API_KEY`), since litellm reads those when it calls.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.threads import serve_in_thread

DEFAULT_MODEL_NAME = "fake-model"
#: The encoding the server bills with, for a model tiktoken does not know by name (OpenAI's
#: cl100k_base counts emoji and CJK denser than its later o200k_base). Read from litellm's
#: package, offline (`agents.tokens`).
TOKENIZER = "cl100k_base"


def _encoding_for(model: str):
    from agents import tokens

    return tokens.encoding_for(model) or tokens.encoding(TOKENIZER)


def count_prompt(model: str, messages: list[dict]) -> int:
    """Prompt tokens as OpenAI bills a chat: 3 per message around its role and content, and 3
    more to prime the reply."""
    enc = _encoding_for(model)
    return 3 + sum(
        3
        + len(enc.encode(str(m.get("role") or ""), disallowed_special=()))
        + len(enc.encode(str(m.get("content") or ""), disallowed_special=()))
        for m in messages
    )


def _default_answer(messages: list[dict]) -> str:
    from agents.offline import reply_to

    return reply_to(messages)


@dataclass(frozen=True)
class Reply:
    """One answer of the server. Built with the class methods below, or directly."""

    kind: str = "ok"
    status: int = 200
    content: str | None = None  # None: the default answer (after `transform`)
    transform: Callable[[str], str] | None = None
    reasoning_content: str | None = None  # sent as message.reasoning_content
    body: bytes | None = None  # sent as it is, instead of a chat completion
    delay: float = 0.0  # seconds before answering (a slow model; a client timeout)
    hold: threading.Event | None = None  # answer only once the test sets it (a call in flight)
    literal_nul: bool = False  # NULs in the content go out as raw bytes, not as \u0000
    fill: str | None = None  # the content: this, repeated past the request's max_tokens
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def ok(cls, content: str | None = None, **kwargs) -> Reply:
        return cls(content=content, **kwargs)

    @classmethod
    def error(cls, status: int, message: str = "", **kwargs) -> Reply:
        """An HTTP error with an OpenAI-style error body: 429, 500, 503, 401, 400 ..."""
        text = message or {
            429: "Rate limit reached",
            500: "The server had an error",
            503: "The engine is currently overloaded",
        }.get(status, "error")
        body = json.dumps({"error": {"message": text, "type": "server_error", "code": status}})
        return cls(kind=f"http_{status}", status=status, body=body.encode(), **kwargs)

    @classmethod
    def malformed(cls, body: bytes = b'{"id": "chatcmpl-x", "choices": [{"mess') -> Reply:
        """HTTP 200 with a body that is not a chat completion (cut off mid-JSON by default)."""
        return cls(kind="malformed", body=body)

    @classmethod
    def empty(cls, content: str = "") -> Reply:
        """HTTP 200, a well-formed completion whose content is empty (or whitespace)."""
        return cls(kind="empty", content=content)

    @classmethod
    def long(cls, unit: str = "lorem ipsum ", **kwargs) -> Reply:
        """A reply that runs on until the request's `max_tokens` stops it (the most a call
        can be billed for its reply): `unit` repeated."""
        return cls(kind="long", fill=unit, **kwargs)

    @classmethod
    def slow(cls, seconds: float, **kwargs) -> Reply:
        return cls(kind="slow", delay=seconds, **kwargs)

    @classmethod
    def held(cls, until: threading.Event, **kwargs) -> Reply:
        """The default answer, sent only once `until` is set: a call the test keeps in flight
        (to kill a worker mid-call, say)."""
        return cls(kind="held", hold=until, **kwargs)

    @classmethod
    def think(cls, thoughts: str = "Let me weigh this carefully.", **kwargs) -> Reply:
        """The default answer after a `<think>` block, as reasoning models send it."""
        return cls(
            kind="think", transform=lambda answer: f"<think>{thoughts}</think>{answer}", **kwargs
        )

    @classmethod
    def reasoning(cls, reasoning: str = "First, the facts.", **kwargs) -> Reply:
        """The default answer, with the reasoning sent beside it in `reasoning_content`."""
        return cls(kind="reasoning", reasoning_content=reasoning, **kwargs)

    @classmethod
    def nul(cls, form: str = "character") -> Reply:
        """The default answer with NULs slipped into its reasoning, in one of three forms:
        `character`: the content holds the NUL character (sent as `\\u0000` in the body; text
        columns refuse it); `json_escape`: the model wrote the six characters `\\u0000` in its
        own JSON (parsed values hold NUL; jsonb refuses the escape); `raw_byte`: a raw 0x00
        byte in the HTTP body, which is then not valid JSON."""
        nul = {"character": "\x00", "json_escape": "\\u0000", "raw_byte": "\x00"}[form]

        def slip_in(answer: str) -> str:
            for key in (
                '"reasoning": "',
                '"argument": "',
                '"content": "',
                '"summary": "',
                '"synthesis": "',
                '"explanation": "',
            ):
                at = answer.find(key)
                if at >= 0:
                    at += len(key)
                    return answer[:at] + nul + "NUL" + nul + answer[at:]
            return nul + answer + nul

        return cls(kind=f"nul_{form}", transform=slip_in, literal_nul=form == "raw_byte")

    def answer(self, messages: list[dict]) -> str:
        text = self.content if self.content is not None else _default_answer(messages)
        return self.transform(text) if self.transform else text


FAULTS: dict[str, Callable[[], Reply]] = {
    "http_429": lambda: Reply.error(429),
    "http_500": lambda: Reply.error(500),
    "http_503": lambda: Reply.error(503),
    "malformed": Reply.malformed,
    "empty": Reply.empty,
}


class FaultPlan:
    """Answers a share of requests with a fault, chosen at random from `kinds` (seeded: the
    same share and mix on every run): `server.plan = FaultPlan(rate=0.3, seed=1)`; for slow
    replies too, `kinds={**FAULTS, "slow": lambda: Reply.slow(5)}` with a shorter gateway
    timeout. Requests it spares get the default reply."""

    def __init__(
        self, *, rate: float, seed: int = 0, kinds: dict[str, Callable[[], Reply]] | None = None
    ):
        self.rate = rate
        self.kinds = dict(kinds or FAULTS)
        self._random = random.Random(seed)
        self._lock = threading.Lock()

    def __call__(self, request: LoggedRequest) -> Reply | None:
        with self._lock:
            if self._random.random() >= self.rate:
                return None
            name = self._random.choice(sorted(self.kinds))
        return self.kinds[name]()


@dataclass
class LoggedRequest:
    number: int
    path: str
    model: str
    messages: list[dict]
    body: dict[str, Any]
    received_at: float
    kind: str = ""
    status: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def fingerprint(self) -> str:
        """The same for two requests with the same messages (a call made twice)."""
        return hashlib.sha256(json.dumps(self.messages, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def prompt_text(self) -> str:
        return "\n".join(str(m.get("content") or "") for m in self.messages)


class FakeOpenAI:
    """The server; a context manager. Thread-safe: the gateway calls it from many threads."""

    def __init__(
        self,
        *,
        model_name: str = DEFAULT_MODEL_NAME,
        default: Reply | None = None,
        rate_limit: tuple[int, float] | None = None,
    ):
        self.model_name = model_name
        self.default = default or Reply.ok()
        self.rate_limit = rate_limit
        self._accepted: deque[float] = deque()  # when the requests within the limit came
        self.plan: Callable[[LoggedRequest], Reply | None] | None = None
        self.log: list[LoggedRequest] = []
        self._scripted: deque[tuple[str | None, Reply]] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - the http.server API
                server._handle(self)

            def do_GET(self):  # noqa: N802
                server._send(self, 404, b'{"error": {"message": "not found"}}')

            def log_message(self, format, *args):  # quiet
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = serve_in_thread(self._httpd, name="fake-openai")
        return self

    def stop(self) -> None:
        self._closing.set()  # slow replies stop waiting
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- what a test uses -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not started"
        return self._httpd.server_address[1]

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model(self) -> str:
        """The litellm model string that reaches this server."""
        return f"openai/{self.model_name}"

    def env(self) -> dict[str, str]:
        """Environment for a process (a worker) that should reach this server."""
        return {"OPENAI_API_BASE": self.api_base, "OPENAI_API_KEY": "sk-fake-for-tests"}

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with these replies, in order (then the plan, the default)."""
        with self._lock:
            self._scripted.extend((None, r) for r in replies)

    def script_for(self, match: str, *replies: Reply) -> None:
        """Answer the next requests whose prompt contains `match` with these replies."""
        with self._lock:
            self._scripted.extend((match, r) for r in replies)

    def requests(self, **where) -> list[LoggedRequest]:
        """Logged requests, filtered by attribute (`kind="empty"`, `status=200`)."""
        with self._lock:
            logged = list(self.log)
        return [r for r in logged if all(getattr(r, k) == v for k, v in where.items())]

    def count(self, **where) -> int:
        return len(self.requests(**where))

    def billed(self, prices: dict[str, tuple[float, float]] | None = None):
        """What a provider would charge for every request it answered with a completion: tokens
        in and out, and the cost at `prices` (model name -> USD per million in and out)."""
        from decimal import Decimal

        tokens_in = tokens_out = 0
        cost = Decimal(0)
        for r in self.requests(status=200):
            tokens_in += r.prompt_tokens
            tokens_out += r.completion_tokens
            price_in, price_out = (prices or {}).get(r.model, (0, 0))
            cost += (
                Decimal(str(price_in)) * r.prompt_tokens
                + Decimal(str(price_out)) * r.completion_tokens
            ) / Decimal(1_000_000)
        return tokens_in, tokens_out, cost

    def repeated(self, unanswered=("empty", "malformed", "nul_raw_byte", "slow")) -> dict:
        """Fingerprints of prompts answered more than once: HTTP 200, not of a kind in
        `unanswered` (replies the gateway does not take, or slow ones it gave up on)."""
        answered = Counter(
            r.fingerprint for r in self.requests(status=200) if r.kind not in unanswered
        )
        return {fp: n for fp, n in answered.items() if n > 1}

    # --- serving --------------------------------------------------------------------------------

    def _over_limit(self) -> bool:
        """Whether a request now goes past `rate_limit` (else it is counted in)."""
        if self.rate_limit is None:
            return False
        most, seconds = self.rate_limit
        now = time.monotonic()
        with self._lock:
            while self._accepted and self._accepted[0] <= now - seconds:
                self._accepted.popleft()
            if len(self._accepted) >= most:
                return True
            self._accepted.append(now)
            return False

    def _choose(self, request: LoggedRequest) -> Reply:
        if self._over_limit():
            return Reply.error(429)
        with self._lock:
            for i, (match, reply) in enumerate(self._scripted):
                if match is None or match in request.prompt_text:
                    del self._scripted[i]
                    return reply
        if self.plan is not None:
            planned = self.plan(request)
            if planned is not None:
                return planned
        return self.default

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        if not handler.path.rstrip("/").endswith("/chat/completions"):
            self._send(handler, 404, b'{"error": {"message": "not found"}}')
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(handler, 400, b'{"error": {"message": "the request is not JSON"}}')
            return
        with self._lock:
            request = LoggedRequest(
                number=len(self.log) + 1,
                path=handler.path,
                model=body.get("model", ""),
                messages=list(body.get("messages") or []),
                body=body,
                received_at=time.time(),
            )
            self.log.append(request)
        reply = self._choose(request)
        request.kind, request.status = reply.kind, reply.status
        if reply.delay and self._closing.wait(reply.delay):
            return
        while reply.hold is not None and not reply.hold.wait(0.05):
            if self._closing.is_set():
                return
        if reply.body is not None:
            self._send(handler, reply.status, reply.body, reply.headers)
            return
        self._send(handler, reply.status, self._completion(request, reply), reply.headers)

    def _completion(self, request: LoggedRequest, reply: Reply) -> bytes:
        limit = request.body.get("max_tokens") or request.body.get("max_completion_tokens")
        if reply.fill is not None:  # every piece of it is a token at least
            content = reply.fill * ((limit if isinstance(limit, int) else 4096) + 1)
        else:
            content = reply.answer(request.messages)
        enc = _encoding_for(request.model or self.model_name)
        tokens = enc.encode(content, disallowed_special=())
        finish = "stop"
        if isinstance(limit, int) and len(tokens) > limit:  # cut where the model would stop
            tokens, finish = tokens[:limit], "length"
            content = enc.decode(tokens)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reply.reasoning_content is not None:
            message["reasoning_content"] = reply.reasoning_content
        prompt_tokens = count_prompt(request.model or self.model_name, request.messages)
        completion_tokens = len(tokens)
        request.prompt_tokens, request.completion_tokens = prompt_tokens, completion_tokens
        body = json.dumps(
            {
                "id": f"chatcmpl-fake-{request.number}",
                "object": "chat.completion",
                "created": int(request.received_at),
                "model": request.model or self.model_name,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            }
        ).encode()
        if reply.literal_nul:
            body = body.replace(b"\\u0000", b"\x00")
        return body

    @staticmethod
    def _send(handler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): as with a real server
