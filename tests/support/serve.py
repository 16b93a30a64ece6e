"""The production stack for tests: `bin/serve` in a process group of its own, with production
settings, on 127.0.0.1, against a Redis server of its own (so no other worker of the test
session takes its tasks or answers its health check's ping) and the tests' PostgreSQL.

    with RedisServer() as redis_url:
        stack = Stack(tmp_path, redis_url=redis_url, env=fake_openai.env())
        stack.start()                       # bin/serve, until /api/v1/health/ answers 200
        stack.get("/api/v1/health/")        # over HTTP, as through a TLS-terminating proxy
        stack.stop()                        # SIGTERM, as a deployment stops it
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import requests
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def descendants(pid: int) -> list[int]:
    """Every process under `pid`: its children, theirs, and so on."""
    table = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in table.splitlines():
        child, parent = map(int, line.split())
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class RedisServer:
    """A throwaway redis-server on a free port of 127.0.0.1 (nothing saved); a context manager
    that yields its URL."""

    def __init__(self):
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> str:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError(
                "redis-server is not installed (Debian: apt-get install redis-server)"
            )
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{self.port}/0"
        import redis

        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(url, socket_timeout=1).ping()
                return url
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


class Stack:
    """`bin/serve` with production settings: a generated strong secret, the allowed hosts, the
    TLS-terminating proxy's header, the tests' database, `redis_url`, and `env` on top."""

    def __init__(self, workdir: Path, *, redis_url: str, env: dict[str, str] | None = None):
        db = settings.DATABASES["default"]
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.workdir = workdir
        self.log = workdir / "serve.log"
        self.static_root = workdir / "static"
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DJANGO_", "DEBATE_", "CELERY_", "OPENAI_", "BUDGET_"))
        }
        self.env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings.production",
                "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
                "DATABASE_URL": (f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"),
                "REDIS_URL": redis_url,
                "SERVE_BIND": f"127.0.0.1:{self.port}",
                "SERVE_RUN_DIR": str(workdir / "run"),
                "DJANGO_STATIC_ROOT": str(self.static_root),
                "WEB_CONCURRENCY": "1",
                "CELERY_WORKER_CONCURRENCY": "4",
                **(env or {}),
            }
        )
        self.proc: subprocess.Popen | None = None
        self.session = requests.Session()
        # As a TLS-terminating proxy in front sends it (SECURE_PROXY_SSL_HEADER).
        self.session.headers["X-Forwarded-Proto"] = "https"

    def start(self, timeout: float = 120.0) -> float:
        """Start bin/serve and wait until its health check answers 200; returns the seconds."""
        started = time.monotonic()
        self.handle = open(self.log, "a")
        self.proc = subprocess.Popen(
            [str(ROOT / "bin" / "serve")],
            cwd=ROOT,
            env=self.env,
            stdout=self.handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = started + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"bin/serve exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                if self.get("/api/v1/health/", timeout=3).status_code == 200:
                    return time.monotonic() - started
            except (requests.ConnectionError, requests.Timeout):
                pass  # not listening yet, or its first answer is slow
            time.sleep(0.25)
        self.kill()
        raise RuntimeError(f"bin/serve was not ready within {timeout} s:\n{self.tail()}")

    def terminate(self) -> None:
        """SIGTERM to bin/serve (supervisord), as a deployment stops it."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)

    def stop(self, timeout: float = 60.0) -> tuple[int, float]:
        """SIGTERM (unless sent already) and wait for bin/serve to exit; returns its exit
        status and the seconds it took."""
        assert self.proc is not None
        started = time.monotonic()
        self.terminate()
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise RuntimeError(
                f"bin/serve did not stop within {timeout} s:\n{self.tail()}"
            ) from None
        self.handle.close()
        return code, time.monotonic() - started

    def kill(self) -> None:
        """SIGKILL bin/serve and every process under it (supervisord gives each program a
        process group of its own, so they are found one by one)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        for pid in [self.proc.pid, *descendants(self.proc.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=10)

    def ctl(self, *args: str) -> str:
        """`supervisorctl` on the stack's supervisord: its output."""
        socket_path = Path(self.env["SERVE_RUN_DIR"]) / "supervisor.sock"
        return subprocess.run(
            [str(ROOT / ".venv/bin/supervisorctl"), "-s", f"unix://{socket_path}", *args],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()

    def tail(self, lines: int = 80) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        """One request to the stack. The wait is generous (the suite's other process may be
        driving Chromium on the same 2 cores); one that times out says what the stack logged."""
        kwargs.setdefault("timeout", 30)
        kwargs.setdefault("allow_redirects", False)
        try:
            return self.session.request(method, self.base + path, **kwargs)
        except requests.Timeout as exc:
            raise requests.Timeout(
                f"{method} {path}: {exc}\nThe stack's log:\n{self.tail()}"
            ) from exc

    def get(self, path: str, **kwargs) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs) -> requests.Response:
        return self.request("POST", path, **kwargs)
