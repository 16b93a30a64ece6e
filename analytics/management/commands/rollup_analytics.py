"""manage.py rollup_analytics: count every finished debate into the analytics page's daily
roll-ups again (after an upgrade that added them, or a change of the server's time zone)."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from analytics import rollups


class Command(BaseCommand):
    help = (
        "Build the analytics page's daily roll-ups again from every finished debate. Debates "
        "wait to be written while it runs (about a minute per million debates); reads do not."
    )

    def handle(self, *args, **options):
        start = time.perf_counter()
        counted = rollups.rebuild()
        self.stdout.write(
            f"Counted {counted} finished debates into the daily roll-ups in "
            f"{time.perf_counter() - start:.1f} s."
        )
