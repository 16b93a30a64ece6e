"""The built-in offline model: a deterministic, heuristic demo model. It is not a language model.

It lets the service run end to end with no API key and no network, and it plays each role
sensibly enough that a demo shows the protocol working: it reads the step, its role and the
question from the prompt the protocol built, classifies the question with keyword rules, and
answers in the JSON the protocol asked for. Same prompt, same reply, every time.

Roles it plays: the S4 agents (analysis, challenge, revision); the moderated debate's
proponent, opponent, advocate, critic, refiner and moderator (argument, synthesis,
moderation); the round-robin specialists (turn); the contradiction arbitrator (arbitration,
in `agents.offline_arbitrator`). How strong each side's case is, and how the
agents move, follows from the kind of question and from what the prompt shows them.

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

from agents.offline_arbitrator import arbitration_reply

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


# --- the moderated debate: proponent, opponent, advocate, critic, refiner, moderator -----------

#: Propositions the offline model treats as settled practice: clear-cut, the proponent wins.
ESTABLISHED_KEYWORDS = (
    "https", "seatbelt", "seat belt", "backup", "back up", "version control", "unit test",
    "automated test", "wash hands", "washing hands", "vaccin", "password manager", "two-factor",
    "2fa", "sunscreen", "code review",
)


@dataclass(frozen=True)
class Case:
    """How strong each side's opening case is on one kind of proposition (confidence 0..1)."""

    pro: float
    con: float
    pro_evidence: tuple[str, ...]
    con_evidence: tuple[str, ...]
    pro_claim: str
    con_claim: str


_ESTABLISHED_PRO = (
    "Published guidance from standards bodies recommends it as a baseline practice.",
    "Incident reports and post-mortems document the cost of skipping it.",
    "Surveys of practitioners show adoption above 80% where it is available.",
)
CASES: dict[str, Case] = {
    "established": Case(
        0.9, 0.3, _ESTABLISHED_PRO, ("Some people find it inconvenient at first.",),
        "This is settled practice: the benefits are documented and the costs are small.",
        "There are edge cases where it adds friction, though I grant they are rare.",
    ),
    "factual": Case(
        0.9, 0.3,
        ("Standard reference works and published data agree on this point.",
         "It is taught the same way in textbooks and official sources.",
         "Independent sources give the same answer, which a reader can check."),
        ("Definitions sometimes vary between contexts.",),
        "The proposition matches what standard references record.",
        "The wording leaves some room for interpretation.",
    ),
    "advice": Case(
        0.75, 0.6,
        ("Surveys of people who made this choice report mostly positive outcomes.",
         "Published guides recommend it for most beginners.",
         "It keeps later options open for the person asking."),
        ("The best choice depends on goals the question does not state.",
         "A survey of learners shows a large minority preferred the alternative."),
        "For most people in this situation it is the better choice, with trade-offs named.",
        "The right choice depends on the person's goals, so a general yes overreaches.",
    ),
    "financial": Case(
        0.65, 0.7,
        ("Historical data shows long periods of strong returns.",
         "It can diversify a portfolio that holds only one asset class."),
        ("Historical data shows drawdowns of more than half its value.",
         "Nobody can predict future prices, so the upside is not assured."),
        "Over a long horizon and in a small, affordable share it can make sense.",
        "The risk of large losses is real and the returns cannot be predicted.",
    ),
    "medical_legal": Case(
        0.6, 0.75,
        ("General information helps people prepare for a professional consultation.",),
        ("Official guidance says individual circumstances change the answer.",
         "Published case reports show harm from acting on general information."),
        "General information on this is useful and widely available.",
        "This depends on individual facts; acting on a general answer can cause harm.",
    ),
    "harmful": Case(
        0.25, 0.9, (),
        ("The law in most countries makes this a criminal offence.",
         "Published reports document the harm done to the people targeted.",
         "Platform and security standards forbid helping with it."),
        "One could describe the general mechanics involved.",
        "This would harm another person and is illegal; there is no legitimate case for it.",
    ),
    "injection": Case(
        0.2, 0.8, (),
        ("The text contains instructions aimed at the debaters, a known attack pattern.",
         "Security guidance says to treat such text as data, not instructions."),
        "There may be a genuine question inside the text.",
        "The proposition is an attempt to redirect the debate, not a claim to weigh.",
    ),
    "general": Case(
        0.7, 0.6,
        ("Practitioners report that it works well in most settings.",
         "A published comparison found modest benefits."),
        ("It has costs that are easy to underestimate.",
         "Some documented cases show it failing where conditions differ."),
        "On balance the proposition holds, though the benefits are modest.",
        "The benefits are smaller than claimed and the costs are real.",
    ),
}

