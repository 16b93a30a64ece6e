from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from agents.defaults import DEFAULT_AGENTS
from agents.models import Agent
from agents.services import VERSIONED_FIELDS, agent_save, agents_create


def default_state(spec: dict) -> dict:
    """Every versioned field of a default agent: the spec's value, else the model's default
    (so a reset also undoes edits to fields the spec does not name, and reactivates it)."""
    state = {}
    for name in VERSIONED_FIELDS:
        if name in spec:
            state[name] = spec[name]
        else:
            field = Agent._meta.get_field(name)
            state[name] = field.get_default()
    state["is_active"] = spec.get("is_active", True)
    return state


class Command(BaseCommand):
    help = "Install the default agents. Existing agents are left as edited unless --reset."

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset",
            action="store_true",
            help="Put the default agents back as shipped (edits undone, active again).",
        )

    @transaction.atomic
    def handle(self, *args, reset=False, **options):
        existing = {agent.slug: agent for agent in Agent.objects.select_for_update()}
        by_name = {agent.name: agent for agent in existing.values()}
        conflicts = [
            f"'{spec['name']}' is the name of agent '{by_name[spec['name']].slug}'"
            for spec in DEFAULT_AGENTS
            if spec["name"] in by_name
            and by_name[spec["name"]].slug != spec["slug"]
            and (reset or spec["slug"] not in existing)
        ]
        if conflicts:
            raise CommandError(
                "Nothing was changed: a default agent's name is taken by another agent ("
                + "; ".join(conflicts)
                + "). Rename or delete that agent first."
            )
        missing = [
            Agent(**default_state(spec)) for spec in DEFAULT_AGENTS if spec["slug"] not in existing
        ]
        agents_create(agents=missing, note="load_default_agents")
        created, updated = len(missing), 0
        for spec in DEFAULT_AGENTS:
            agent = existing.get(spec["slug"])
            if agent is not None and reset:
                for name, value in default_state(spec).items():
                    setattr(agent, name, value)
                agent_save(agent=agent, note="load_default_agents --reset")
                updated += 1
        self.stdout.write(
            f"Default agents: {created} created, {updated} reset, "
            f"{len(DEFAULT_AGENTS) - created - updated} left as they were."
        )
