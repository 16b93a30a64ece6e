"""The round-robin protocol (docs/concepts/round-robin.md) driven by a scripted LLM: strict turns,
what each agent sees, the consensus check, minimum turns, max rounds, stances, review. Pure
Python."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import pytest

from protocols.base import CallRequest, ParticipantSpec, ProtocolError
from protocols.round_robin import RoundRobinProtocol
from protocols.round_robin import rules as round_robin_rules
from tests.protocols.s4.test_protocol import Transcript, run_debate

INVESTMENT = "Should I invest in Tesla (TSLA) considering all factors?"
GENERAL = "Can you give me advice on learning Python?"


def agent(slug: str, role: str | None = None) -> ParticipantSpec:
    return ParticipantSpec(
        slug=slug,
        name=f"{slug.title()} Agent",
        role=role or slug,
        system_prompt=f"You are the {slug} specialist.",
        model="openai/scripted",
    )


VALUATION, SENTIMENT, FUNDAMENTAL = agent("valuation"), agent("sentiment"), agent("fundamental")
THREE = [VALUATION, SENTIMENT, FUNDAMENTAL]


def turn(stance: str, confidence: float = 70, risk: float = 40, reasoning: str = "") -> str:
    return json.dumps(
        {
            "stance": stance,
            "confidence": confidence,
            "risk": risk,
            "reasoning": reasoning or f"I say {stance}.",
        }
    )


@dataclass
class ScriptedTurns:
    """`stances[slug]` lists the stance of each of that agent's turns (the last one repeats)."""

    stances: dict[str, list[str]]
    replies: dict[str, str] = field(default_factory=dict)  # by call key, wins over stances
    calls: list[CallRequest] = field(default_factory=list)

    def __call__(self, call: CallRequest) -> str:
        self.calls.append(call)
        if call.key in self.replies:
            return self.replies[call.key]
        script = self.stances[call.participant]
        stance = script[min(call.round_number, len(script)) - 1]
        return turn(
            stance,
            60 + call.round_number,
            reasoning=f"TURN-{call.participant.upper()}-R{call.round_number}",
        )


def debate(llm, participants=THREE, query=INVESTMENT, **options) -> Transcript:
    protocol = RoundRobinProtocol(query=query, participants=participants, options=options)
    return run_debate(protocol, llm)


def prompt(t: Transcript, key: str) -> str:
    return t.user_prompt(key)


# --- strict turns -------------------------------------------------------------------------------


def test_every_step_is_one_call_in_speaking_order_round_after_round():
    llm = ScriptedTurns(
        {"valuation": ["SELL", "HOLD"], "sentiment": ["BUY", "HOLD"], "fundamental": ["HOLD"]}
    )
    t = debate(llm)

    assert all(len(step.calls) == 1 for step in t.steps)
    assert [c.key for c in llm.calls] == [
        "r1:valuation",
        "r1:sentiment",
        "r1:fundamental",
        "r2:valuation",
        "r2:sentiment",
        "r2:fundamental",
    ]
    assert [(s.round_number, s.round_name) for s in t.steps][::3] == [
        (1, "Initial Analysis"),
        (2, "Debate Round 2"),
    ]
    # Only the last turn of a round closes it.
    assert [s.closes_round for s in t.steps] == [False, False, True] * 2


def test_each_agent_sees_the_query_its_own_latest_position_and_its_peers_latest():
    llm = ScriptedTurns(
        {"valuation": ["SELL", "HOLD"], "sentiment": ["BUY", "HOLD"], "fundamental": ["HOLD"]}
    )
    t = debate(llm)

    first = prompt(t, "r1:valuation")
    assert f"<user_query>\n{INVESTMENT}\n</user_query>" in first
    assert "none yet; you speak first" in first
    assert "Agent (role:" not in first

    second = prompt(t, "r1:sentiment")
    assert "- Valuation Agent (role: valuation), round 1: SELL (confidence 61, risk 40)." in second
    assert "TURN-VALUATION-R1" in second
    assert "Your latest position" not in second

    # Round 2, first speaker: its own round-1 position, its peers' round-1 positions.
    r2 = prompt(t, "r2:valuation")
    assert "Your latest position (round 1): SELL (confidence 61, risk 40)." in r2
    assert "- Sentiment Agent (role: sentiment), round 1: BUY" in r2
    assert "- Fundamental Agent (role: fundamental), round 1: HOLD" in r2
    assert "After round 1: no consensus (1 BUY, 1 HOLD, 1 SELL)" in r2

    # Round 2, last speaker: the others' round-2 turns have replaced their round-1 turns.
    last = prompt(t, "r2:fundamental")
    assert "- Valuation Agent (role: valuation), round 2: HOLD" in last
    assert "- Sentiment Agent (role: sentiment), round 2: HOLD" in last
    assert "TURN-VALUATION-R1" not in last and "TURN-VALUATION-R2" in last


