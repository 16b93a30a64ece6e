"""Agents over the API: everyone authenticated reads them; only staff create and change them."""

from __future__ import annotations

import pytest

from agents.models import Agent

URL = "/api/v1/agents/"
pytestmark = pytest.mark.usefixtures("default_agents")

NEW_AGENT = {
    "slug": "ethics",
    "name": "Ethics Agent",
    "role": "ethics",
    "system_prompt": "You weigh the ethics of acting on the question.",
    "temperature": 0.3,
    "protocols": ["s4"],
}


def test_authenticated_users_list_and_read_agents(api):
    listed = api.get(URL)
    assert listed.status_code == 200
    slugs = [a["slug"] for a in listed.json()]
    assert {"utility", "accuracy", "safety"} <= set(slugs)
    assert sorted(slugs) == sorted(Agent.objects.values_list("slug", flat=True))
    safety = api.get(f"{URL}safety/").json()
    assert safety["can_veto"] is True and safety["veto_risk_threshold"] == 50


def test_staff_create_an_agent_and_debates_can_use_it(staff_api):
    response = staff_api.post(URL, NEW_AGENT, format="json")
    assert response.status_code == 201, response.json()
    assert Agent.objects.get(slug="ethics").temperature == 0.3
    started = staff_api.post(
        "/api/v1/debates/", {"question": "Is it?", "agents": ["ethics", "safety"]}, format="json"
    )
    assert started.status_code == 202, started.json()


def test_staff_change_an_agent(staff_api):
    response = staff_api.patch(
        f"{URL}utility/", {"temperature": 0.9, "is_active": False}, format="json"
    )
    assert response.status_code == 200, response.json()
    agent = Agent.objects.get(slug="utility")
    assert (agent.temperature, agent.is_active) == (0.9, False)
    replaced = staff_api.put(
        f"{URL}utility/", {**NEW_AGENT, "slug": "utility", "name": "Utility Agent"}, format="json"
    )
    assert replaced.status_code == 200, replaced.json()
    assert Agent.objects.get(slug="utility").role == "ethics"


def test_non_staff_cannot_create_or_change_agents(api):
    assert api.post(URL, NEW_AGENT, format="json").status_code == 403
    response = api.patch(f"{URL}utility/", {"temperature": 1.5}, format="json")
    assert response.status_code == 403
    assert "Agent editor" in response.json()["detail"]
    assert Agent.objects.get(slug="utility").temperature != 1.5
    assert not Agent.objects.filter(slug="ethics").exists()


def test_agents_need_authentication(anon_api):
    assert anon_api.get(URL).status_code == 401
    assert anon_api.post(URL, NEW_AGENT, format="json").status_code == 401


def test_agents_cannot_be_deleted_over_the_api(staff_api):
    assert staff_api.delete(f"{URL}utility/").status_code == 405
    assert Agent.objects.filter(slug="utility").exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"temperature": 2.5}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"veto_risk_threshold": 101}, "veto_risk_threshold"),
        ({"can_veto": "yes"}, "can_veto"),
        ({"name": 7}, "name"),
        ({"slug": "has spaces"}, "slug"),
        ({"slug": "utility"}, "slug"),
        ({"name": "Safety Agent"}, "name"),
        ({"protocols": ["chess"]}, "protocols"),
        ({"protocols": ["auto"]}, "protocols"),
        ({"system_prompt": ""}, "system_prompt"),
    ],
)
def test_bad_agent_input_gets_400_for_the_field(staff_api, change, field):
    before = Agent.objects.count()
    response = staff_api.post(URL, {**NEW_AGENT, **change}, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert Agent.objects.count() == before
    assert not Agent.objects.filter(slug=NEW_AGENT["slug"]).exists()


def test_an_unknown_agent_is_404(api):
    assert api.get(f"{URL}nobody/").status_code == 404
