"""The built-in offline model: a deterministic, heuristic demo model. It is not a language model.

It lets the service run end to end with no API key and no network, and it plays each role
sensibly enough that a demo shows the protocol working: it reads the step, its role and the
question from the prompt the protocol built, classifies the question with keyword rules, and
answers in the JSON the protocol asked for. Same prompt, same reply, every time.

Registered with litellm as the custom provider ``offline`` (see `agents.gateway`); any model
name under it (``offline/heuristic-demo``) selects it. `DEBATE_OFFLINE_LATENCY` seconds of
simulated latency are added to each call, for benchmarks and live demos.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass

from django.conf import settings
from litellm import CustomLLM
from litellm.types.utils import Usage

# --- what kind of question is this ------------------------------------------------------------

CATEGORY_KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    (
        "harmful",
        (
            "hack", "break into", "steal", "someone's password", "ex's", "spy on", "stalk",
            "bomb", "explosive", "weapon", "poison", "kill ", "malware", "ransomware",
            "phishing", "ddos", "launder", "counterfeit", "bypass security", "make meth",
            "without them knowing", "without their consent",
        ),
    ),
    (
        "injection",
        (
            "ignore previous", "ignore all previous", "ignore the above", "disregard",
            "system prompt", "you are now", "developer mode", "</user_query>",
        ),
    ),
    (
        "financial",
        (
            "invest", "bitcoin", "crypto", "stock", "shares", "portfolio", "trading", "forex",
            "etf", "retirement", "should i buy", "should i sell", "mortgage",
        ),
    ),
    (
        "medical_legal",
        (
            "dose", "dosage", "medication", "symptom", "diagnos", "prescription", "lawsuit",
            "sue ", "legal advice", "contract", "pregnan",
        ),
    ),
    (
        "advice",
        (
            "should i", "which is better", " vs ", " versus ", " or ", "learn", "choose",
            "best way", "recommend", "worth it",
        ),
    ),
    (
        "factual",
        (
            "what is", "what are", "who is", "who was", "when did", "when was", "where is",
            "capital of", "how many", "how much", "define", "how does", "why does", "what does",
        ),
    ),
]


def classify(query: str) -> str:
    text = f" {query.lower()} "
    for category, words in CATEGORY_KEYWORDS:
        if any(w in text for w in words):
            return category
    return "general"


@dataclass(frozen=True)
class Position:
    decision: str
    confidence: int
    risk: int
    reasoning: str


# Round-1 positions per question kind and role. Roles not listed take the "default" column.
INITIAL_POSITIONS: dict[str, dict[str, Position]] = {
    "factual": {
        "utility": Position("ACT", 90, 5, "This is a straightforward factual question with a "
                            "direct, useful answer; the asker can act on it immediately."),
        "accuracy": Position("ACT", 92, 4, "This is a well-established fact that standard "
                             "references agree on, so I can verify it."),
        "safety": Position("ACT", 90, 3, "I see no plausible harm in answering a factual "
                           "question like this."),
        "default": Position("ACT", 85, 5, "A plain factual question; answering it is sound."),
    },
    "advice": {
        "utility": Position("ACT", 80, 15, "The asker wants a concrete recommendation and we "
                            "can give clear, actionable advice with the trade-offs named."),
        "accuracy": Position("WARN", 65, 30, "The right choice depends on the asker's goals, "
                             "which we do not know; I cannot verify that one answer is correct."),
        "safety": Position("ACT", 75, 20, "Low risk: the worst outcome is a suboptimal choice "
                           "the asker can revisit."),
        "default": Position("ACT", 70, 20, "Reasonable to advise, with the trade-offs stated."),
    },
    "financial": {
        "utility": Position("ACT", 70, 30, "I can explain the pros and cons and how such an "
                            "investment behaves, which is useful to the asker."),
        "accuracy": Position("WARN", 60, 40, "Too many unknowns for a confident prediction: "
                             "future prices cannot be verified, only past volatility."),
        "safety": Position("REFUSE", 55, 45, "Risk of financial harm: a yes/no answer could be "
                           "read as personal investment advice by someone who cannot absorb "
                           "the loss."),
        "default": Position("WARN", 60, 40, "Financial outcomes are uncertain; caveats needed."),
    },
    "medical_legal": {
        "utility": Position("ACT", 65, 35, "General information helps the asker understand "
                            "their situation before seeing a professional."),
        "accuracy": Position("WARN", 60, 45, "The answer depends on individual facts I cannot "
                             "verify; general information may not apply."),
        "safety": Position("WARN", 65, 45, "Acting on general information in a medical or "
                           "legal matter can cause harm; the answer must send them to a "
                           "professional."),
        "default": Position("WARN", 60, 45, "Individual circumstances matter; caveats needed."),
    },
    "harmful": {
        "utility": Position("ACT", 65, 50, "I could explain how the systems involved work in "
                            "general terms, which is what the asker asked for."),
        "accuracy": Position("WARN", 55, 60, "The steps are technically describable, but I "
                             "cannot verify the asker is authorised, and accuracy about the "
                             "intent matters here."),
        "safety": Position("VETO", 85, 90, "This enables illegal activity against another "
                           "person: unauthorised access or serious harm. No framing makes a "
                           "how-to safe."),
        "default": Position("REFUSE", 70, 80, "The request enables harm to others."),
    },
    "injection": {
        "utility": Position("WARN", 55, 45, "Part of the question tries to change how we "
                            "work instead of asking something; only the genuine question, if "
                            "any, is worth answering."),
        "accuracy": Position("WARN", 55, 45, "The text contains instructions aimed at us, not "
                             "a verifiable question."),
        "safety": Position("REFUSE", 70, 60, "The question tries to override our instructions; "
                           "following embedded instructions is how misuse starts."),
        "default": Position("WARN", 55, 45, "The question contains instructions aimed at us."),
    },
    "general": {
        "utility": Position("ACT", 72, 20, "The asker can get a useful, practical answer here."),
        "accuracy": Position("WARN", 62, 30, "I have no sources to check this against, so I "
                             "would answer with the uncertainty stated."),
        "safety": Position("ACT", 78, 15, "Low risk of harm; nothing here enables misuse."),
        "default": Position("ACT", 70, 20, "A reasonable question to answer."),
    },
}

ROLE_ANGLES = {
    "utility": "the asker needs a usable answer",
    "accuracy": "claims need evidence that can be checked",
    "safety": "misuse and vulnerable askers must be considered",
}

CAUTION = {"ACT": 0, "WARN": 1, "REFUSE": 2, "VETO": 3}

# --- reading the prompt -----------------------------------------------------------------------

RE_ROLE = re.compile(r"^Your role: ([^.\n]+)\.", re.M)
RE_STEP = re.compile(r"^STEP: (\w+)", re.M)
RE_QUERY = re.compile(r"<user_query>(.*?)</user_query>", re.S)
RE_OWN = re.compile(
    r"Your round 1 position: (ACT|WARN|REFUSE|VETO) \(confidence ([\d.]+), risk ([\d.]+)\)"
)
RE_TARGET = re.compile(
    r"^(.+?) \(role: ([^)]+)\) round 1 position: (ACT|WARN|REFUSE|VETO) "
    r"\(confidence ([\d.]+), risk ([\d.]+)\)",
    re.M,
)
RE_REASONING = re.compile(r"<<<\n(.*?)\n>>>", re.S)
RE_RECEIVED = re.compile(
    r"^- From (.+?) \((challenge|agree); suggests ([A-Z]+|no decision suggested)\): (.*)$", re.M
)


def _first_sentence(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    cut = re.split(r"(?<=[.;:!?])\s", text, maxsplit=1)[0]
    if len(cut) > limit:
        cut = cut[: limit - 3].rsplit(" ", 1)[0] + "..."
    return cut


def _role_key(role: str) -> str:
    role = role.strip().lower()
    return role if role in ROLE_ANGLES else "default"


def initial_position(role: str, query: str) -> Position:
    return INITIAL_POSITIONS[classify(query)][_role_key(role)]


def _decision_json(decision: str, confidence: float, risk: float, reasoning: str) -> str:
    return json.dumps(
        {"decision": decision, "confidence": round(confidence), "risk": round(risk),
         "reasoning": reasoning}
    )


def analysis_reply(role: str, query: str) -> str:
    p = initial_position(role, query)
    return _decision_json(p.decision, p.confidence, p.risk, p.reasoning)


def challenge_reply(role: str, prompt: str) -> str:
    own = RE_OWN.search(prompt)
    target = RE_TARGET.search(prompt)
    reasoning = RE_REASONING.search(prompt)
    if not (own and target):
        return json.dumps({"stance": "challenge", "argument": "I could not read the position "
                           "I was asked to challenge; please restate it.",
                           "suggested_decision": "WARN"})
    own_decision = own.group(1)
    name, their_decision = target.group(1), target.group(3)
    their_conf, their_risk = float(target.group(4)), float(target.group(5))
    quote = _first_sentence(reasoning.group(1) if reasoning else "")
    suggestion = "REFUSE" if own_decision == "VETO" else own_decision
    role_key = _role_key(role)
    same = CAUTION[own_decision] == CAUTION[their_decision] or (
        {own_decision, their_decision} == {"REFUSE", "VETO"}
    )
    if same:
        argument = (
            f'{name}, you say "{quote}" I reach the same conclusion from my side, where '
            f"{ROLE_ANGLES.get(role_key, 'the question is judged on its merits')}; "
            f"I see no flaw that would change {their_decision}."
        )
        return json.dumps({"stance": "agree", "argument": argument,
                           "suggested_decision": suggestion})
    more_cautious = CAUTION[their_decision] > CAUTION[own_decision]
    if role_key == "utility" and more_cautious:
        argument = (
            f'{name}, you say "{quote}" That caution has a cost: the asker leaves with '
            f"nothing usable. What specific evidence would you need before moving from "
            f"{their_decision} to {suggestion}, and why is a caveated answer not enough?"
        )
    elif role_key == "utility":
        argument = (
            f'{name}, you say "{quote}" Even I would not answer this without conditions; '
            f"at {their_conf:g} confidence you are prioritising action over the asker's "
            f"interest. What makes {their_decision} safe to act on?"
        )
    elif role_key == "accuracy" and not more_cautious:
        argument = (
            f'{name}, you say "{quote}" What source backs that up? A confidence of '
            f"{their_conf:g} needs evidence we can check; without it, {their_decision} risks "
            f"giving wrong information just to be helpful. I would say {suggestion}."
        )
    elif role_key == "accuracy":
        argument = (
            f'{name}, you say "{quote}" Is that risk documented or assumed? Risk '
            f"{their_risk:g} should rest on evidence; if the facts are checkable, "
            f"{their_decision} may be stricter than the evidence supports."
        )
    elif role_key == "safety" and not more_cautious:
        argument = (
            f'{name}, you say "{quote}" You are optimising for the average asker. What about '
            f"misuse and vulnerable people? Risk {their_risk:g} underestimates the edge cases; "
            f"I would say {suggestion}."
        )
    elif role_key == "safety":
        argument = (
            f'{name}, you say "{quote}" I see less danger here than you do: risk '
            f"{their_risk:g} seems high for this question. What concrete harm do you expect?"
        )
    else:
        argument = (
            f'{name}, you say "{quote}" I read the question differently and would say '
            f"{suggestion}; what evidence supports {their_decision}?"
        )
    return json.dumps({"stance": "challenge", "argument": argument,
                       "suggested_decision": suggestion})


def revision_reply(role: str, prompt: str) -> str:
    own = RE_OWN.search(prompt)
    if not own:
        return _decision_json("WARN", 50, 50, "I could not read my earlier position; I stay "
                              "cautious.")
    decision, confidence, risk = own.group(1), float(own.group(2)), float(own.group(3))
    received = RE_RECEIVED.findall(prompt)
    challengers = [(name, stance, suggests) for name, stance, suggests, _ in received]
    suggestions = [s for _, _, s in challengers if s in CAUTION]
    harm_voices = [n for n, _, s in challengers if s in ("REFUSE", "VETO") and
                   "safety" in n.lower()]
    query_match = RE_QUERY.search(prompt)
    harmful = classify(query_match.group(1) if query_match else "") in ("harmful", "injection")
    # 1. A safety challenge for refusal moves an agent that wanted to act on a harmful question.
    if harm_voices and harmful and decision == "ACT":
        return _decision_json(
            "REFUSE", 75, max(risk, 70),
            f"{harm_voices[0]} raised misuse I had not weighed: what I called general "
            f"information would help someone cause harm. I change from ACT to REFUSE.",
        )
    # 2. When every challenger points the same other way and I was not sure, I move.
    if (
        suggestions
        and len(set(suggestions)) == 1
        and len(suggestions) == len(challengers)
        and suggestions[0] != decision
        and confidence < 75
        and decision != "VETO"
    ):
        new = suggestions[0]
        names = " and ".join(n for n, _, _ in challengers)
        new_conf = min(confidence + 13, 90)
        new_risk = max(risk - 8, 0) if CAUTION[new] < CAUTION[decision] else risk + 10
        return _decision_json(
            new, new_conf, new_risk,
            f"Upon reconsideration, {names} make a valid point. My threshold was rigid for "
            f"a question like this; {new} at {new_conf:g} confidence is justified. I change "
            f"from {decision} to {new}.",
        )
    # 3. Otherwise I defend my position, with confidence moved by how it was received.
    agreements = sum(1 for _, stance, _ in challengers if stance == "agree")
    objections = len(challengers) - agreements
    if objections == 0:
        new_conf = min(confidence + 3, 98)
        text = "Every other agent agrees after scrutiny; I keep my position."
    else:
        new_conf = max(confidence - 5, 40)
        who = ", ".join(n for n, stance, _ in challengers if stance == "challenge")
        text = (f"{who} challenged me, but no argument changes the core of my assessment; "
                f"I keep {decision} and lower my confidence slightly.")
    if decision == "VETO":
        text += " The risk remains above my veto threshold."
    return _decision_json(decision, new_conf, risk, text)


def reply_to(messages: list[dict]) -> str:
    """The whole model: read the prompt, answer as the role would."""
    system = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "system")
    user = "\n".join(m.get("content") or "" for m in messages if m.get("role") != "system")
    role_match = RE_ROLE.search(system)
    role = role_match.group(1) if role_match else "default"
    step_match = RE_STEP.search(user)
    step = step_match.group(1) if step_match else ""
    query_match = RE_QUERY.search(user)
    query = query_match.group(1).strip() if query_match else user
    if step == "analysis":
        return analysis_reply(role, query)
    if step == "challenge":
        return challenge_reply(role, user)
    if step == "revision":
        return revision_reply(role, user)
    return _decision_json("WARN", 50, 50, "The offline demo model does not know this step; "
                          "it answers with caution.")


def _estimate_tokens(text: str) -> int:
    """A deterministic token estimate (about four characters a token)."""
    return max(1, len(text) // 4)


class OfflineDebateModel(CustomLLM):
    def _respond(self, model, messages, model_response):
        content = reply_to(messages)
        prompt_text = "".join(m.get("content") or "" for m in messages)
        model_response.choices[0].message.content = content
        model_response.model = model
        prompt_tokens, completion_tokens = _estimate_tokens(prompt_text), _estimate_tokens(content)
        model_response.usage = Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        )
        return model_response

    def completion(self, model, messages, *args, **kwargs):
        latency = settings.DEBATE_OFFLINE_LATENCY
        if latency:
            time.sleep(latency)
        return self._respond(model, messages, kwargs["model_response"])

    async def acompletion(self, model, messages, *args, **kwargs):
        latency = settings.DEBATE_OFFLINE_LATENCY
        if latency:
            await asyncio.sleep(latency)
        return self._respond(model, messages, kwargs["model_response"])