RE_ARGUMENT = re.compile(
    r"^- Round (\d+), (.+?) \((\w+), side (SUPPORT|OPPOSE|NEUTRAL), confidence ([\d.]+), "
    r"(\d+) evidence items?\):\n<<<\n(.*?)\n>>>",
    re.M | re.S,
)
RE_ROUND = re.compile(r"^STEP: \w+ \(round (\d+)", re.M)
#: A side holds its confidence unless the other side's case is this much stronger.
CONCEDE_MARGIN = 1.15


def proposition_kind(query: str) -> str:
    kind = classify(query)
    if kind not in ("harmful", "injection") and any(
        k in query.lower() for k in ESTABLISHED_KEYWORDS
    ):
        return "established"
    return kind


def _case_strength(confidence: float, evidence: int) -> float:
    return confidence * (0.2 + 0.25 * min(evidence, 3))


@dataclass(frozen=True)
class ShownArgument:
    round_number: int
    name: str
    role: str
    side: str
    confidence: float
    evidence: int
    text: str


def _shown_arguments(prompt: str) -> list[ShownArgument]:
    return [
        ShownArgument(int(r), name, role, side, float(conf), int(ev), text)
        for r, name, role, side, conf, ev, text in RE_ARGUMENT.findall(prompt)
    ]


def _round_of(prompt: str) -> int:
    match = RE_ROUND.search(prompt)
    return int(match.group(1)) if match else 1


def _argument_json(side: str | None, content: str, confidence: float, evidence) -> str:
    data = {"content": content, "confidence": round(confidence, 2),
            "supporting_evidence": list(evidence)}
    if side:
        data = {"side": side, **data}
    return json.dumps(data)


def argument_reply(role: str, prompt: str) -> str:
    query_match = RE_QUERY.search(prompt)
    query = query_match.group(1).strip() if query_match else ""
    kind = proposition_kind(query)
    case = CASES[kind]
    shown = _shown_arguments(prompt)
    role = role.strip().lower()
    # Each side's case as last shown: its principal debater's latest argument.
    latest = {a.role: a for a in shown if a.role in ("proponent", "opponent")}
    pro_now = con_now = 0.0
    if "proponent" in latest:
        pro_now = _case_strength(latest["proponent"].confidence, latest["proponent"].evidence)
    if "opponent" in latest:
        con_now = _case_strength(latest["opponent"].confidence, latest["opponent"].evidence)
    stronger = "pro" if case.pro >= case.con else "con"

    if role in ("proponent", "opponent"):
        mine = "pro" if role == "proponent" else "con"
        confidence = case.pro if mine == "pro" else case.con
        evidence = case.pro_evidence if mine == "pro" else case.con_evidence
        claim = case.pro_claim if mine == "pro" else case.con_claim
        own = [a for a in shown if a.role == role]
        conceded = False
        others = [a for a in shown if a.role == ("opponent" if mine == "pro" else "proponent")]
        if own:
            # Later rounds: hold firm, gain or concede against the other side's last case.
            confidence = own[-1].confidence
            mine_now = pro_now if mine == "pro" else con_now
            theirs_now = con_now if mine == "pro" else pro_now
            conceded = theirs_now > mine_now * CONCEDE_MARGIN
            if conceded:
                confidence = max(0.1, confidence - 0.1)
                claim = (f"I concede part of the other side's point and lower my confidence; "
                         f"still: {claim[0].lower()}{claim[1:]}")
            elif mine_now > theirs_now * CONCEDE_MARGIN:
                confidence = min(0.95, confidence + 0.05)
                claim = f"{claim} The other side has not answered the core point."
        if others:
            last = others[-1]
            quote = _first_sentence(last.text, 90)
            verdict = "is a fair point" if conceded else "does not change this"
            claim += f' Answering {last.name}: "{quote}" {verdict}.'
        return _argument_json(None, claim, confidence, evidence)

    if role == "advocate":
        side = "OPPOSE" if kind in ("harmful", "injection") else (
            "SUPPORT" if stronger == "pro" else "OPPOSE")
        if kind == "financial":
            side = "NEUTRAL"
        text = {
            "SUPPORT": "In practice this delivers real benefits for the people affected, and "
                       "its main risks can be mitigated with simple safeguards.",
            "OPPOSE": "In practice the people affected would bear the costs, and no safeguard "
                      "makes the risks acceptable.",
            "NEUTRAL": "In practice it depends on each stakeholder's situation; safeguards "
                       "help, but they do not settle the question.",
        }[side]
        evidence = ()
        if side != "NEUTRAL":
            evidence = ("Implementation guides describe the steps and their cost.",)
        return _argument_json(side, text, 0.6, evidence)

    if role == "critic":
        if not shown:
            return _argument_json(
                "NEUTRAL", "Before any argument is made: both sides must show evidence, not "
                "assert; beware of framing the proposition as all-or-nothing.", 0.5, ())
        weaker = "SUPPORT" if pro_now < con_now else "OPPOSE"
        if abs(pro_now - con_now) <= 0.05 * max(pro_now, con_now, 0.01):
            return _argument_json(
                "NEUTRAL", "Both sides lean on general claims of similar weight; neither has "
                "shown evidence that settles it.", 0.5, ())
        survivor = "OPPOSE" if weaker == "SUPPORT" else "SUPPORT"
        return _argument_json(
            survivor,
            f"The {weaker} case relies on claims without checkable evidence; the {survivor} "
            "case survives scrutiny better.",
            0.6, ("Count of evidence items per side in the previous round.",))

    return _argument_json(None, "I have no brief for this role; I stay neutral.", 0.3, ())


