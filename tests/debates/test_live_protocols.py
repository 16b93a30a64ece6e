"""The debate page and the Markdown transcript for the moderated and round-robin protocols: one
column per agent, the rounds as they happened, each step's own content and the decision in the
protocol's own terms."""

from __future__ import annotations

from html import unescape
from unittest import mock

import pytest
from django.urls import reverse

from agents import gateway
from debates import running, selectors, services
from debates.models import Debate
from debates.transcript import render_markdown
from tests.debates.test_views import text_of

pytestmark = pytest.mark.usefixtures("default_agents")

CONTESTED = "Should I learn Python or JavaScript first?"
EVEN = "Is Bitcoin a good investment?"
STOCK = "Should I invest in Tesla (TSLA) now?"
NEVER_AGREE = "Should I buy Bitcoin now?"


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("rita", password="a-long-passphrase")


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


def run(query: str, protocol: str, owner, llm=None, **options) -> Debate:
    debate = services.debate_create(
        query=query, protocol=protocol, created_by=owner, options=options or None, enqueue=False
    )
    if llm is None:
        running.debate_run(debate_id=debate.id)
    else:
        with mock.patch.object(gateway, "acomplete", llm):
            running.debate_run(debate_id=debate.id)
    return Debate.objects.get(id=debate.id)


def page_text(client, debate) -> str:
    return unescape(text_of(client.get(reverse("debates:detail", args=[debate.id]))))


def markdown(client, debate) -> str:
    response = client.get(reverse("debates:export_markdown", args=[debate.id]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_moderated_debate_shows_arguments_evidence_and_the_moderators_evaluations(
    owner_client, owner
):
    debate = run(CONTESTED, "moderated", owner)
    so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)
    assert [[c.participant.role for c in view.columns] for view in so_far.rounds] == [
        ["proponent", "opponent", "moderator"]
    ] * 2
    text = page_text(owner_client, debate)

    assert "Round 1" in text and "Round 2" in text and "Debate Round" not in text
    assert "Argument argues SUPPORT confidence 75 %" in text
    assert "Argument argues OPPOSE confidence 60 %" in text
    assert "Evidence Surveys of people who made this choice report mostly positive" in text
    assert (
        "Moderator's evaluation leans SUPPORT confidence 58 %" in text
        and "Scores: pro quality 0.84, con quality 0.70, consensus not reached" in text
    )
    banner = text.split("Decision: SUPPORT SUPPORT:")[1]
    assert (
        "Weighted strength pro 1.1203, con 0.45 (pro is 2.49x con; a side needs more "
        "than 1.2x)" in banner
    )
    assert "Moderator's confidence by round 58 %, 73 % (stops above 80 %)" in banner
    assert "Rounds 2 of 2 (every round was run)" in banner
    assert "Evidence quality proponent" in banner
    for s4_only in ("Veto", "Max risk", "Agreement n/a", "risk None"):
        assert s4_only not in text


def test_an_uncertain_moderated_debate_says_why_it_went_to_review(owner_client, owner):
    debate = run(EVEN, "moderated", owner)
    assert debate.decision == "UNCERTAIN"
    text = page_text(owner_client, debate)
    assert "Decision: UNCERTAIN" in text
    assert "Review Pending review" in text
    assert "Raised for review uncertain" in text
    assert (
        'class="banner banner-UNCERTAIN"'
        in owner_client.get(reverse("debates:detail", args=[debate.id])).content.decode()
    )


def test_the_extended_debate_has_six_columns_and_the_refiners_synthesis(owner_client, owner):
    debate = run(CONTESTED, "moderated_extended", owner, max_rounds=1)
    so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)
    assert len(so_far.rounds) == 1
    assert [c.participant.role for c in so_far.rounds[0].columns] == [
        "proponent",
        "opponent",
        "advocate",
        "critic",
        "refiner",
        "moderator",
    ]
    refiner = so_far.rounds[0].columns[4].positions[0]
    assert (refiner.label, refiner.shows_decision) == ("Synthesis", False)
    assert [d.label for d in refiner.details][:2] == ["Agreements", "Disagreements"]
    text = page_text(owner_client, debate)
    assert "Synthesis confidence 60 %" in text and "Agreements Every debater" in text
    assert "Rounds 1 of 1" in text


