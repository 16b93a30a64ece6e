"""In the admin, an agent's veto power changes only with `agents.change_agent_veto`."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.roles import AGENT_EDITOR, OPERATOR
from agents.models import Agent
from tests.audit.test_staff_edits import agent_form
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db


def admin_client(*roles, perms=()):
    user = StaffFactory(roles=list(roles))
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.mark.parametrize(("roles", "veto_after"), [((AGENT_EDITOR,), True), ((OPERATOR,), False)])
def test_switching_off_the_safety_agents_veto_in_the_admin(default_agents, roles, veto_after):
    safety = Agent.objects.get(slug="safety")
    client = admin_client(*roles)
    url = f"/admin/agents/agent/{safety.pk}/change/"
    page = client.get(url).content.decode()
    assert ('name="can_veto"' in page) is (not veto_after)
    response = client.post(url, agent_form(safety, can_veto="", temperature=0.4))
    assert response.status_code == 302
    safety.refresh_from_db()
    assert safety.can_veto is veto_after
    assert safety.temperature == 0.4  # the rest of the form was saved


def test_deleting_an_agent_that_can_veto_needs_the_veto_permission(default_agents):
    safety, utility = Agent.objects.get(slug="safety"), Agent.objects.get(slug="utility")
    client = admin_client(AGENT_EDITOR, perms=["delete_agent"])
    assert (
        client.post(f"/admin/agents/agent/{safety.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert Agent.objects.filter(pk=safety.pk).exists()
    assert (
        client.post(f"/admin/agents/agent/{utility.pk}/delete/", {"post": "yes"}).status_code == 302
    )
    assert not Agent.objects.filter(pk=utility.pk).exists()
