"""A protocol plugs in: a fifth one, kept under tests/ and put in the registry here, is created,
run with the offline model, charted on the debate page and evaluated (baselines and replay)
without any file of the service knowing its name."""

from __future__ import annotations

import json
import subprocess
from html import unescape

import pytest
from django.urls import reverse

import protocols
from agents import responders
from debates import running, selectors, services
from debates.charts import debate_charts
from debates.models import Debate
from evaluation.replay import replay_rules
from protocols import evaluation
from tests.conftest import ROOT
from tests.debates.test_views import text_of
from tests.protocols.fifth import ShowOfHandsProtocol

FIFTH = ShowOfHandsProtocol.name
PACKAGE = ROOT / "tests" / "protocols" / "fifth"
QUESTION = "Should the office move to a four-day week?"
AGENTS = ["utility", "accuracy", "safety"]


@pytest.fixture
def fifth(monkeypatch):
    """The fifth protocol in the registry and its responder taught to the offline model, as
    Django's start-up does for every registered protocol; both undone after the test."""
    monkeypatch.setitem(protocols.PROTOCOLS, FIFTH, ShowOfHandsProtocol)
    monkeypatch.setattr(responders, "_RESPONDERS", dict(responders._RESPONDERS))
    protocols.register_offline_responders()
    return ShowOfHandsProtocol


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("rita", password="a-long-passphrase")


def test_no_file_of_the_service_knows_the_fifth_protocols_name():
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    knowing = [
        path
        for path in tracked.split("\0")
        if path
        and not (ROOT / path).is_relative_to(PACKAGE)
        and (ROOT / path).is_file()
        and FIFTH.encode() in (ROOT / path).read_bytes()
    ]
    assert tracked.count("\0") > 100  # the whole repository was looked at
    assert knowing == []


def test_a_fifth_protocol_is_created_run_charted_and_evaluated(
    fifth, default_agents, owner, client
):
    debate = services.debate_create(
        query=QUESTION, protocol=FIFTH, agents=AGENTS, created_by=owner, enqueue=False
    )
    running.debate_run(debate_id=debate.id)
    debate = Debate.objects.get(id=debate.id)

    # run with the offline model: the safety agent says NO, the two others YES
    assert debate.status == Debate.Status.COMPLETED
    assert (debate.decision, debate.consensus_type) == ("YES", "majority")
    assert {v.participant.slug: v.decision for v in debate.votes.all()} == {
        "utility": "YES",
        "accuracy": "YES",
        "safety": "NO",
    }
    assert debate.metadata["hands"] == {"YES": 2, "NO": 1}

    # charted: every protocol's positions chart, then its own
    so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)
    charts = {c.id: c for c in debate_charts(so_far)}
    assert list(charts) == ["positions", "hands"]
    assert charts["positions"].labels == ["Independent answer", "Final vote"]
    assert charts["hands"].series[0].values == [2, 1]
    client.force_login(owner)
    page = client.get(reverse("debates:detail", args=[debate.id]))
    html = page.content.decode()
    hands = html.split('id="chart-hands-data" type="application/json">')[1].split("</script>")[0]
    assert json.loads(unescape(hands))["title"] == "Hands raised"
    assert "Hands: YES 2 → NO 1." in unescape(text_of(page))  # the chart's text alternative

    # evaluated: its baselines were stored when it finished, by its own rules
    assert debate.rules_version == evaluation.rules_version(FIFTH) != ""
    assert (debate.majority_decision, debate.outcome_change) == ("YES", evaluation.SAME)
    assert debate.baselines["single_agent"] == {"accuracy": "YES", "safety": "NO", "utility": "YES"}
    answers = [evaluation.Answer(a, "NO", 60) for a in ("a", "b")]
    assert evaluation.majority_decision(FIFTH, answers) == "NO"

    # and replayed: its decision is a function of its final votes
    assert FIFTH in evaluation.replayable_protocols()
    report = replay_rules(protocol=FIFTH)
    assert (report.checked, report.identical, report.differing) == (1, 1, ())
