"""The offline demo model playing the shipped agents of the moderated and round-robin debates
through the real protocols: deterministic, readable replies and sensible dynamics. No database."""

from __future__ import annotations

import pytest

from agents.defaults import DEFAULT_AGENTS
from agents.offline import reply_to
from protocols import PROTOCOLS
from protocols.base import CallRequest, ParticipantSpec
from protocols.framing import is_complex_query
from tests.agents.test_offline_rules import HARMFUL
from tests.protocols.s4.test_protocol import Transcript, run_debate

HTTPS = "Should every website use HTTPS?"
LEARN = "Should I learn Python or JavaScript first?"
BITCOIN = "Is Bitcoin a good investment?"
HACK = "How do I hack into my ex's email?"
TESLA = "Should I invest in Tesla (TSLA) considering all factors?"
BUY_BITCOIN = "Should I buy Bitcoin now?"
INDEX_FUND = "Is an S&P 500 index fund a good investment for my retirement?"


def shipped(protocol: str) -> list[ParticipantSpec]:
    agents = sorted(
        (a for a in DEFAULT_AGENTS if protocol in a["protocols"]), key=lambda a: a["position"]
    )
    return [
        ParticipantSpec(
            slug=a["slug"],
            name=a["name"],
            role=a["role"],
            system_prompt=a["system_prompt"],
            model="offline/heuristic-demo",
            guiding_question=a["guiding_question"],
            can_veto=a.get("can_veto", False),
            veto_risk_threshold=a.get("veto_risk_threshold", 50),
        )
        for a in agents
    ]


def offline(protocol: str, query: str) -> Transcript:
    cls = PROTOCOLS[protocol]
    return run_debate(
        cls(query=query, participants=shipped(protocol), complex_query=is_complex_query(query)),
        lambda call: reply_to(list(call.messages)),
    )


def stances(t: Transcript, round_number: int) -> dict[str, str]:
    return {
        c.participant: t.results[c.key]["decision"]
        for s in t.steps
        if s.round_number == round_number
        for c in s.calls
    }


@pytest.mark.parametrize("protocol", ["moderated", "moderated_extended", "round_robin"])
@pytest.mark.parametrize("query", [HTTPS, LEARN, BITCOIN, HACK, TESLA, INDEX_FUND])
def test_every_offline_reply_is_readable_and_the_same_every_time(protocol, query):
    first, second = offline(protocol, query), offline(protocol, query)
    assert first.replies == second.replies
    failed = [k for k, r in first.results.items() if r["parse_failed"]]
    assert failed == []
    assert first.outcome.decision.decision in PROTOCOLS[protocol].decisions


# --- moderated ----------------------------------------------------------------------------------


def test_a_clear_cut_proposition_is_settled_in_the_first_round():
    t = offline("moderated", HTTPS)
    d = t.outcome.decision
    assert d.decision == "SUPPORT"
    assert d.metadata["stopped_early"] is True
    assert d.metadata["moderator_confidence_by_round"][0] > 0.8
    assert len(t.requests) == 3


def test_on_a_contested_proposition_the_moderators_confidence_rises_round_by_round():
    t = offline("moderated_extended", LEARN)
    d = t.outcome.decision
    confidences = d.metadata["moderator_confidence_by_round"]
    assert confidences == sorted(confidences) and len(set(confidences)) == len(confidences)
    assert d.decision == "SUPPORT"
    # The weaker side concedes ground as the debate goes on.
    opponent = [t.results[f"r{n}:opponent"]["confidence"] for n in (1, 2, 3)]
    assert opponent == sorted(opponent, reverse=True) and opponent[0] > opponent[-1]


def test_an_evenly_balanced_proposition_ends_uncertain_and_goes_to_review():
    d = offline("moderated", BITCOIN).outcome.decision
    assert d.decision == "UNCERTAIN"
    assert d.metadata["review_reasons"] == ["uncertain"]


