import json
import sys
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from contradictions import running, selectors, services
from contradictions.inputs import parse_payload
from contradictions.models import ContradictionRun
from runs.worker import require_worker, wait_until_finished


class Command(BaseCommand):
    help = (
        "Find and resolve contradictions among agent reports read from a JSON file (a list of "
        'reports, or {"reports": [...]}), or taken from a completed debate.'
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", help="The reports, as JSON ('-' reads stdin).")
        parser.add_argument(
            "--from-debate",
            metavar="DEBATE_ID",
            help="Take the reports from this completed debate's agents.",
        )
        parser.add_argument(
            "--threshold",
            type=float,
            help="Relative gap above which values conflict (default 0.05).",
        )
        parser.add_argument(
            "--in-process", action="store_true", help="Run here instead of through a Celery worker."
        )
        parser.add_argument("--json", action="store_true", help="Print the run as JSON.")
        parser.add_argument(
            "--timeout", type=float, default=300, help="Seconds to wait for the worker."
        )

    def handle(self, *args, file, from_debate, threshold, in_process, json, timeout, **opts):
        if bool(file) == bool(from_debate):
            raise CommandError("Give a JSON file of reports, or --from-debate DEBATE_ID.")
        if not in_process:
            require_worker()
        try:
            if from_debate:
                run = services.contradiction_run_from_debate(
                    debate_id=from_debate, value_threshold=threshold, enqueue=not in_process
                )
            else:
                payload = parse_payload(self._read(file))
                if "reports" not in payload:
                    raise CommandError("The file gives no reports.")
                run = services.contradiction_run_create(
                    reports=payload["reports"],
                    origin=ContradictionRun.Origin.COMMAND,
                    value_threshold=threshold
                    if threshold is not None
                    else payload.get("value_threshold"),
                    confidence_gap=payload.get("confidence_gap"),
                    enqueue=not in_process,
                )
        except ValidationError as exc:
            raise CommandError("Bad input:\n  " + "\n  ".join(_messages(exc))) from exc
        if in_process:
            running.contradiction_run_execute(run_id=run.id)
        else:
            wait_until_finished(
                ContradictionRun.objects.filter(id=run.id),
                done=(ContradictionRun.Status.COMPLETED, ContradictionRun.Status.FAILED),
                timeout=timeout,
                what=f"The run {run.id}",
            )
        run = selectors.run_detail_queryset().get(id=run.id)
        if json:
            self.stdout.write(_dumps(selectors.run_export(run)))
        else:
            self.stdout.write(render_text(run))
        if run.status == ContradictionRun.Status.FAILED:
            raise CommandError(f"The run failed: {run.error}")

    def _read(self, file):
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"Cannot read {file}: {exc.strerror or exc}") from exc
        try:
            return json.loads(text)
        except ValueError as exc:
            raise CommandError(f"{file} is not valid JSON: {exc}") from exc


def _messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [f"{field}: {m}" for field, ms in exc.message_dict.items() for m in ms]
    return exc.messages


def _dumps(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def render_text(run) -> str:
    page = selectors.arrange(run)
    lines = [
        f"Contradiction run {run.id}: {run.get_status_display()}",
        f"{len(page.reports)} reports, {page.claims} claims; {run.contradictions_found} "
        f"contradiction{'s' if run.contradictions_found != 1 else ''}: {run.resolved_count} "
        f"resolved, {run.flagged_count} flagged for review"
        + (" (arbitration skipped)" if run.arbitration_skipped else ""),
        f"Source authority: {page.ranking.describe()}",
        "",
    ]
    for case in page.cases:
        c = case.contradiction
        lines.append(f"{c.position}. {c.metric} [{c.severity}] rules: {', '.join(c.rules)}")
        for claim in case.claims:
            f = claim.finding
            lines.append(
                f"   Agent {claim.slot} {f.report.agent_name}: {claim.value_text} "
                f"({f.source or 'source not stated'}, {f.period or 'period not stated'}; "
                f"confidence {f.confidence:g})"
            )
        r = case.resolution
        if r is not None:
            lines.append(f"   -> {r.resolution} / {r.action} (confidence {r.confidence:g})")
            if r.explanation:
                lines.append(f"      {r.explanation}")
        if case.outcome:
            lines.append(f"   consensus: {case.outcome['status']}: {case.outcome['reason']}")
        lines.append("")
    if run.consensus_narrative:
        lines += ["CONSENSUS", run.consensus_narrative, ""]
    for report in run.adjusted_reports or []:
        lines.append(f"Adjusted report of {report['agent']}:")
        for f in report["findings"]:
            value = (
                f"{f['value']:g} {f['unit']}".strip()
                if f["value"] is not None
                else (f["interpretation"])
            )
            lines.append(f"   {f['metric']}: {value} [{f['status']}] {f['context']}".rstrip())
    if any("offline" in (case.call.model if case.call else "") for case in page.cases):
        lines += [
            "",
            "Arbitrated by the offline heuristic demo model: deterministic rules, not a "
            "language model.",
        ]
    return "\n".join(lines) + "\n"