def test_each_turn_revises_the_agents_previous_turn():
    t = debate(
        ScriptedTurns(
            {"valuation": ["SELL", "HOLD"], "sentiment": ["HOLD"], "fundamental": ["HOLD"]}
        )
    )
    assert t.requests["r1:valuation"].previous_key is None
    assert t.requests["r2:valuation"].previous_key == "r1:valuation"
    assert t.outcome.decision.metadata["changed_position"] == ["Valuation Agent"]


# --- consensus, minimum turns, max rounds -----------------------------------------------------


def test_consensus_in_the_first_round_still_gives_every_agent_a_second_turn():
    t = debate(ScriptedTurns({"valuation": ["BUY"], "sentiment": ["BUY"], "fundamental": ["BUY"]}))
    md = t.outcome.decision.metadata

    assert t.outcome.decision.decision == "BUY"
    assert md["consensus_type"] == "unanimous"
    assert md["first_consensus_round"] == 1 and md["consensus_round"] == 2
    assert md["total_rounds"] == 2 and md["total_turns"] == 6
    assert md["agent_participation"] == {
        "Valuation Agent": 2,
        "Sentiment Agent": 2,
        "Fundamental Agent": 2,
    }
    assert "spoken 2 times" in t.outcome.decision.reasoning


def test_the_debate_ends_at_the_first_round_with_consensus_after_the_minimum():
    t = debate(
        ScriptedTurns(
            {
                "valuation": ["SELL", "SELL", "HOLD"],
                "sentiment": ["BUY", "BUY", "HOLD"],
                "fundamental": ["HOLD"],
            }
        )
    )
    md = t.outcome.decision.metadata
    assert md["total_rounds"] == 3
    assert [c["reached"] for c in md["consensus_by_round"]] == [False, False, True]
    assert t.outcome.decision.decision == "HOLD"
    assert md["review_reasons"] == []


def test_without_consensus_the_debate_stops_at_max_rounds_and_goes_to_review():
    t = debate(
        ScriptedTurns({"valuation": ["SELL"], "sentiment": ["BUY"], "fundamental": ["SELL"]})
    )
    d = t.outcome.decision

    assert len(t.requests) == 15  # 5 rounds x 3 agents
    assert d.decision == "NO_CONSENSUS"
    assert d.metadata["consensus_type"] == "no_consensus"
    assert d.metadata["review_reasons"] == ["no_consensus"]
    assert d.metadata["stop_reason"] == "max_rounds"
    assert d.metadata["agreement_share"] == 0.6667
    assert "1 BUY, 2 SELL" in d.reasoning


def test_max_rounds_and_min_turns_are_options():
    no_consensus = {"valuation": ["SELL"], "sentiment": ["BUY"], "fundamental": ["HOLD"]}
    assert len(debate(ScriptedTurns(no_consensus), max_rounds=3).requests) == 9
    agreed = {"valuation": ["BUY"], "sentiment": ["BUY"], "fundamental": ["BUY"]}
    assert len(debate(ScriptedTurns(agreed), min_turns_per_agent=3).requests) == 9
    assert len(debate(ScriptedTurns(agreed), min_turns_per_agent=1).requests) == 3


@pytest.mark.parametrize(("threshold", "expected"), [(0.75, "BUY"), (0.8, "NO_CONSENSUS")])
def test_three_of_four_is_exactly_the_default_threshold(threshold, expected):
    four = [*THREE, agent("technical")]
    stances = {
        "valuation": ["BUY"],
        "sentiment": ["BUY"],
        "fundamental": ["BUY"],
        "technical": ["SELL"],
    }
    t = debate(ScriptedTurns(stances), participants=four, consensus_threshold=threshold)
    assert t.outcome.decision.decision == expected
    assert t.outcome.decision.metadata["agreement_share"] == 0.75


def test_final_votes_are_each_agents_last_turn():
    t = debate(
        ScriptedTurns(
            {"valuation": ["SELL", "HOLD"], "sentiment": ["HOLD"], "fundamental": ["HOLD"]}
        )
    )
    votes = {v.participant: (v.decision, v.statement_key) for v in t.outcome.votes}
    assert votes == {
        "valuation": ("HOLD", "r2:valuation"),
        "sentiment": ("HOLD", "r2:sentiment"),
        "fundamental": ("HOLD", "r2:fundamental"),
    }


# --- stances: read by the parser from the reply, from the right set ----------------------------


def test_an_investment_question_is_debated_in_buy_hold_sell():
    t = debate(ScriptedTurns({"valuation": ["BUY"], "sentiment": ["BUY"], "fundamental": ["BUY"]}))
    assert '"stance": "BUY" | "HOLD" | "SELL"' in prompt(t, "r1:valuation")
    assert t.outcome.decision.metadata["stance_set"] == "investment"


