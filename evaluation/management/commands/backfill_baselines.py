"""Record the baselines (single agents, majority vote, outcome change) of finished debates."""

from django.core.management.base import BaseCommand

from evaluation import quality
from evaluation.baselines import backfill


class Command(BaseCommand):
    help = (
        "Compute and store the baselines and quality scores of every completed debate that "
        "has none "
        "(--all: recompute every one)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all", action="store_true", help="Recompute debates that already have baselines."
        )

    def handle(self, *args, **options):
        count = backfill(only_missing=not options["all"])
        self.stdout.write(f"Recorded baselines of {count} debate(s).")
        scored = quality.backfill(only_missing=not options["all"])
        self.stdout.write(f"Recorded quality scores of {scored} debate(s).")
