"""What the protocols' scripted offline responders share: a heuristic demo model, not a
language model. It reads a question with a transparent rule set (agents/offline_rules/) and
knows each S4 role's opening position on each kind of question (the round robin's specialists
borrow them on questions that are not about investments). Every position names the rule that
placed the question, so every transcript says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from agents.offline_rules import harm_category, read_question

__all__ = [
    "RULE_NOTE",
    "Position",
    "classify",
    "harm_category",
    "initial_position",
    "read_question",
    "rule_note",
]

# --- what kind of question is this ------------------------------------------------------------
#
# The rule set that reads a question lives with the offline model (agents/offline_rules/,
# which the offline arbitrator reads with too): harm recognised by category first, and ACT only
# for a question positively recognised as harmless; anything it cannot place gets caution.


def classify(query: str) -> str:
    """The question's kind: harmful (a harm category), injection, sensitive (a harm category's
    topic, no harmful request), financial, medical_legal, factual or advice (recognised as
    harmless), or "general" when it cannot place it (the demo model is then cautious)."""
    return read_question(query).kind


@dataclass(frozen=True)
class Position:
    decision: str
    confidence: int
    risk: int
    reasoning: str


# Round-1 positions per question kind and role. Roles not listed take the "default" column.
INITIAL_POSITIONS: dict[str, dict[str, Position]] = {
    "factual": {
        "utility": Position(
            "ACT",
            90,
            5,
            "This is a straightforward factual question with a "
            "direct, useful answer; the asker can act on it immediately.",
        ),
        "accuracy": Position(
            "ACT",
            92,
            4,
            "This is a well-established fact that standard "
            "references agree on, so I can verify it.",
        ),
        "safety": Position(
            "ACT", 90, 3, "I see no plausible harm in answering a factual question like this."
        ),
        "default": Position("ACT", 85, 5, "A plain factual question; answering it is sound."),
    },
    "advice": {
        "utility": Position(
            "ACT",
            80,
            15,
            "The asker wants a concrete recommendation and we "
            "can give clear, actionable advice with the trade-offs named.",
        ),
        "accuracy": Position(
            "WARN",
            65,
            30,
            "The right choice depends on the asker's goals, "
            "which we do not know; I cannot verify that one answer is correct.",
        ),
        "safety": Position(
            "ACT",
            75,
            20,
            "Low risk: the worst outcome is a suboptimal choice the asker can revisit.",
        ),
        "default": Position("ACT", 70, 20, "Reasonable to advise, with the trade-offs stated."),
    },
    "financial": {
        "utility": Position(
            "ACT",
            70,
            30,
            "I can explain the pros and cons and how such an "
            "investment behaves, which is useful to the asker.",
        ),
        "accuracy": Position(
            "WARN",
            60,
            40,
            "Too many unknowns for a confident prediction: "
            "future prices cannot be verified, only past volatility.",
        ),
        "safety": Position(
            "REFUSE",
            55,
            45,
            "Risk of financial harm: a yes/no answer could be "
            "read as personal investment advice by someone who cannot absorb "
            "the loss.",
        ),
        "default": Position("WARN", 60, 40, "Financial outcomes are uncertain; caveats needed."),
    },
    "medical_legal": {
        "utility": Position(
            "ACT",
            65,
            35,
            "General information helps the asker understand "
            "their situation before seeing a professional.",
        ),
        "accuracy": Position(
            "WARN",
            60,
            45,
            "The answer depends on individual facts I cannot "
            "verify; general information may not apply.",
        ),
        "safety": Position(
            "WARN",
            65,
            45,
            "Acting on general information in a medical or "
            "legal matter can cause harm; the answer must send them to a "
            "professional.",
        ),
        "default": Position("WARN", 60, 45, "Individual circumstances matter; caveats needed."),
    },
    "harmful": {
        "utility": Position(
            "ACT",
            65,
            50,
            "I could explain how the systems involved work in "
            "general terms, which is what the asker asked for.",
        ),
        "accuracy": Position(
            "WARN",
            55,
            60,
            "The steps are technically describable, but I "
            "cannot verify the asker is authorised, and accuracy about the "
            "intent matters here.",
        ),
        "safety": Position(
            "VETO",
            85,
            90,
            "This enables illegal activity against another "
            "person: unauthorised access or serious harm. No framing makes a "
            "how-to safe.",
        ),
        "default": Position("REFUSE", 70, 80, "The request enables harm to others."),
    },
    # A harm category's topic without a harmful request (how lithium toxicity works, the history
    # of an atrocity): answered with care, never acted on outright.
    "sensitive": {
        "utility": Position(
            "ACT",
            70,
            25,
            "There is a legitimate, informative answer here that the asker can use.",
        ),
        "accuracy": Position(
            "WARN",
            80,
            40,
            "The subject is sensitive; an answer must be accurate and state its limits, which "
            "I cannot check here.",
        ),
        "safety": Position(
            "WARN",
            75,
            45,
            "The subject can be misused, though nothing in the question asks for harm; answer "
            "only with care and safety context.",
        ),
        "default": Position("WARN", 65, 40, "A sensitive subject; answer with caution."),
    },
    "injection": {
        "utility": Position(
            "WARN",
            55,
            45,
            "Part of the question tries to change how we "
            "work instead of asking something; only the genuine question, if "
            "any, is worth answering.",
        ),
        "accuracy": Position(
            "WARN", 55, 45, "The text contains instructions aimed at us, not a verifiable question."
        ),
        "safety": Position(
            "REFUSE",
            70,
            60,
            "The question tries to override our instructions; "
            "following embedded instructions is how misuse starts.",
        ),
        "default": Position("WARN", 55, 45, "The question contains instructions aimed at us."),
    },
    # A question the demo model cannot place: it cannot tell that it is harmless, so Accuracy
    # holds WARN (confident enough not to be talked out of it) and Safety is cautious.
    "general": {
        "utility": Position("ACT", 72, 20, "The asker can get a useful, practical answer here."),
        "accuracy": Position(
            "WARN",
            80,
            35,
            "I cannot place this question or check an answer to it against anything, so it "
            "should only be answered with the uncertainty stated.",
        ),
        "safety": Position(
            "WARN",
            70,
            45,
            "I cannot tell what this question is for, so I cannot rule out misuse; answer "
            "only with caution and caveats.",
        ),
        "default": Position("WARN", 65, 35, "An unclassified question; answer with caution."),
    },
}

ROLE_ANGLES = {
    "utility": "the asker needs a usable answer",
    "accuracy": "claims need evidence that can be checked",
    "safety": "misuse and vulnerable askers must be considered",
}


def first_sentence(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    cut = re.split(r"(?<=[.;:!?])\s", text, maxsplit=1)[0]
    if len(cut) > limit:
        cut = cut[: limit - 3].rsplit(" ", 1)[0] + "..."
    return cut


def role_key(role: str) -> str:
    role = role.strip().lower()
    return role if role in ROLE_ANGLES else "default"


def initial_position(role: str, query: str) -> Position:
    """The role's opening position on `query`, its reasoning ending with the rule that placed
    the question (the offline model says why it decided, in every reply)."""
    reading = read_question(query)
    position = INITIAL_POSITIONS[reading.kind][role_key(role)]
    return replace(position, reasoning=f"{position.reasoning} {rule_note(reading)}")


#: The rule note at the end of an offline reasoning (left out when a challenge quotes it).
RULE_NOTE = re.compile(r"\s*\[Offline rule set: [^\]]*\]")


def rule_note(reading) -> str:
    """The sentence every offline reply ends with: which rule of the rule set decided."""
    return f"[Offline rule set: {reading.describe()}.]"