def test_other_questions_are_debated_in_the_act_warn_refuse_set():
    llm = ScriptedTurns({"valuation": ["ACT"], "sentiment": ["ACT"], "fundamental": ["WARN"]})
    t = debate(llm, query=GENERAL)
    assert '"stance": "ACT" | "WARN" | "REFUSE"' in prompt(t, "r1:valuation")
    assert t.outcome.decision.decision == "NO_CONSENSUS"  # 2 of 3 is below 75 %
    assert t.outcome.decision.metadata["stance_set"] == "decision"


def test_the_stances_option_overrides_the_detection():
    t = debate(
        ScriptedTurns({"valuation": ["HOLD"], "sentiment": ["HOLD"], "fundamental": ["HOLD"]}),
        query=GENERAL,
        stances="investment",
    )
    assert t.outcome.decision.decision == "HOLD"


def test_a_stance_outside_the_set_or_only_in_prose_is_not_guessed():
    llm = ScriptedTurns(
        {"valuation": ["BUY"], "sentiment": ["BUY"], "fundamental": ["BUY"]},
        replies={
            "r1:fundamental": json.dumps(
                {"stance": "ACT", "confidence": 80, "risk": 10, "reasoning": "buy"}
            ),
            "r2:fundamental": "I would definitely BUY this stock, confidence 90.",
        },
    )
    t = debate(llm, max_rounds=2)
    assert t.results["r1:fundamental"]["decision"] == round_robin_rules.ABSTAIN
    assert t.results["r2:fundamental"]["parse_failed"] is True
    # 2 BUY of 3 agents: an unreadable turn never counts toward consensus.
    d = t.outcome.decision
    assert d.decision == "NO_CONSENSUS"
    assert d.metadata["review_reasons"] == ["no_consensus", "parse_failure"]
    assert "Unreadable final turn from: Fundamental Agent" in d.reasoning
    # The summary: three consulted, two answered readably.
    assert d.metadata["agent_responses_summary"] == {
        "total_agents_consulted": 3,
        "successful_responses": 2,
        "agents_used": ["Valuation Agent", "Sentiment Agent", "Fundamental Agent"],
    }


# --- the metadata (docs/concepts/round-robin.md#what-the-decision-records) ----------------------


def test_the_metadata_has_the_responses_summary_and_each_agents_debate_turns():
    t = debate(
        ScriptedTurns(
            {
                "valuation": ["SELL", "SELL", "HOLD"],
                "sentiment": ["BUY", "BUY", "HOLD"],
                "fundamental": ["HOLD"],
            }
        )
    )
    md = t.outcome.decision.metadata
    names = ["Valuation Agent", "Sentiment Agent", "Fundamental Agent"]
    assert md["agent_responses_summary"] == {
        "total_agents_consulted": 3,
        "successful_responses": 3,
        "agents_used": names,
    }
    assert [(p["agent"], p["debate_turns"]) for p in md["final_positions"]] == [
        (n, 3) for n in names
    ]
    assert md["debate_metadata"] == {
        "total_rounds": 3,
        "total_turns": 9,
        "agent_participation": dict.fromkeys(names, 3),
    }


def test_a_parsed_turn_keeps_its_details_and_caps_confidence_on_complex_questions():
    llm = ScriptedTurns(
        {"valuation": ["BUY"], "sentiment": ["BUY"], "fundamental": ["BUY"]},
        replies={
            "r1:valuation": json.dumps(
                {
                    "stance": "**buy**",
                    "confidence": 0.99,
                    "risk": "30%",
                    "reasoning": "cheap",
                    "responds_to": ["Sentiment Agent"],
                }
            )
        },
    )
    protocol = RoundRobinProtocol(query=INVESTMENT, participants=THREE, complex_query=True)
    t = run_debate(protocol, llm)
    r = t.results["r1:valuation"]
    assert (r["decision"], r["confidence"], r["risk"]) == ("BUY", 95.0, 30.0)
    assert r["details"]["responds_to"] == ["Sentiment Agent"]
    assert any("clamped to 95" in n for n in r["notes"])


# --- set-up errors ------------------------------------------------------------------------------


def test_one_agent_cannot_debate_round_robin():
    with pytest.raises(ProtocolError, match="2 to 6 agents"):
        RoundRobinProtocol(query=INVESTMENT, participants=[VALUATION])


def test_min_turns_above_max_rounds_is_rejected():
    with pytest.raises(ProtocolError, match=re.escape("cannot exceed max_rounds (2)")):
        RoundRobinProtocol(
            query=INVESTMENT,
            participants=THREE,
            options={"max_rounds": 2, "min_turns_per_agent": 3},
        )
