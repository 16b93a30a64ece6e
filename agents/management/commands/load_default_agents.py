from django.core.management.base import BaseCommand
from django.db import transaction

from agents.defaults import DEFAULT_AGENTS
from agents.models import Agent


class Command(BaseCommand):
    help = "Install the default agents. Existing agents are left as edited unless --reset."

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset", action="store_true", help="Overwrite edited agents with the defaults."
        )

    @transaction.atomic
    def handle(self, *args, reset=False, **options):
        created = updated = 0
        for spec in DEFAULT_AGENTS:
            fields = {k: v for k, v in spec.items() if k != "slug"}
            if reset:
                _, was_created = Agent.objects.update_or_create(slug=spec["slug"], defaults=fields)
                updated += not was_created
            else:
                _, was_created = Agent.objects.get_or_create(slug=spec["slug"], defaults=fields)
            created += was_created
        self.stdout.write(
            f"Default agents: {created} created, {updated} reset, "
            f"{len(DEFAULT_AGENTS) - created - updated} left as they were."
        )