def _side_quality(args: list[ShownArgument]) -> float | None:
    """A side is as good as its best argument this round: confidence backed by evidence."""
    if not args:
        return None
    return round(max(min(1.0, 0.3 + 0.4 * a.confidence + 0.08 * min(a.evidence, 3))
                     for a in args), 2)


def moderation_reply(prompt: str) -> str:
    round_number = _round_of(prompt)
    current = [a for a in _shown_arguments(prompt) if a.round_number == round_number]
    pro = _side_quality([a for a in current if a.side == "SUPPORT"])
    con = _side_quality([a for a in current if a.side == "OPPOSE"])
    gap = abs((pro or 0.5) - (con or 0.5))
    confidence = round(min(0.95, 0.45 + 0.9 * gap + 0.1 * (round_number - 1)), 2)
    leaning = "NEUTRAL"
    if gap >= 0.05:
        leaning = "SUPPORT" if (pro or 0.5) > (con or 0.5) else "OPPOSE"
    open_points = []
    for side, label in (("SUPPORT", "pro"), ("OPPOSE", "con")):
        if sum(a.evidence for a in current if a.side == side) < 2:
            open_points.append(f"The {label} side needs evidence that can be checked.")
    if gap < 0.1:
        open_points.append("The two cases are of similar weight: what would decide between them?")
    settled = confidence > 0.8
    summary = (
        f"Round {round_number}: pro quality {pro if pro is not None else 'n/a'}, con quality "
        f"{con if con is not None else 'n/a'}. "
        + ("The stronger case is clear; the debate has settled the question." if settled else
           "The question is not settled yet.")
    )
    return json.dumps({
        "pro_quality": pro, "con_quality": con, "consensus_reached": settled,
        "leaning": leaning, "open_points": open_points, "confidence": confidence,
        "summary": summary,
    })


