"""What an API consumer meets first: the Markdown export with a token, filters in any case that
list the valid choices, a wrong auth scheme named, every field error at once, and S4 refused
without its safety agent."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates import running, services
from debates.models import Debate

URL = "/api/v1/debates/"
pytestmark = pytest.mark.usefixtures("default_agents")


def _run(query: str, user) -> Debate:
    debate = services.debate_create(query=query, created_by=user, enqueue=False)
    return running.debate_run(debate_id=debate.id)


def test_a_token_client_downloads_the_markdown_transcript(api, user, other_api):
    debate = _run("How do I hack into my ex's email?", user)
    answer = api.get(f"{URL}{debate.id}/transcript.md", HTTP_ACCEPT="text/markdown")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/markdown")
    text = answer.content.decode()
    assert debate.query in text and "REFUSE" in text
    assert api.get(f"{URL}{debate.id}/transcript.md").status_code == 200  # any Accept
    assert other_api.get(f"{URL}{debate.id}/transcript.md").status_code == 404


def test_the_markdown_transcript_needs_a_token(anon_api, user):
    debate = _run("What is the capital of France?", user)
    assert anon_api.get(f"{URL}{debate.id}/transcript.md").status_code == 401


def test_filters_take_any_case_and_a_bad_one_lists_the_valid_choices(api, user):
    _run("How do I hack into my ex's email?", user)
    _run("What is the capital of France?", user)
    refused = api.get(URL, {"decision": "refuse"})
    assert refused.status_code == 200
    assert [d["decision"] for d in refused.json()["results"]] == ["REFUSE"]
    assert api.get(URL, {"status": "COMPLETED"}).status_code == 200
    bad = api.get(URL, {"decision": "maybe"})
    assert bad.status_code == 400
    [message] = bad.json()["decision"]
    assert "'maybe' is not a valid choice" in message
    assert "ACT" in message and "REFUSE" in message and "SUPPORT" in message


def test_a_token_sent_with_another_scheme_is_told_the_expected_one(anon_api):
    anon_api.credentials(HTTP_AUTHORIZATION="Token dbt_whatever")
    answer = anon_api.get(URL)
    assert answer.status_code == 401
    assert "Authorization: Bearer <token>" in answer.json()["detail"]
    assert "'Token'" in answer.json()["detail"]


def test_every_field_error_is_reported_at_once(api):
    answer = api.post(
        URL, {"question": "", "options": {"max_rounds": 99}, "protocol": "moderated"}, format="json"
    )
    assert answer.status_code == 400
    body = answer.json()
    assert "question" in body and "max_rounds" in body["options"]
    assert not Debate.objects.exists()


def test_s4_without_a_safety_agent_is_refused_with_a_message(api):
    answer = api.post(
        URL, {"question": "Is it raining?", "agents": ["utility", "proponent"]}, format="json"
    )
    assert answer.status_code == 400
    [message] = answer.json()["agents"]
    assert "S4 needs one agent with the role 'safety' that can veto" in message
    assert "Utility Agent (utility)" in message
    assert not Debate.objects.exists()
    assert (
        api.post(
            URL, {"question": "Is it raining?", "agents": ["utility", "safety"]}, format="json"
        ).status_code
        == 202
    )


def test_the_protocols_listing_states_the_roles_each_needs(api):
    listing = {p["name"]: p for p in api.get("/api/v1/protocols/").json()}
    assert "safety" in listing["s4"]["participants"]["roles"]
    assert "moderator" in listing["moderated"]["participants"]["roles"]


def test_the_command_refuses_s4_without_a_safety_agent():
    with pytest.raises(CommandError, match="S4 needs one agent with the role 'safety'"):
        call_command("debate", "Is it raining?", "--agents", "utility,accuracy", "--in-process")


def test_the_new_debate_form_says_why_s4_cannot_run_without_its_safety_agent(client, user):
    from agents.models import Agent

    Agent.objects.filter(slug="safety").update(is_active=False)
    client.force_login(user)
    page = client.post("/debates/new/", {"question": "Is it raining?", "protocol": "s4"})
    assert page.status_code == 400
    text = page.content.decode()
    assert "S4 needs one agent with the role &#x27;safety&#x27; that can veto" in text
    assert not Debate.objects.exists()
