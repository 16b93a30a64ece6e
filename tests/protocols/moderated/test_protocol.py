"""The moderated protocols (docs/concepts/moderated.md) driven by a scripted LLM: who speaks when,
what each role sees, early stop on the moderator's confidence, max rounds, the decision and review.
Pure."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from protocols.base import CallRequest, ParticipantSpec, ProtocolError
from protocols.moderated import ModeratedExtendedProtocol, ModeratedProtocol
from tests.protocols.s4.test_protocol import Transcript, run_debate

PROPOSITION = "Our team should adopt code review for every change."
EVIDENCE = [
    "A 2019 survey of 500 teams found 30% fewer defects.",
    "The published post-mortem lists four incidents a review would have caught.",
]


def agent(role: str) -> ParticipantSpec:
    return ParticipantSpec(
        slug=role,
        name=f"{role.title()} Agent",
        role=role,
        system_prompt=f"You are the {role}.",
        model="openai/scripted",
    )


THREE = [agent(r) for r in ("proponent", "opponent", "moderator")]
SIX = [agent(r) for r in ("proponent", "opponent", "advocate", "critic", "refiner", "moderator")]


def argument(confidence: float, text: str, evidence=EVIDENCE, side: str | None = None) -> str:
    data = {"content": text, "confidence": confidence, "supporting_evidence": evidence}
    if side:
        data["side"] = side
    return json.dumps(data)


def moderation(confidence: float, pro=0.8, con=0.6, leaning="SUPPORT", points=None) -> str:
    return json.dumps(
        {
            "pro_quality": pro,
            "con_quality": con,
            "consensus_reached": confidence > 0.8,
            "leaning": leaning,
            "open_points": points or [f"OPEN-POINT-AT-{confidence}"],
            "confidence": confidence,
            "summary": f"SUMMARY-{confidence}",
        }
    )


@dataclass
class ScriptedModerated:
    """Arguments name their author and round; the moderator's confidence per round is scripted
    (the last value repeats); `replies` by call key override everything."""

    moderator_confidence: list[float] = field(default_factory=lambda: [0.5])
    confidence: dict[str, float] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)
    calls: list[CallRequest] = field(default_factory=list)

    def __call__(self, call: CallRequest) -> str:
        self.calls.append(call)
        if call.key in self.replies:
            return self.replies[call.key]
        tag = f"ARG-{call.participant.upper()}-R{call.round_number}"
        if call.step == "argument":
            side = {"advocate": "SUPPORT", "critic": "OPPOSE"}.get(call.participant)
            return argument(self.confidence.get(call.participant, 0.7), tag, side=side)
        if call.step == "synthesis":
            return json.dumps(
                {
                    "synthesis": f"SYNTHESIS-R{call.round_number}",
                    "agreements": ["both value quality"],
                    "confidence": 0.6,
                }
            )
        if call.step == "moderation":
            script = self.moderator_confidence
            return moderation(script[min(call.round_number, len(script)) - 1])
        raise AssertionError(call.step)


def debate(llm, participants=THREE, cls=ModeratedProtocol, **options) -> Transcript:
    return run_debate(cls(query=PROPOSITION, participants=participants, options=options), llm)


# --- moderated: who speaks when ---------------------------------------------------------------


def test_a_round_is_proponent_then_opponent_then_moderator_one_call_at_a_time():
    llm = ScriptedModerated()
    t = debate(llm)

    assert [c.key for c in llm.calls] == [
        "r1:proponent",
        "r1:opponent",
        "r1:moderator",
        "r2:proponent",
        "r2:opponent",
        "r2:moderator",
    ]
    assert all(len(s.calls) == 1 for s in t.steps)
    assert [s.closes_round for s in t.steps] == [False, False, True] * 2
    assert [c.step for c in llm.calls[:3]] == ["argument", "argument", "moderation"]


def test_the_opponent_answers_the_proponents_argument_of_the_same_round():
    t = debate(ScriptedModerated())
    opening = t.user_prompt("r1:proponent")
    assert f"<user_query>\n{PROPOSITION}\n</user_query>" in opening
    assert "Previous arguments: none; this is the opening round." in opening
    assert "You argue FOR the proposition." in opening

    reply = t.user_prompt("r1:opponent")
    assert "You argue AGAINST the proposition." in reply
    assert "This round (round 1) so far:" in reply
    assert (
        "- Round 1, Proponent Agent (proponent, side SUPPORT, confidence 0.70, "
        "2 evidence items):" in reply
    )
    assert "ARG-PROPONENT-R1" in reply
    assert "evidence: A 2019 survey of 500 teams found 30% fewer defects." in reply


def test_later_rounds_show_every_earlier_argument_and_the_moderators_open_points():
    t = debate(ScriptedModerated(moderator_confidence=[0.5, 0.6]))
    second = t.user_prompt("r2:proponent")
    assert "ARG-PROPONENT-R1" in second and "ARG-OPPONENT-R1" in second
    assert "The moderator's open points after round 1:" in second
    assert "- OPEN-POINT-AT-0.5" in second
    assert "round 2 of at most 2" in second


def test_the_moderator_sees_this_rounds_arguments_and_its_previous_evaluation_only():
    t = debate(ScriptedModerated(moderator_confidence=[0.5, 0.6]))
    first = t.user_prompt("r1:moderator")
    assert "ARG-PROPONENT-R1" in first and "ARG-OPPONENT-R1" in first
    assert "Your previous evaluation" not in first

    second = t.user_prompt("r2:moderator")
    assert "ARG-PROPONENT-R2" in second and "ARG-OPPONENT-R2" in second
    assert "ARG-PROPONENT-R1" not in second
    assert (
        "Your previous evaluation (round 1): confidence 0.50, leaning SUPPORT; "
        "open points: OPEN-POINT-AT-0.5."
    ) in second
    assert "ends when your confidence exceeds 0.8" in second


# --- stopping ---------------------------------------------------------------------------------


def test_the_debate_stops_early_when_the_moderator_is_more_than_eighty_percent_confident():
    t = debate(ScriptedModerated(moderator_confidence=[0.81]))
    md = t.outcome.decision.metadata

    assert list(t.requests) == ["r1:proponent", "r1:opponent", "r1:moderator"]
    assert md["stopped_early"] is True and md["rounds_run"] == 1
    assert md["consensus_type"] == "moderator_consensus"
    assert t.outcome.final_round_number == 1


def test_a_moderator_confidence_of_exactly_the_threshold_does_not_stop_the_debate():
    t = debate(ScriptedModerated(moderator_confidence=[0.8, 0.8]))
    assert t.outcome.decision.metadata["moderator_confidence_by_round"] == [0.8, 0.8]
    assert len(t.requests) == 6
    assert t.outcome.decision.metadata["stopped_early"] is False


def test_max_rounds_and_threshold_are_options():
    assert len(debate(ScriptedModerated(), max_rounds=3).requests) == 9
    assert (
        len(debate(ScriptedModerated(moderator_confidence=[0.7]), consensus_threshold=0.6).requests)
        == 3
    )


def test_an_unreadable_moderator_reply_never_ends_the_debate_early():
    llm = ScriptedModerated(
        moderator_confidence=[0.9],
        replies={"r1:moderator": "The debate is settled, I am 95% sure."},
    )
    t = debate(llm)
    assert t.results["r1:moderator"]["parse_failed"] is True
    assert len(t.requests) == 6
    assert "parse_failure" in t.outcome.decision.metadata["review_reasons"]


# --- the decision -----------------------------------------------------------------------------


def test_a_stronger_proponent_case_decides_support():
    t = debate(ScriptedModerated(confidence={"proponent": 0.9, "opponent": 0.4}))
    assert t.outcome.decision.decision == "SUPPORT"
    assert t.outcome.votes == ()


def test_evenly_matched_sides_are_uncertain_and_go_to_review():
    llm = ScriptedModerated(
        confidence={"proponent": 0.6, "opponent": 0.6},
        replies={
            "r1:moderator": moderation(0.5, pro=0.7, con=0.7, leaning="NEUTRAL"),
            "r2:moderator": moderation(0.55, pro=0.7, con=0.7, leaning="NEUTRAL"),
        },
    )
    d = debate(llm).outcome.decision
    assert d.decision == "UNCERTAIN"
    assert d.metadata["review_reasons"] == ["uncertain"]


def test_an_unreadable_argument_carries_no_weight():
    llm = ScriptedModerated(
        confidence={"proponent": 0.5, "opponent": 0.5},
        replies={"r1:opponent": "no", "r2:opponent": "still no"},
    )
    d = debate(llm).outcome.decision
    assert d.decision == "SUPPORT"
    assert d.metadata["con_strength"] == 0
    assert d.metadata["parse_failures"] == ["r1:opponent", "r2:opponent"]


def test_confidences_are_read_on_a_zero_to_one_scale_and_stored_times_one_hundred():
    t = debate(ScriptedModerated(confidence={"proponent": 0.9}, moderator_confidence=[0.85]))
    r = t.results["r1:proponent"]
    assert (r["decision"], r["confidence"], r["risk"]) == ("SUPPORT", 90.0, None)
    assert r["details"]["confidence_0_1"] == 0.9
    assert r["details"]["supporting_evidence"] == EVIDENCE
    assert r["details"]["round_number"] == 1
    m = t.results["r1:moderator"]
    assert (m["decision"], m["confidence"]) == ("SUPPORT", 85.0)
    assert m["details"]["pro_quality"] == 0.8 and m["details"]["consensus_reached"] is True


# --- moderated_extended -----------------------------------------------------------------------


def test_extended_round_is_four_debaters_at_once_then_the_refiner_then_the_moderator():
    llm = ScriptedModerated()
    t = debate(llm, SIX, ModeratedExtendedProtocol)

    first_round = [s for s in t.steps if s.round_number == 1]
    assert [[c.key for c in s.calls] for s in first_round] == [
        ["r1:proponent", "r1:opponent", "r1:advocate", "r1:critic"],
        ["r1:refiner"],
        ["r1:moderator"],
    ]
    assert [s.closes_round for s in first_round] == [False, False, True]
    assert len(t.steps) == 9  # three rounds by default


def test_extended_roles_see_what_their_step_allows():
    t = debate(ScriptedModerated(moderator_confidence=[0.5, 0.6]), SIX, ModeratedExtendedProtocol)
    # In parallel, nobody sees this round's other arguments.
    assert "ARG-" not in t.user_prompt("r1:critic")
    assert '"side": "SUPPORT" | "OPPOSE" | "NEUTRAL"' in t.user_prompt("r1:critic")
    assert '"side"' not in t.user_prompt("r1:proponent")
    refiner = t.user_prompt("r1:refiner")
    assert all(f"ARG-{r}-R1" in refiner for r in ("PROPONENT", "OPPONENT", "ADVOCATE", "CRITIC"))
    assert "The refiner's synthesis: SYNTHESIS-R1" in t.user_prompt("r1:moderator")
    later = t.user_prompt("r2:advocate")
    assert "The refiner's synthesis of round 1: SYNTHESIS-R1" in later
    assert "ARG-CRITIC-R1" in later and "OPEN-POINT-AT-0.5" in later


def test_extended_counts_advocate_and_critic_for_the_side_they_declare():
    llm = ScriptedModerated(
        confidence={"proponent": 0.6, "opponent": 0.6, "advocate": 0.8, "critic": 0.2},
        moderator_confidence=[0.9],
    )
    d = debate(llm, SIX, ModeratedExtendedProtocol).outcome.decision
    scores = {s["role"]: s for s in d.metadata["argument_scores"]}
    assert scores["advocate"]["side"] == "SUPPORT" and scores["advocate"]["weight"] == 0.5
    assert scores["critic"]["side"] == "OPPOSE"
    assert d.decision == "SUPPORT"


# --- set-up -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("participants", "message"),
    [
        (THREE[:2], "missing: moderator"),
        ([*THREE[:2], agent("critic")], "Critic Agent has the role 'critic'"),
        ([THREE[0], THREE[0], THREE[2]], "both have the role 'proponent'"),
    ],
    ids=["missing-role", "foreign-role", "duplicate-role"],
)
def test_moderated_needs_exactly_one_agent_per_role(participants, message):
    with pytest.raises(ProtocolError, match=message):
        ModeratedProtocol(query=PROPOSITION, participants=participants)


def test_extended_needs_all_six_roles():
    with pytest.raises(ProtocolError, match="missing: advocate, critic, refiner"):
        ModeratedExtendedProtocol(query=PROPOSITION, participants=THREE)
