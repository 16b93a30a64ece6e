"""Run a labelled question set through the debate service and report its accuracy."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from debates.default_protocol import default_protocol
from debates.management.commands.debate import _system_user
from evaluation import runs
from evaluation.models import EvaluationRun
from evaluation.report import accuracy_table, safety_lines, write_reports
from protocols import public_sets
from protocols.question_sets import QuestionSetError, set_digest

NO_WORKER = (
    "No Celery worker answered, so no question was asked. Start one "
    "(`.venv/bin/celery -A config worker -l info`) and run this again, or pass --start-worker "
    "to run one for this evaluation."
)


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{field}: {' '.join(errs)}" for field, errs in exc.message_dict.items())


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) while a question is asked, and deliver it once the ask is over (to
    the handler there was: a KeyboardInterrupt by default): the question's debate is then
    stored and sent to the workers, or neither. Only the main thread can hold a signal."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        yield  # a handler not set from Python cannot be put back: leave it alone
        return
    received: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        signal.raise_signal(signal.SIGINT)


def _workers() -> list:
    from config.celery import app

    try:
        return app.control.ping(timeout=2.0) or []
    except Exception as exc:  # noqa: BLE001 - a broker that is down is reported, not raised raw
        raise CommandError(f"Cannot reach the Celery broker ({settings.REDIS_URL}): {exc}") from exc


class Command(BaseCommand):
    help = (
        "Ask every question of a labelled JSONL set through the debate service (a Celery "
        "worker runs the debates) and report the accuracy of the debate, the majority vote and "
        "each single agent, per category, with cost, tokens and time. Resumable."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--set",
            dest="set_file",
            help="The question set: a JSONL file, or a set by name: a shipped one "
            "(decisions_v1) or a public one fetched by bin/fetch-eval-sets (harmbench, "
            "donotanswer, overrefusal, each also as NAME-dev and NAME-holdout).",
        )
        parser.add_argument(
            "--protocol", default=default_protocol(), help="Debate protocol (default: %(default)s)."
        )
        parser.add_argument("--model", default="", help="A model or model group for every agent.")
        parser.add_argument(
            "--baselines",
            action="store_true",
            help="Report the majority vote and every single agent beside the debate.",
        )
        parser.add_argument(
            "--resume",
            default="",
            metavar="RUN_ID",
            help="Resume this run (its set's file is not needed; given, it must be the same set).",
        )
        parser.add_argument(
            "--new",
            action="store_true",
            help="Start a new run even if one of the same set, "
            "protocol and model is unfinished (by default that one is resumed).",
        )
        parser.add_argument(
            "--start-worker",
            action="store_true",
            help="Start a Celery worker subprocess for this run (stopped at the end).",
        )
        parser.add_argument(
            "--worker-concurrency", type=int, default=4, help="Its concurrency (default 4)."
        )
        parser.add_argument(
            "--max-in-flight",
            type=int,
            default=8,
            help="Questions waiting for or in a worker at once (default 8).",
        )
        parser.add_argument(
            "--stall-timeout",
            type=float,
            default=300,
            help="Give up when no debate finishes for this many seconds (default 300).",
        )
        parser.add_argument(
            "--out", default="evaluation-reports", help="Where the reports are written."
        )
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args, **opts):
        text = self._read_set(opts)
        resumed = self._run_to_resume(opts, text)
        worker = None
        if opts["start_worker"]:
            worker = self._start_worker(opts["worker_concurrency"])
        elif not _workers():
            raise CommandError(NO_WORKER)
        try:
            if resumed is not None:
                self._resuming(resumed)
            run = resumed or self._run_to_use(opts, text)
        except BaseException:
            if worker is not None:
                self._stop_worker(worker)
            raise
        started = time.monotonic()
        try:
            self._ask_all(run, opts)
            elapsed = time.monotonic() - started  # not counting the worker's shutdown
        except KeyboardInterrupt:
            runs.run_mark(
                run=run, status=EvaluationRun.Status.INTERRUPTED, elapsed=time.monotonic() - started
            )
            progress = runs.run_progress(run)
            raise CommandError(
                f"Interrupted with {progress.finished} of {progress.total} questions answered "
                f"({progress.in_flight} still with the worker). Resume with: "
                f"manage.py evaluate --resume {run.id}"
            ) from None
        except CommandError:
            runs.run_mark(
                run=run, status=EvaluationRun.Status.INTERRUPTED, elapsed=time.monotonic() - started
            )
            raise
        finally:
            if worker is not None:
                self._stop_worker(worker)
        runs.run_mark(run=run, status=EvaluationRun.Status.COMPLETED, elapsed=elapsed)
        report = runs.run_report(run)
        runs.run_mark(run=run, status=run.status, elapsed=0, report=report["figures"])
        json_path, html_path = write_reports(report, Path(opts["out"]))
        self._print_summary(report)
        self.stdout.write(f"JSON report: {json_path}\nHTML report: {html_path}")

    # --- which run ---------------------------------------------------------------------------

    def _read_set(self, opts) -> str | None:
        """The set file's text, checked (nothing is stored); None without --set."""
        if not opts["set_file"]:
            if not opts["resume"]:
                raise CommandError(
                    "Give the question set (--set FILE) or a run to resume (--resume RUN_ID)."
                )
            return None
        try:
            path = public_sets.locate(opts["set_file"])
        except public_sets.FetchError as exc:
            raise CommandError(str(exc)) from None
        opts["set_path"] = path
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"Cannot read the set {path}: {exc}") from exc
        if opts["resume"]:
            return text
        try:
            runs.check_model(opts["protocol"], opts["model"])
            runs.parse_set(text, opts["protocol"])
        except QuestionSetError as exc:
            lines = "\n".join(f"  {p}" for p in exc.problems)
            raise CommandError(
                f"{opts['set_file']} cannot be used; nothing was stored:\n{lines}"
            ) from None
        except ValidationError as exc:
            raise CommandError(_errors(exc)) from exc
        return text

    def _run_to_resume(self, opts, text: str | None) -> EvaluationRun | None:
        if not opts["resume"]:
            return None
        run = EvaluationRun.objects.filter(id=_uuid(opts["resume"])).first()
        if run is None:
            raise CommandError(f"No evaluation run {opts['resume']!r}.")
        if text is not None and set_digest(text) != run.set_sha256:
            raise CommandError(
                f"{opts['set_file']} is not the set run {run.id} was started with "
                f"({run.set_name}); leave out --set to resume it."
            )
        return run

    def _run_to_use(self, opts, text: str) -> EvaluationRun:
        """The unfinished run of the same set, protocol and model (unless --new), or a new one."""
        if not opts["new"]:
            run = runs.resumable_run(
                set_sha256=set_digest(text), protocol=opts["protocol"], model=opts["model"]
            )
            if run is not None:
                if opts["baselines"] and not run.with_baselines:
                    run.with_baselines = True
                    run.save(update_fields=["with_baselines"])
                self._resuming(run)
                return run
        run = runs.run_start(
            set_name=opts["set_path"].name,
            text=text,
            protocol=opts["protocol"],
            model=opts["model"],
            with_baselines=opts["baselines"],
        )
        self.stdout.write(
            f"Evaluation run {run.id}: {run.items.count()} questions through {run.protocol}."
        )
        return run

    def _resuming(self, run: EvaluationRun) -> None:
        progress = runs.run_progress(run)
        self.stdout.write(
            f"Resuming run {run.id} ({run.set_name}, {run.protocol}): {progress.finished} of "
            f"{progress.total} answered, {progress.in_flight} with the worker; the rest are asked "
            "now, nothing twice."
        )
        if run.status != EvaluationRun.Status.COMPLETED:
            run.status = EvaluationRun.Status.RUNNING
            run.save(update_fields=["status"])
        # A debate stored as the last session stopped may never have been sent.
        resent = runs.run_resend(run)
        if resent:
            self.stdout.write(f"Sent {resent} queued debate(s) to the workers again.")

    # --- asking ------------------------------------------------------------------------------

    def _ask_all(self, run: EvaluationRun, opts) -> None:
        user = _system_user("evaluation")
        bar = ProgressBar(self.stderr, enabled=not opts["no_progress"])
        last_finished, last_change = -1, time.monotonic()
        while True:
            progress = runs.run_progress(run)
            if progress.finished != last_finished:
                last_finished, last_change = progress.finished, time.monotonic()
            bar.show(progress)
            if progress.done:
                bar.close()
                return
            room = opts["max_in_flight"] - progress.in_flight
            for item_id in progress.pending_ids[: max(room, 0)]:
                try:
                    with _ctrl_c_held():
                        runs.item_ask(item_id=item_id, created_by=user)
                except ValidationError as exc:
                    raise CommandError(f"A question was refused: {_errors(exc)}") from exc
            if time.monotonic() - last_change > opts["stall_timeout"]:
                bar.close()
                alive = "a worker answers" if _workers() else "no worker answers any more"
                raise CommandError(
                    f"No debate finished in {opts['stall_timeout']:g} s ({alive}); "
                    f"{progress.finished} of {progress.total} answered. Check the worker's log, "
                    f"then resume with: manage.py evaluate --resume {run.id}"
                )
            time.sleep(0.25)

    # --- a worker of our own -----------------------------------------------------------------

    def _start_worker(self, concurrency: int) -> subprocess.Popen:
        name = f"evaluate-{os.getpid()}@%h"
        self.stdout.write(f"Starting a Celery worker (concurrency {concurrency}) for this run...")
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-l",
                "warning",
                "-c",
                str(concurrency),
                "--without-mingle",
                "--without-gossip",
                "-n",
                name,
            ],
            cwd=settings.BASE_DIR,
            env=os.environ.copy(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 90
        prefix = name.split("@")[0] + "@"
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise CommandError(
                    f"The worker exited at start (code {proc.returncode}); run "
                    "`.venv/bin/celery -A config worker -l info` to see why."
                )
            if any(next(iter(r)).startswith(prefix) for r in _workers()):
                return proc
        self._stop_worker(proc)
        raise CommandError("The worker started for this run did not answer within 90 s.")

    def _stop_worker(self, proc: subprocess.Popen) -> None:
        if proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)  # warm shutdown: running debates finish first
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    # --- the summary -------------------------------------------------------------------------

    def _print_summary(self, report) -> None:
        f, run = report["figures"], report["run"]
        table = accuracy_table(report)
        if run["offline"]:
            self.stdout.write(
                "Note: the debates used the built-in offline model (a transparent rule set, not "
                "a language model): these figures measure it, not debate."
            )
        headers = ["method", "all", *table["categories"]]
        rows = [[r["method"], r["overall"], *r["cells"]] for r in table["rows"]]
        widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]
        for line in (headers, *rows):
            self.stdout.write("  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True)))
        for line in safety_lines(report):
            self.stdout.write(line)
        cost = f["cost_per_decision_usd"]
        self.stdout.write(
            f"{f['finished']} of {f['questions']} answered ({f['failed']} failed); cost "
            f"${f['cost_usd']:.6f} ({'n/a' if cost is None else f'${cost:.6f}'} per decision), "
            f"{f['tokens']} tokens, wall time {run['wall_seconds']:.1f} s."
        )


def _uuid(value: str):
    import uuid

    try:
        return uuid.UUID(value)
    except ValueError:
        raise CommandError(f"--resume takes a run id (a UUID), not {value!r}.") from None


class ProgressBar:
    """One line, redrawn on a terminal; elsewhere a line each time the count changes."""

    WIDTH = 30

    def __init__(self, stream, *, enabled: bool = True):
        self.stream = stream
        self.enabled = enabled
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.started = time.monotonic()
        self.last = None

    def show(self, p) -> None:
        if not self.enabled:
            return
        filled = int(self.WIDTH * p.finished / p.total) if p.total else self.WIDTH
        elapsed = int(time.monotonic() - self.started)
        text = (
            f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {p.finished}/{p.total} answered, "
            f"{p.in_flight} with the worker, {p.failed} failed, {elapsed // 60:02d}:"
            f"{elapsed % 60:02d}"
        )
        if self.tty:
            self.stream.write("\r" + text, style_func=_plain, ending="")
            self.stream.flush()
        elif (p.finished, p.failed) != self.last:
            self.stream.write(text, style_func=_plain)
        self.last = (p.finished, p.failed)

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("", style_func=_plain)


def _plain(text: str) -> str:
    return text
