"""`load_default_agents --reset` puts the defaults back whole; agent names are printable."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from agents.defaults import DEFAULT_AGENTS
from agents.management.commands.load_default_agents import default_state
from agents.models import Agent, AgentVersion
from agents.services import agent_save
from audit.models import AuditEntry

pytestmark = pytest.mark.django_db


def load(*args) -> str:
    out = io.StringIO()
    call_command("load_default_agents", *args, stdout=out)
    return out.getvalue()


def test_installing_the_defaults_stores_what_saving_each_agent_alone_stores(django_user_model):
    """The command stores the agents at once (`agents_create`); each gets the first version and
    the audit entry `agent_save` would give it."""
    load()
    batch = {a.slug: (_version_of(a), _creation_of(a)) for a in Agent.objects.order_by("position")}
    assert list(batch) == [spec["slug"] for spec in DEFAULT_AGENTS]
    Agent.objects.all().delete()  # their versions and audit entries stay, under the old ids
    for spec in DEFAULT_AGENTS:
        agent_save(agent=Agent(**default_state(spec)), note="load_default_agents")
    alone = {a.slug: (_version_of(a), _creation_of(a)) for a in Agent.objects.all()}
    assert batch == alone


def _version_of(agent) -> tuple:
    (version,) = AgentVersion.objects.filter(agent=agent)
    return version.number, version.snapshot, version.changes, version.changed_by_name


def _creation_of(agent) -> tuple:
    (created,) = AuditEntry.objects.filter(
        action="agent.create", subject_type="agents.agent", subject_id=str(agent.pk)
    )
    return created.actor_name, created.subject_repr, created.changes, created.note


def test_reset_restores_every_field_and_reactivates(default_agents):
    safety = Agent.objects.get(slug="safety")
    safety.is_active = False
    safety.can_veto = False
    safety.model_name = "openai/gpt-4o-mini"
    safety.system_prompt = "Anything goes."
    safety.save()

    assert "0 created, 0 reset" in load()  # without --reset, edits stay
    assert Agent.objects.get(slug="safety").is_active is False

    assert f"0 created, {len(DEFAULT_AGENTS)} reset" in load("--reset")

    safety.refresh_from_db()
    spec = next(a for a in DEFAULT_AGENTS if a["slug"] == "safety")
    assert (safety.is_active, safety.can_veto, safety.model_name) == (True, True, "")
    assert safety.system_prompt == spec["system_prompt"]
    change = AuditEntry.objects.get(action="agent.change", subject_id=str(safety.pk))
    assert change.actor_name == "" and change.note == "load_default_agents --reset"
    assert change.changes["is_active"] == {"from": False, "to": True}
    assert AgentVersion.objects.filter(agent=safety).count() == 2


def test_reset_with_a_default_name_taken_says_so_and_changes_nothing(default_agents):
    utility = Agent.objects.get(slug="utility")
    utility.name = "Helpful Agent"
    utility.is_active = False
    utility.save()
    Agent.objects.create(
        slug="my-utility", name="Utility Agent", role="utility", system_prompt="Mine."
    )

    with pytest.raises(CommandError) as refused:
        load("--reset")

    assert "'Utility Agent' is the name of agent 'my-utility'" in str(refused.value)
    assert "Nothing was changed" in str(refused.value)
    utility.refresh_from_db()
    assert (utility.name, utility.is_active) == ("Helpful Agent", False)


def test_installing_a_missing_default_whose_name_is_taken_is_refused_too(db):
    Agent.objects.create(slug="mine", name="Safety Agent", role="safety", system_prompt="x")
    with pytest.raises(CommandError, match="'Safety Agent' is the name of agent 'mine'"):
        load()
    assert Agent.objects.count() == 1


@pytest.mark.parametrize("name", ["Safety\nAgent", "Evil\x00", "Safe\u202eytefaS", "A\x1b[31m"])
def test_the_admin_refuses_agent_names_with_control_characters(admin_client, default_agents, name):
    safety = Agent.objects.get(slug="safety")
    url = reverse("admin:agents_agent_change", args=[safety.pk])
    data = {
        "name": name,
        "slug": "safety",
        "role": safety.role,
        "position": safety.position,
        "is_active": "on",
        "protocols": "s4",
        "guiding_question": safety.guiding_question,
        "system_prompt": safety.system_prompt,
        "model_name": "",
        "temperature": "0.2",
        "can_veto": "on",
        "veto_risk_threshold": "50",
    }

    response = admin_client.post(url, data)

    assert response.status_code == 200
    text = response.content.decode()
    # NUL is refused by Django's form field itself, the rest by the agents' validator.
    assert (
        "Remove the control or invisible characters (U+" in text
        or "Null characters are not allowed." in text
    )
    safety.refresh_from_db()
    assert safety.name == "Safety Agent"
