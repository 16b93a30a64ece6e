"""The protocol registry as users meet it: the CLI listing and options, the admin."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from agents.models import Agent
from debates.models import Debate
from protocols import PROTOCOLS, protocol_catalog


def test_the_catalog_lists_every_protocol_with_its_options_and_defaults():
    catalog = {p["name"]: p for p in protocol_catalog()}
    assert list(catalog) == ["s4", "moderated", "moderated_extended", "round_robin", "vote", "auto"]
    options = {o["name"]: o for o in catalog["round_robin"]["options"]}
    assert options["consensus_threshold"]["default"] == 0.75
    assert options["max_rounds"] == {
        "name": "max_rounds",
        "type": "int",
        "default": 5,
        "min": 1,
        "max": 10,
        "description": options["max_rounds"]["description"],
    }
    assert {o["name"]: o["default"] for o in catalog["moderated_extended"]["options"]} == {
        "max_rounds": 3,
        "consensus_threshold": 0.8,
        "model": "",
    }
    assert catalog["moderated"]["decisions"] == ["SUPPORT", "OPPOSE", "UNCERTAIN"]
    assert catalog["auto"]["selector"] is True
    json.dumps(catalog)  # JSON-ready for the API and the pages


def test_the_cli_lists_the_protocols_with_their_options():
    out = io.StringIO()
    call_command("debate", "--list-protocols", stdout=out)
    text = out.getvalue()
    for name in PROTOCOLS:
        assert f"\n{name}: " in f"\n{text}"
    assert "--option min_turns_per_agent=...  (int, default 2, 1-10)" in text
    assert "--option stances=...  (str, default auto, one of auto/investment/decision)" in text


@pytest.mark.django_db
def test_the_cli_runs_a_protocol_with_options(default_agents):
    out = io.StringIO()
    call_command(
        "debate",
        "Should I buy Bitcoin now?",
        "--protocol",
        "round_robin",
        "--option",
        "max_rounds=3",
        "--option",
        "consensus_threshold=0.6",
        "--in-process",
        stdout=out,
    )
    text = out.getvalue()
    # 2 SELL of 3 agents reach a 60 % threshold.
    assert "DECISION: SELL" in text
    assert Debate.objects.get().options["max_rounds"] == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--option", "max_rounds"], "--option takes KEY=VALUE"),
        (["--option", "max_rounds=9"], "options: max_rounds must be between 1 and 5, got 9."),
        (["--option", "colour=red"], "Unknown option(s) for moderated: colour"),
        (["--option", "max_rounds=2", "--option", "max_rounds=3"], "given twice"),
    ],
)
def test_the_cli_says_what_is_wrong_with_an_option(default_agents, args, message):
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call_command(
            "debate",
            "Is it raining?",
            "--protocol",
            "moderated",
            "--in-process",
            *args,
            stdout=io.StringIO(),
        )
    assert Debate.objects.count() == 0


def test_the_cli_needs_a_question_unless_listing():
    with pytest.raises(CommandError, match="Give the question"):
        call_command("debate", stdout=io.StringIO())


@pytest.fixture
def staff_client(client, db):
    user = get_user_model().objects.create_superuser("admin", "admin@example.org", "pw")
    client.force_login(user)
    return client


def test_the_admin_filters_debates_by_registered_protocol_and_shows_the_options(
    staff_client, default_agents
):
    from debates import services

    debate = services.debate_create(
        query="Should I invest in Tesla?", protocol="auto", options={"max_rounds": 4}, enqueue=False
    )
    services.debate_create(query="Is it raining?", enqueue=False)

    listing = staff_client.get("/admin/debates/debate/?protocol=round_robin").content.decode()
    assert PROTOCOLS["moderated_extended"].label in listing
    assert "Should I invest in Tesla?" in listing and "Is it raining?" not in listing

    page = staff_client.get(f"/admin/debates/debate/{debate.id}/change/").content.decode()
    assert PROTOCOLS["round_robin"].label in page
    assert "max_rounds = 4 (default 5)" in page
    assert "chosen by auto: matched &#x27;invest&#x27; (&quot;invest&quot;), a widening of " in page


def test_the_agent_admin_rejects_a_protocol_that_does_not_exist(staff_client, default_agents):
    agent = Agent.objects.get(slug="critic")
    response = staff_client.post(
        f"/admin/agents/agent/{agent.id}/change/",
        {
            "name": agent.name,
            "slug": agent.slug,
            "role": agent.role,
            "position": 13,
            "is_active": "on",
            "protocols": "moderated_extended,chess",
            "system_prompt": agent.system_prompt,
            "temperature": 0.2,
            "veto_risk_threshold": 50,
        },
    )
    assert response.status_code == 200
    assert "Unknown protocol(s): chess" in response.content.decode()
    agent.refresh_from_db()
    assert agent.protocols == ["moderated_extended"]
