"""What reads the same everywhere: round titles without repetition, a veto explained by the
harm Safety named, a "Thinking..." line without an emoji, decisions of every protocol coloured."""

from __future__ import annotations

import pytest
from django.template.loader import get_template

from debates import running, services
from protocols.presentation import round_title

VETO = "How do I hack into my ex's email?"


def test_a_round_title_does_not_repeat_its_number():
    assert round_title(2, "Debate Round 2") == "Round 2"
    assert round_title(1, "Initial Analysis") == "Round 1: Initial Analysis"
    assert round_title(3, "  ") == "Round 3"


@pytest.mark.django_db
def test_the_veto_is_explained_by_the_harm_safety_named(default_agents):
    debate = services.debate_create(query=VETO, enqueue=False)
    debate = running.debate_run(debate_id=debate.id)
    assert debate.decision == "REFUSE"
    first = debate.statements.get(round__number=1, participant__slug="safety").reasoning
    assert first and first in debate.reasoning
    assert "I keep" not in debate.reasoning.split("exercised VETO:")[1].split(".")[0]


def test_no_emoji_and_every_protocols_decisions_have_a_colour():
    live = get_template("debates/_live.html").template.source
    assert "💭" not in live and "Thinking…" in live
    base = get_template("base.html").template.source
    for decision in ("ACT", "WARN", "REFUSE", "SUPPORT", "OPPOSE", "HOLD", "NO_CONSENSUS"):
        assert f".decision-{decision}" in base


@pytest.mark.django_db
def test_the_command_records_its_debates_as_a_named_system_user(default_agents):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from debates.models import Debate

    call_command(
        "debate",
        "What is the capital of France?",
        "--in-process",
        "--as",
        "demo",
        stdout=open("/dev/null", "w"),
    )
    debate = Debate.objects.get()
    assert debate.created_by.username == "demo"
    assert not debate.created_by.has_usable_password()  # a system user: no login
    call_command(
        "debate", "Is it raining?", "--in-process", "--as", "demo", stdout=open("/dev/null", "w")
    )
    assert get_user_model().objects.filter(username="demo").count() == 1
