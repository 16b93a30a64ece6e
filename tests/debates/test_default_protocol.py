"""The default protocol is one setting (`DEBATE_DEFAULT_PROTOCOL`): what a debate or a schedule
gets when none is chosen, wherever it is started; a name the registry does not know stops
start-up."""

from __future__ import annotations

import io
import sys

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from debates.forms import DebateStartForm
from debates.models import Debate
from schedules import services as schedule_services
from tests.api.conftest import client_for
from tests.factories import UserFactory, with_roles
from tests.test_settings_modes import run

QUESTION = "Should every website use HTTPS?"
pytestmark = pytest.mark.usefixtures("default_agents")


@pytest.mark.slow
def test_an_unknown_default_protocol_stops_start_up_naming_the_known_ones():
    started = run(
        args=[sys.executable, "manage.py", "check"],
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DEBATE_DEFAULT_PROTOCOL="chess",
    )
    assert started.returncode != 0
    assert "DEBATE_DEFAULT_PROTOCOL='chess' is not a protocol" in started.stderr
    assert "moderated, moderated_extended, round_robin, s4, vote" in started.stderr


@override_settings(DEBATE_DEFAULT_PROTOCOL="vote")
def test_every_way_of_starting_a_debate_without_a_protocol_takes_the_setting(client):
    api = client_for(UserFactory(username="ana"))
    response = api.post("/api/v1/debates/", {"question": QUESTION}, format="json")
    assert response.status_code == 202, response.json()
    assert Debate.objects.get(id=response.json()["id"]).protocol == "vote"

    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    create = schema["components"]["schemas"]["DebateCreateRequest"]["properties"]["protocol"]
    assert create["default"] == "vote"

    assert DebateStartForm()["protocol"].initial == "vote"
    client.force_login(get_user_model().objects.create_user("nora", password="a-long-pass"))
    page = client.get(reverse("debates:start")).content.decode()
    assert '<option value="vote" selected>' in page

    out = io.StringIO()
    call_command("debate", QUESTION, "--in-process", stdout=out)
    assert Debate.objects.latest("created_at").protocol == "vote"
    assert "DECISION: " in out.getvalue()

    owner = with_roles(get_user_model().objects.create_user("analyst", is_staff=True))
    schedule = schedule_services.schedule_create(
        name="Daily", owner=owner, questions=[QUESTION], kind="interval", every=1, period="days"
    )
    assert schedule.protocol == "vote"
    assert Debate().protocol == "vote"
