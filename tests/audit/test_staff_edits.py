"""Agent and schedule edits in the admin land in the audit trail; agents keep their versions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from agents.models import Agent, AgentVersion
from audit.models import AuditEntry
from schedules.models import DebateSchedule

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user("eve", password="pw-long-enough", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            codename__in=[
                "view_agent",
                "change_agent",
                "change_agent_veto",
                "delete_agent",
                "add_debateschedule",
                "change_debateschedule",
                "view_debateschedule",
                "delete_debateschedule",
            ]
        )
    )
    client = Client()
    client.force_login(user)
    return client


def agent_form(agent: Agent, **changes) -> dict:
    data = {
        "name": agent.name,
        "slug": agent.slug,
        "role": agent.role,
        "position": agent.position,
        "is_active": "on" if agent.is_active else "",
        "protocols": ",".join(agent.protocols),
        "guiding_question": agent.guiding_question,
        "system_prompt": agent.system_prompt,
        "model_name": agent.model_name,
        "temperature": agent.temperature,
        "can_veto": "on" if agent.can_veto else "",
        "veto_risk_threshold": agent.veto_risk_threshold,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v != ""}


def test_an_agent_edit_is_versioned_and_audited_from_what_to_what(editor, default_agents, settings):
    settings.DEBATE_ALLOWED_MODELS = [*settings.DEBATE_ALLOWED_MODELS, "openai/gpt-4o-mini"]
    safety = Agent.objects.get(slug="safety")
    url = reverse("admin:agents_agent_change", args=[safety.pk])
    old_prompt = safety.system_prompt

    response = editor.post(
        url, agent_form(safety, system_prompt="Be brief.", model_name="cheap", can_veto="")
    )

    assert response.status_code == 302, response.content.decode()[:3000]
    entry = AuditEntry.objects.get(action="agent.change")
    assert entry.actor_name == "eve" and entry.subject_id == str(safety.pk)
    assert entry.changes == {
        "system_prompt": {"from": old_prompt, "to": "Be brief."},
        "model_name": {"from": "", "to": "cheap"},
        "can_veto": {"from": True, "to": False},
    }
    versions = list(AgentVersion.objects.filter(agent=safety).order_by("number"))
    assert [v.number for v in versions] == [1, 2]
    assert versions[0].snapshot["can_veto"] is True and versions[1].snapshot["can_veto"] is False
    page = editor.get(url).content.decode()
    assert "v2" in page and "can_veto: True → False" in page

    editor.post(url, agent_form(Agent.objects.get(pk=safety.pk)))  # saved without a change
    assert AuditEntry.objects.filter(action="agent.change").count() == 1
    assert AgentVersion.objects.filter(agent=safety).count() == 2


def test_a_deleted_agent_keeps_its_history(editor, default_agents):
    agent = Agent.objects.get(slug="utility")
    editor.post(
        reverse("admin:agents_agent_change", args=[agent.pk]), agent_form(agent, temperature="0.7")
    )

    editor.post(reverse("admin:agents_agent_delete", args=[agent.pk]), {"post": "yes"})

    assert not Agent.objects.filter(pk=agent.pk).exists()
    assert list(
        AgentVersion.objects.filter(agent_slug="utility")
        .values_list("number", flat=True)
        .order_by("number")
    ) == [1, 2]
    deleted = AuditEntry.objects.get(action="agent.delete", subject_id=str(agent.pk))
    assert deleted.actor_name == "eve" and deleted.changes["temperature"]["from"] == 0.7


def test_schedule_edits_pauses_and_deletion_are_audited(editor, default_agents, django_user_model):
    eve = django_user_model.objects.get(username="eve")
    form = {
        "name": "Morning checks",
        "owner": eve.pk,
        "enabled": "on",
        "questions": "What is the capital of France?",
        "protocol": "s4",
        "options": "{}",
        "kind": "interval",
        "every": "1",
        "period": "days",
        "minute": "0",
        "hour": "9",
        "day_of_week": "*",
        "day_of_month": "*",
        "month_of_year": "*",
        "timezone": "UTC",
    }
    assert editor.post(reverse("admin:schedules_debateschedule_add"), form).status_code == 302
    schedule = DebateSchedule.objects.get()
    change_url = reverse("admin:schedules_debateschedule_change", args=[schedule.pk])
    assert editor.post(change_url, {**form, "every": "2", "questions": "Is it?"}).status_code == 302
    editor.post(
        reverse("admin:schedules_debateschedule_changelist"),
        {"action": "pause", "_selected_action": [schedule.pk]},
    )
    editor.post(
        reverse("admin:schedules_debateschedule_delete", args=[schedule.pk]), {"post": "yes"}
    )

    entries = list(
        AuditEntry.objects.filter(subject_type="schedules.debateschedule").order_by("at", "id")
    )
    assert [e.action for e in entries] == [
        "schedule.create",
        "schedule.change",
        "schedule.pause",
        "schedule.delete",
    ]
    assert entries[1].changes == {
        "every": {"from": 1, "to": 2},
        "questions": {"from": "What is the capital of France?", "to": "Is it?"},
    }
    assert entries[2].changes == {"enabled": {"from": True, "to": False}}
    assert all(e.actor_name == "eve" for e in entries)
    assert not DebateSchedule.objects.exists()


def test_an_agent_edit_over_the_api_is_versioned_and_audited(default_agents):
    from tests.api.conftest import client_for
    from tests.factories import StaffFactory

    staff = StaffFactory(username="ops")
    response = client_for(staff).patch(
        "/api/v1/agents/accuracy/", {"temperature": 0.1}, format="json"
    )
    assert response.status_code == 200, response.json()
    agent = Agent.objects.get(slug="accuracy")
    assert agent.temperature == 0.1
    version = agent.versions.order_by("-number").first()
    assert version.changed_by_name == "ops"
    assert version.changes["temperature"]["to"] == 0.1
    assert AuditEntry.objects.filter(
        action="agent.change", subject_id=str(agent.pk), actor_name="ops"
    ).exists()