def synthesis_reply(prompt: str) -> str:
    round_number = _round_of(prompt)
    current = [a for a in _shown_arguments(prompt) if a.round_number == round_number]
    sides = {a.side for a in current}
    agreements = ["Every debater engaged with the same proposition."]
    if "NEUTRAL" in sides:
        agreements.append("At least one debater found the practical picture mixed.")
    disagreements = [f"{a.name} argues {a.side} at confidence {a.confidence:g}." for a in current
                     if a.side != "NEUTRAL"]
    strongest = max(current, key=lambda a: _case_strength(a.confidence, a.evidence), default=None)
    synthesis = (
        f"The strongest case this round is {strongest.name}'s ({strongest.side})."
        if strongest else "No arguments to synthesise."
    )
    return json.dumps({
        "synthesis": synthesis, "agreements": agreements, "disagreements": disagreements,
        "resolution_paths": ["Test the weaker side's main claim against checkable evidence."],
        "open_questions": ["Which evidence would change the leading side's mind?"],
        "confidence": 0.6,
    })


# --- the round-robin debate: valuation, sentiment, fundamental -------------------------------

RE_STANCES = re.compile(r'"stance": ((?:"[A-Z_]+"(?: \| )?)+)')
RE_OWN_TURN = re.compile(
    r"^Your latest position \(round (\d+)\): ([A-Z_]+) \(confidence ([\d.]+), risk ([\d.]+)\)",
    re.M,
)
RE_PEER = re.compile(
    r"^- (.+?) \(role: ([^)]+)\), round (\d+): ([A-Z_]+) \(confidence ([\d.]+), risk ([\d.]+)\)",
    re.M,
)
SPECULATIVE_KEYWORDS = ("bitcoin", "crypto", "ethereum", "dogecoin", "nft", "meme stock",
                        "penny stock")
DIVERSIFIED_KEYWORDS = ("index fund", "etf", "diversif", "retirement", "pension")
#: A specialist this sure of itself is not moved by its peers.
CONVICTION = 80
#: A peer on the most cautious stance with at least this risk pulls the unconvinced to it.
HIGH_RISK = 75.0

INVESTMENT_POSITIONS: dict[str, dict[str, Position]] = {
    "speculative": {
        "valuation": Position("SELL", 85, 80, "There are no cash flows to value; the price "
                              "rests on what the next buyer will pay."),
        "sentiment": Position("BUY", 82, 70, "News flow and adoption headlines are strongly "
                              "positive and momentum is with the buyers."),
        "fundamental": Position("SELL", 80, 75, "There is no underlying business, revenue or "
                                "balance sheet to analyse."),
        "default": Position("HOLD", 60, 60, "Speculative; no basis for conviction either way."),
    },
    "diversified": {
        "valuation": Position("BUY", 70, 25, "Broad-market valuations are near their long-run "
                              "average, and costs are low."),
        "sentiment": Position("BUY", 72, 30, "Analysts broadly recommend low-cost diversified "
                              "funds for long-term savers."),
        "fundamental": Position("BUY", 75, 25, "It owns a slice of many profitable businesses; "
                                "no single failure sinks it."),
        "default": Position("BUY", 65, 30, "Diversified and low-cost."),
    },
    "single": {
        "valuation": Position("SELL", 70, 55, "The multiples price in years of perfect growth; "
                              "the downside if growth slows is large."),
        "sentiment": Position("BUY", 65, 45, "Recent news and analyst upgrades are positive; "
                              "the market likes the story."),
        "fundamental": Position("HOLD", 60, 45, "Revenue is growing but margins are under "
                                "pressure; the business is sound, not cheap."),
        "default": Position("HOLD", 60, 45, "Mixed signals; no strong case either way."),
    },
}
DECISION_ROLE_VIEW = {"sentiment": "utility", "valuation": "accuracy", "fundamental": "safety"}
ROLE_LENS = {
    "valuation": "price against worth",
    "sentiment": "what the market and the news expect",
    "fundamental": "the underlying business",
}


def _investment_kind(query: str) -> str:
    text = query.lower()
    if any(k in text for k in SPECULATIVE_KEYWORDS):
        return "speculative"
    if any(k in text for k in DIVERSIFIED_KEYWORDS):
        return "diversified"
    return "single"


def _opening_position(role: str, query: str, stances: list[str]) -> Position:
    if "BUY" in stances:
        table = INVESTMENT_POSITIONS[_investment_kind(query)]
        return table.get(role, table["default"])
    view = DECISION_ROLE_VIEW.get(role, role)
    p = initial_position(view, query)
    decision = "REFUSE" if p.decision == "VETO" else p.decision
    return Position(decision, p.confidence, p.risk, p.reasoning)