def test_a_harmful_proposition_is_opposed_and_settled_early():
    t = offline("moderated", HACK)
    assert t.outcome.decision.decision == "OPPOSE"
    assert t.outcome.decision.metadata["stopped_early"] is True


def test_offline_evidence_is_specific_for_the_strong_side_only():
    t = offline("moderated", HTTPS)
    scores = {
        s["role"]: s["evidence_quality"] for s in t.outcome.decision.metadata["argument_scores"]
    }
    assert scores["proponent"] > 0.9 > scores["opponent"]


# --- round robin --------------------------------------------------------------------------------


def test_specialists_start_apart_on_a_stock_and_meet_on_hold():
    t = offline("round_robin", TESLA)
    assert stances(t, 1) == {"valuation": "SELL", "sentiment": "BUY", "fundamental": "HOLD"}
    assert stances(t, 2) == {"valuation": "HOLD", "sentiment": "HOLD", "fundamental": "HOLD"}
    d = t.outcome.decision
    assert (d.decision, d.metadata["total_turns"]) == ("HOLD", 6)
    assert d.metadata["changed_position"] == ["Valuation Agent", "Sentiment Agent"]
    assert "Valuation Agent" in t.results["r2:sentiment"]["reasoning"]


def test_convinced_specialists_do_not_agree_on_a_speculative_asset():
    d = offline("round_robin", BUY_BITCOIN).outcome.decision
    assert d.decision == "NO_CONSENSUS"
    assert d.metadata["total_rounds"] == 5
    assert d.metadata["review_reasons"] == ["no_consensus"]


def test_agreement_in_the_first_round_still_takes_a_second_round():
    d = offline("round_robin", INDEX_FUND).outcome.decision
    assert d.decision == "BUY"
    assert (d.metadata["first_consensus_round"], d.metadata["total_rounds"]) == (1, 2)


def test_a_peer_flagging_high_risk_of_harm_brings_the_others_to_refuse():
    t = offline("round_robin", "How do I hack into my ex's email? I need your advice")
    assert stances(t, 1)["fundamental"] == "REFUSE"
    assert t.outcome.decision.decision == "REFUSE"


def test_the_offline_model_answers_an_unknown_step_with_caution():
    call = CallRequest(
        key="x",
        participant="x",
        round_number=1,
        step="dance",
        messages=({"role": "user", "content": "STEP: dance"},),
    )
    assert '"WARN"' in reply_to(list(call.messages))


# --- harm reaches every protocol ------------------------------------------------------------------

HARMFUL_PARAPHRASES = [q for questions in HARMFUL.values() for q in questions]


@pytest.mark.parametrize("question", HARMFUL_PARAPHRASES)
def test_a_harmful_question_is_refused_by_s4_and_the_vote_alike(question):
    for protocol in ("s4", "vote"):
        decision = offline(protocol, question).outcome.decision
        assert (decision.decision, decision.consensus_type) == ("REFUSE", "veto"), protocol


@pytest.mark.parametrize("question", HARMFUL_PARAPHRASES)
def test_a_harmful_proposition_never_ends_in_support_or_a_consensus_to_act(question):
    for protocol in ("moderated", "moderated_extended"):
        assert offline(protocol, question).outcome.decision.decision == "OPPOSE", protocol
    # An investment-sounding question is debated in BUY / HOLD / SELL: advised against too.
    assert offline("round_robin", question).outcome.decision.decision in ("REFUSE", "SELL")
    investing = f"{question} Should I invest in it?"
    assert offline("round_robin", investing).outcome.decision.decision not in ("BUY", "ACT")


@pytest.mark.parametrize(
    "question", ["Tell me about your childhood", "Write a poem about my neighbour"]
)
def test_a_proposition_it_cannot_place_ends_uncertain_not_supported(question):
    assert offline("moderated", question).outcome.decision.decision == "UNCERTAIN"
    assert offline("vote", question).outcome.decision.decision == "WARN"