def test_a_round_robin_debate_shows_turns_stance_changes_and_each_rounds_check(owner_client, owner):
    debate = run(STOCK, "round_robin", owner)
    assert debate.decision == "HOLD"
    text = page_text(owner_client, debate)

    assert "Round 1: Initial Analysis" in text and "Round 2" in text and "Debate Round" not in text
    assert "Turn SELL confidence 70 %, risk 55" in text
    assert "Turn Changed position SELL → became HOLD confidence 70 % → 60 %, risk 55 → 55" in text
    assert "Responds to: Sentiment Agent, Fundamental Agent" in text
    assert "Consensus check: 1 BUY, 1 HOLD, 1 SELL (33% agree), not reached." in text
    assert "Consensus check: 3 HOLD (100% agree), reached on HOLD." in text
    assert "Final position HOLD confidence 60 %, risk 55" in text
    banner, baselines = text.split("Decision: HOLD Consensus on HOLD")[1].split(
        "Without the debate"
    )
    # Round 1 was split three ways: a vote of the first answers would have reached no consensus.
    assert "would have decided NO_CONSENSUS" in baselines
    assert "the debate's decision is different from the majority vote" in baselines
    assert "Final stances 3 HOLD" in banner
    assert "Consensus reached in round 2" in banner
    assert "Agreement 100% on HOLD (needs 75%)" in banner
    assert "Turns per agent Valuation Agent 2, Sentiment Agent 2, Fundamental Agent 2" in banner
    assert "Rounds and turns 2 rounds, 6 turns (at least 2 each, at most 5 rounds)" in banner
    assert (
        "Responses 3 of 3 agents readable (Valuation Agent, Sentiment Agent, Fundamental Agent)"
    ) in banner
    assert "ACT" not in banner and "NO_CONSENSUS" not in banner  # only the stances in play


def test_a_round_robin_without_consensus_shows_every_round_and_goes_to_review(owner_client, owner):
    debate = run(NEVER_AGREE, "round_robin", owner)
    assert debate.decision == "NO_CONSENSUS"
    so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)
    assert len(so_far.rounds) == 5
    assert all(view.check.endswith("not reached.") for view in so_far.rounds)
    text = page_text(owner_client, debate)
    assert "Consensus not reached after 5 rounds" in text
    assert "Raised for review no consensus" in text


def test_an_unreadable_turn_is_shown_as_no_stance(owner_client, owner):
    real = gateway.acomplete

    async def garbled_sentiment(*, model, messages, **kwargs):
        if "Your name in this debate: Sentiment Agent" in messages[0]["content"] and messages[-1][
            "content"
        ].startswith("STEP: turn (round 1"):
            return gateway.LLMResponse(model, "no idea, sorry", 10, 5, 0, 1, 1)
        return await real(model=model, messages=messages, **kwargs)

    debate = run(STOCK, "round_robin", owner, llm=garbled_sentiment)
    text = page_text(owner_client, debate)
    assert "Turn ABSTAIN" in text
    assert "The reply could not be parsed: the turn counts as no stance (ABSTAIN)." in text
    assert "fail-safe REFUSE" not in text


def test_auto_says_which_protocol_it_chose_and_why(owner_client, owner):
    debate = run(STOCK, "auto", owner)
    reason = debate.metadata["protocol_choice"]["reason"]
    assert f"Protocol round_robin (auto chose it: {reason})" in page_text(owner_client, debate)
    assert f"- Protocol: round\\_robin (auto chose it: {reason})" in markdown(owner_client, debate)


def test_the_markdown_transcript_follows_each_protocol(owner_client, owner):
    moderated = markdown(owner_client, run(CONTESTED, "moderated", owner))
    assert (
        "### Proponent Agent: argument\n- Position: argues **SUPPORT** (confidence 75 %)\n"
        "- Evidence:\n    - Surveys of people" in moderated
    )
    assert (
        "### Moderator Agent: moderator's evaluation\n- Position: leans **SUPPORT** "
        "(confidence 58 %)\n- Scores: pro quality 0.84, con quality 0.70" in moderated
    )
    assert "- Weighted strength: pro 1.1203, con 0.45 (pro is 2.49x con;" in moderated
    assert "Max risk" not in moderated and "Veto" not in moderated

    round_robin = markdown(owner_client, run(STOCK, "round_robin", owner))
    assert "### Valuation Agent: turn, changed position SELL → HOLD" in round_robin
    assert (
        "- Final position, Valuation Agent: **HOLD** (confidence 60 %, risk 55)\n\n"
        "### Sentiment Agent" in round_robin
    )
    assert "Consensus check: 3 HOLD (100% agree), reached on HOLD." in round_robin
    assert "- Final stances: 3 HOLD\n- Consensus: reached in round 2" in round_robin


def test_every_protocols_page_is_read_in_the_same_number_of_queries(
    owner, default_agents, django_assert_num_queries
):
    debates = [
        run(CONTESTED, "moderated", owner),
        run(STOCK, "round_robin", owner),
        run(CONTESTED, "moderated_extended", owner, max_rounds=2),
    ]
    owner.has_perm("debates.view_debate")  # read once per request, cached on the user
    for debate in debates:
        with django_assert_num_queries(7):
            so_far = selectors.debate_so_far(debate_id=debate.id, user=owner)
            render_markdown(so_far.debate)
