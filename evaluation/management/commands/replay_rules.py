"""Re-apply the current decision rules to every stored debate's final votes (no LLM call)."""

import json

from django.core.management.base import BaseCommand

from evaluation.replay import replay_rules
from protocols import evaluation


class Command(BaseCommand):
    help = (
        "Re-apply the current decision rules to the stored final votes of every completed "
        "debate and list those whose decision would differ. Exits 1 if any does."
    )

    def add_arguments(self, parser):
        parser.add_argument("--protocol", default="", help="Only debates of this protocol.")
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args, **options):
        report = replay_rules(protocol=options["protocol"])
        if options["json"]:
            self.stdout.write(json.dumps(report.as_json(), indent=2))
        else:
            share = report.identical_share
            replayed = evaluation.replayable_protocols()
            self.stdout.write(
                f"Replayed {report.checked} debate(s) with the current rules "
                f"({', '.join(f'{p} {evaluation.rules_version(p)}' for p in replayed)}"
                f"): {report.identical} identical"
                + (f" ({share:.2%})" if share is not None else "")
                + f", {len(report.differing)} differ; {report.skipped} skipped "
                "(moderated debates are not decided from final votes)."
            )
            for d in report.differing:
                self.stdout.write(
                    f"  {d.debate_id} ({d.protocol}, rules {d.rules_version or 'unrecorded'}): "
                    f"stored {d.stored}, now {d.replayed}"
                )
        if report.differing:
            raise SystemExit(1)
