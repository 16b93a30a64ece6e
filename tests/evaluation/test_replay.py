"""Replay: the current rules on stored final votes, without any LLM call."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from agents import gateway
from debates import running, services
from debates.models import Debate, Vote
from evaluation.replay import replay_rules
from protocols import evaluation as ev
from tests.factories import StaffFactory

HTTPS = "Should every website use HTTPS?"
TESLA = "Should I invest in Tesla (TSLA) considering all factors?"


def finished(query, protocol):
    debate = services.debate_create(query=query, protocol=protocol, enqueue=False)
    running.debate_run(debate_id=debate.id)
    return Debate.objects.get(id=debate.id)


def test_replay_decision_applies_the_rules_to_final_votes():
    votes = [
        ev.Answer("a", "ACT", 80, 10),
        ev.Answer("b", "ACT", 80, 10),
        ev.Answer("c", "VETO", 90, 95),
    ]
    assert ev.replay_decision("s4", votes) == "REFUSE"
    stances = [
        ev.Answer("a", "BUY", 70, 10),
        ev.Answer("b", "BUY", 70, 10),
        ev.Answer("c", "BUY", 70, 10, parse_failed=True),
    ]
    assert ev.replay_decision("round_robin", stances, {"consensus_threshold": 0.75}) == (
        "NO_CONSENSUS"
    )
    assert ev.replay_decision("round_robin", stances, {"consensus_threshold": 0.6}) == "BUY"
    with pytest.raises(ValueError, match="not decided from their final votes"):
        ev.replay_decision("moderated", votes)


def test_unchanged_rules_replay_every_stored_debate_identically(default_agents, capsys):
    debates = [
        finished(HTTPS, "s4"),
        finished(TESLA, "round_robin"),
        finished(HTTPS, "moderated"),
        finished("Is it safe to mix bleach and ammonia?", "s4"),
    ]
    with pytest.MonkeyPatch.context() as mp:

        def no_llm(*args, **kwargs):
            raise AssertionError("replay must not call a model")

        mp.setattr(gateway, "acomplete", no_llm)
        mp.setattr(gateway, "complete_concurrently", no_llm)
        report = replay_rules()
    assert report.checked == 3 and report.identical == 3 and report.identical_share == 1.0
    assert report.skipped == 1 and report.differing == ()
    assert report.by_rules_version == {debates[0].rules_version: 2, debates[1].rules_version: 1}
    call_command("replay_rules")
    assert "3 identical (100.00%), 0 differ; 1 skipped" in capsys.readouterr().out


def test_a_changed_outcome_is_reported_by_the_command_and_the_api(default_agents, capsys):
    debate = finished(HTTPS, "s4")
    # The stored votes now say something the stored decision does not follow from.
    Vote.objects.filter(debate=debate).update(decision="VETO", risk=95)
    Debate.objects.filter(id=debate.id).update(decision="ACT")
    with pytest.raises(SystemExit) as exit_info:
        call_command("replay_rules")
    assert exit_info.value.code == 1
    out = capsys.readouterr().out
    assert f"{debate.id} (s4, rules {debate.rules_version}): stored ACT, now REFUSE" in out
    api = APIClient()
    api.force_authenticate(StaffFactory())
    body = api.post("/api/v1/evaluation/replay/", {"protocol": "s4"}, format="json").json()
    assert body["differing"] == [
        {
            "debate_id": str(debate.id),
            "protocol": "s4",
            "rules_version": debate.rules_version,
            "stored": "ACT",
            "replayed": "REFUSE",
        }
    ]
    assert (
        api.post("/api/v1/evaluation/replay/", {"protocol": "chess"}, format="json").status_code
        == 400
    )