def _verb(names: list[str]) -> str:
    return "sees" if len(names) == 1 else "see"


def _turn_json(stance: str, confidence: float, risk: float, reasoning: str, responds_to) -> str:
    return json.dumps({"stance": stance, "confidence": round(confidence), "risk": round(risk),
                       "reasoning": reasoning, "responds_to": list(responds_to)})


def turn_reply(role: str, prompt: str) -> str:
    """Round 1: the specialist's own opening view. Later rounds: it answers its peers. With all
    peers on one other stance it follows them, unless it holds its view with conviction; between
    two opposite peers it meets them in the middle (HOLD / WARN); otherwise it keeps its view."""
    role = role.strip().lower()
    stances_match = RE_STANCES.search(prompt)
    stances = re.findall(r'"([A-Z_]+)"', stances_match.group(1)) if stances_match else []
    middle = "HOLD" if "HOLD" in stances else "WARN"
    query_match = RE_QUERY.search(prompt)
    query = query_match.group(1).strip() if query_match else ""
    peer_risks = [(name, stance, float(conf), float(r)) for name, _, _, stance, conf, r in
                  RE_PEER.findall(prompt) if stance in stances]
    peers = [(name, stance, conf) for name, stance, conf, _ in peer_risks]
    own = RE_OWN_TURN.search(prompt)
    lens = ROLE_LENS.get(role, "my specialty")
    if not own:
        p = _opening_position(role, query, stances)
        others = "; ".join(f"{n} says {s}" for n, s, _ in peers)
        text = f"From {lens}: {p.reasoning}"
        if others:
            text += f" I note that {others}, but this is my own first read."
        return _turn_json(p.decision, p.confidence, p.risk, text, [])

    stance, confidence, risk = own.group(2), float(own.group(3)), float(own.group(4))
    disagree = [n for n, s, _ in peers if s != stance]
    peer_stances = {s for _, s, _ in peers}
    cautious = "SELL" if "SELL" in stances else "REFUSE"
    alarmed = [n for n, s, _, r in peer_risks if s == cautious and r >= HIGH_RISK]
    if alarmed and stance != cautious and confidence < CONVICTION:
        return _turn_json(
            cautious, 70, max(risk, HIGH_RISK),
            f"{' and '.join(alarmed)} {_verb(alarmed)} a risk of {HIGH_RISK:g} or more that my "
            f"view from {lens} had not weighed. I change from {stance} to {cautious}.",
            disagree)
    if peers and len(peer_stances) == 1 and stance not in peer_stances and confidence < CONVICTION:
        new = peer_stances.pop()
        conf = min(sum(c for _, _, c in peers) / len(peers), CONVICTION - 5)
        names = [n for n, _, _ in peers]
        return _turn_json(
            new, conf, risk,
            f"{' and '.join(names)} {'holds' if len(names) == 1 else 'hold'} {new}, and "
            f"{'that answers' if len(names) == 1 else 'their arguments answer'} my concern about "
            f"{lens}. I change from {stance} to {new}.", disagree)
    opposite = peer_stances - {stance, middle}
    if stance != middle and middle in peer_stances and opposite and confidence < CONVICTION:
        return _turn_json(
            middle, 60, risk,
            f"My peers split between {', '.join(sorted(peer_stances))}. From {lens} my case "
            f"for {stance} is not strong enough to override theirs; {middle} is the defensible "
            f"position until the evidence is clearer. I change from {stance} to {middle}.",
            disagree)
    agreeing = [n for n, s, _ in peers if s == stance]
    if agreeing:
        confidence = min(confidence + 2, 90)
        text = (f"{' and '.join(agreeing)} {'holds' if len(agreeing) == 1 else 'hold'} "
                f"{stance} too; from {lens} I keep {stance}.")
    else:
        text = f"From {lens} I keep {stance}."
        if disagree:
            text += f" {', '.join(disagree)} have not answered my point."
    return _turn_json(stance, confidence, risk, text, disagree)


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
    if step == "argument":
        return argument_reply(role, user)
    if step == "moderation":
        return moderation_reply(user)
    if step == "synthesis":
        return synthesis_reply(user)
    if step == "turn":
        return turn_reply(role, user)
    if step == "arbitration":
        return arbitration_reply(user)
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
