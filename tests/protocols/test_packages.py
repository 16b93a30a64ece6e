"""What every protocol package provides behind `DebateProtocol`: typed replies, offline
responders for its own steps, prompt lines its responder reads back as written. No database."""

from __future__ import annotations

import json

import pytest

from agents import responders
from agents.offline import reply_to
from protocols import PROTOCOLS, DebateProtocol
from protocols.base import ChallengeReply, StatementReply
from protocols.moderated import formats as moderated_lines
from protocols.prompting import LineFormat
from protocols.round_robin import formats as round_robin_lines
from protocols.s4 import formats as s4_lines
from tests.agents.test_offline_protocols import offline, shipped

TESLA = "Should I invest in Tesla (TSLA)?"
CONCRETE = [name for name, cls in PROTOCOLS.items() if not cls.is_selector]


def test_the_registry_lists_protocol_classes_and_one_selector():
    assert all(issubclass(cls, DebateProtocol) for cls in PROTOCOLS.values())
    assert [n for n, cls in PROTOCOLS.items() if cls.is_selector] == ["auto"]
    assert {"s4", "moderated", "moderated_extended", "round_robin"} <= set(CONCRETE)


@pytest.mark.parametrize("protocol", CONCRETE)
def test_each_protocol_answers_its_own_steps_offline_with_typed_replies(protocol):
    cls = PROTOCOLS[protocol]
    t = offline(protocol, TESLA)
    parser = cls(query=TESLA, participants=shipped(protocol))

    assert {c.step for s in t.steps for c in s.calls} <= set(cls.offline_responders)
    for key, request in t.requests.items():
        reply = parser.parse(request, t.replies[key])
        assert isinstance(reply, ChallengeReply if request.step == "challenge" else StatementReply)
        assert reply.parse_failed is False
        assert reply.as_json() == t.results[key]
        assert parser.load(request, reply.as_json()) == reply  # what a re-run resumes from


def test_a_stored_s4_position_keeps_its_shape():
    """The stored result of an analysis has exactly the keys it always had (no `details`)."""
    reply = StatementReply("ACT", 80.0, 20.0, "fine", False, notes=("n",))
    assert reply.as_json() == {
        "decision": "ACT",
        "confidence": 80.0,
        "risk": 20.0,
        "reasoning": "fine",
        "parse_failed": False,
        "error": "",
        "notes": ["n"],
    }


def test_a_step_belongs_to_one_responder():
    with pytest.raises(ValueError, match="already has a responder"):
        responders.register({"analysis": lambda prompt: "{}"})


def test_a_step_no_protocol_knows_is_answered_with_caution():
    reply = json.loads(reply_to([{"role": "user", "content": "STEP: dance (round 1)"}]))
    assert reply["decision"] == "WARN" and "does not know this step" in reply["reasoning"]


@pytest.mark.parametrize(
    ("line", "values", "read"),
    [
        (
            s4_lines.OWN_POSITION,
            {"decision": "VETO", "confidence": 85.0, "risk": 90.0},
            {"decision": "VETO", "confidence": "85", "risk": "90"},
        ),
        (
            s4_lines.TARGET_POSITION,
            {
                "name": "Safety Agent",
                "role": "safety",
                "decision": "REFUSE",
                "confidence": 70.5,
                "risk": 80.0,
            },
            {
                "name": "Safety Agent",
                "role": "safety",
                "decision": "REFUSE",
                "confidence": "70.5",
                "risk": "80",
            },
        ),
        (
            s4_lines.RECEIVED_CHALLENGE,
            {
                "name": "Utility Agent",
                "agreement": "agrees with your conclusion",
                "suggestion": "no decision suggested",
                "argument": "I (mostly) agree: {fine}.",
            },
            {
                "name": "Utility Agent",
                "agreement": "agrees with your conclusion",
                "suggestion": "no decision suggested",
                "argument": "I (mostly) agree: {fine}.",
            },
        ),
        (
            round_robin_lines.OWN_POSITION,
            {"round": 2, "decision": "HOLD", "confidence": 60.0, "risk": 45.0},
            {"round": "2", "decision": "HOLD", "confidence": "60", "risk": "45"},
        ),
        (
            round_robin_lines.PEER_POSITION,
            {
                "name": "Valuation Agent",
                "role": "valuation",
                "round": 1,
                "decision": "SELL",
                "confidence": 85.0,
                "risk": 80.0,
            },
            {
                "name": "Valuation Agent",
                "role": "valuation",
                "round": "1",
                "decision": "SELL",
                "confidence": "85",
                "risk": "80",
            },
        ),
        (
            moderated_lines.STEP_LINE,
            {"step": "moderation", "round_number": 3, "max_rounds": 3, "brief": "Go."},
            {"step": "moderation", "round_number": "3", "max_rounds": "3", "brief": "Go."},
        ),
        (
            moderated_lines.ARGUMENT,
            {
                "round_number": 1,
                "name": "Critic",
                "role": "critic",
                "side": "NEUTRAL",
                "confidence": "0.50",
                "evidence": 1,
                "plural": "",
                "text": "Two\nlines.",
            },
            {
                "round_number": "1",
                "name": "Critic",
                "role": "critic",
                "side": "NEUTRAL",
                "confidence": "0.50",
                "evidence": "1",
                "plural": "",
                "text": "Two\nlines.",
            },
        ),
    ],
    ids=["s4-own", "s4-target", "s4-received", "rr-own", "rr-peer", "mod-step", "mod-argument"],
)
def test_a_prompt_line_is_read_back_as_it_was_written(line: LineFormat, values, read):
    written = line.format(**values)
    prompt = f"Some text before.\n{written}\nAnd after."

    assert line.search(prompt) == read
    assert line.findall(prompt + "\n" + written) == [read, read]


def test_a_line_is_not_read_from_the_middle_of_another():
    assert (
        s4_lines.OWN_POSITION.search("Quoted: Your round 1 position: ACT (confidence 1, risk 2).")
        is None
    )


def test_the_round_robin_reply_format_offers_its_stances():
    t = offline("round_robin", TESLA)
    user = "\n".join(
        m["content"] for m in t.requests["r1:valuation"].messages if m["role"] == "user"
    )
    assert round_robin_lines.read_stance_choices(user) == ["BUY", "HOLD", "SELL"]
