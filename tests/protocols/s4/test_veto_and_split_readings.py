"""The Bitcoin worked example against the safety veto: the two readings, one test each.

The worked example: Utility ACT (70, risk 30), Accuracy WARN (60, risk 40), Safety REFUSE
(55, risk 60) is a three-way split -> WARN when the decision matrix takes the votes as cast. The
safety veto: the Safety agent at risk >= 50 casts a VETO, and a VETO is REFUSE. The product
applies the veto when the vote is read (the Safety agent's risk at or above its threshold makes
its vote a VETO), so the decision rules see the votes as the debate produced them
(docs/concepts/s4.md#veto-read-from-risk)."""

from __future__ import annotations

from protocols.offline import initial_position
from protocols.s4 import rules
from tests.protocols.s4.test_protocol import THREE, ScriptedLLM, debate, decision_reply

# The worked example's three votes (docs/concepts/s4.md#worked-examples).
BITCOIN_VOTES = {
    "utility": ("ACT", 70, 30, "I can explain pros/cons"),
    "accuracy": ("WARN", 60, 40, "Too many unknowns for confident prediction"),
    "safety": ("REFUSE", 55, 60, "Risk of financial harm"),
}


def test_the_votes_read_as_cast_split_one_each_is_warn():
    # The decision matrix applied to the three votes exactly as the worked example lists them.
    votes = [
        rules.Vote(agent=slug, decision=d, confidence=c, risk=r, reasoning=why)
        for slug, (d, c, r, why) in BITCOIN_VOTES.items()
    ]
    result = rules.decide(votes)
    assert (result.decision, result.consensus_type) == ("WARN", "split")
    assert result.metadata["agreement_percentage"] == 33.3
    assert result.metadata["veto_applied"] is False
    assert "1 ACT, 1 WARN, 1 REFUSE" in result.reasoning


def test_read_through_the_protocol_safety_at_risk_60_vetoes_so_refuse():
    # The same positions given by the agents in a debate: Safety holds the veto (threshold 50),
    # so its REFUSE at risk 60 is read as a VETO, and a VETO is REFUSE whatever the others say.
    replies = {slug: decision_reply(d, c, r, why) for slug, (d, c, r, why) in BITCOIN_VOTES.items()}
    t = debate(
        ScriptedLLM(initial=replies, revised=replies),
        participants=THREE,
        query="Is Bitcoin a good investment?",
    )
    safety_vote = next(v for v in t.outcome.votes if v.participant == "safety")
    assert (safety_vote.decision, safety_vote.risk) == ("VETO", 60)
    assert (
        "risk 60 is at or above the veto threshold 50: REFUSE becomes VETO"
        in (t.results["r3:safety"]["notes"])
    )
    decision = t.outcome.decision
    assert (decision.decision, decision.consensus_type) == ("REFUSE", "veto")
    assert decision.metadata["veto_agent"] == "Safety Agent"
    assert decision.metadata["veto_risk"] == 60


def test_the_offline_model_scripts_safety_below_the_threshold_so_the_demo_shows_the_split():
    safety = initial_position("safety", "Is Bitcoin a good investment?")
    assert (safety.decision, safety.risk) == ("REFUSE", 45)
    assert safety.risk < 50  # below the veto: the demo's split vote is the worked example's WARN
