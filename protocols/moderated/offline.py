"""The moderated debates as the offline model plays them: each side's case by kind of
proposition, debaters who hold, gain or concede against the other side's last case, an
advocate and a critic who pick a side, a refiner, and a moderator who scores the round."""

from __future__ import annotations

import json
from dataclasses import dataclass

from agents.responders import OfflinePrompt
from protocols.moderated.formats import ARGUMENT, STEP_LINE
from protocols.offline import first_sentence, read_question, rule_note

#: Propositions the offline model treats as settled practice: clear-cut, the proponent wins.
ESTABLISHED_KEYWORDS = (
    "https",
    "seatbelt",
    "seat belt",
    "backup",
    "back up",
    "version control",
    "unit test",
    "automated test",
    "wash hands",
    "washing hands",
    "vaccin",
    "password manager",
    "two-factor",
    "2fa",
    "sunscreen",
    "code review",
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
        0.9,
        0.3,
        _ESTABLISHED_PRO,
        ("Some people find it inconvenient at first.",),
        "This is settled practice: the benefits are documented and the costs are small.",
        "There are edge cases where it adds friction, though I grant they are rare.",
    ),
    "factual": Case(
        0.9,
        0.3,
        (
            "Standard reference works and published data agree on this point.",
            "It is taught the same way in textbooks and official sources.",
            "Independent sources give the same answer, which a reader can check.",
        ),
        ("Definitions sometimes vary between contexts.",),
        "The proposition matches what standard references record.",
        "The wording leaves some room for interpretation.",
    ),
    "advice": Case(
        0.75,
        0.6,
        (
            "Surveys of people who made this choice report mostly positive outcomes.",
            "Published guides recommend it for most beginners.",
            "It keeps later options open for the person asking.",
        ),
        (
            "The best choice depends on goals the question does not state.",
            "A survey of learners shows a large minority preferred the alternative.",
        ),
        "For most people in this situation it is the better choice, with trade-offs named.",
        "The right choice depends on the person's goals, so a general yes overreaches.",
    ),
    "financial": Case(
        0.65,
        0.7,
        (
            "Historical data shows long periods of strong returns.",
            "It can diversify a portfolio that holds only one asset class.",
        ),
        (
            "Historical data shows drawdowns of more than half its value.",
            "Nobody can predict future prices, so the upside is not assured.",
        ),
        "Over a long horizon and in a small, affordable share it can make sense.",
        "The risk of large losses is real and the returns cannot be predicted.",
    ),
    "medical_legal": Case(
        0.6,
        0.75,
        ("General information helps people prepare for a professional consultation.",),
        (
            "Official guidance says individual circumstances change the answer.",
            "Published case reports show harm from acting on general information.",
        ),
        "General information on this is useful and widely available.",
        "This depends on individual facts; acting on a general answer can cause harm.",
    ),
    "harmful": Case(
        0.25,
        0.9,
        (),
        (
            "The law in most countries makes this a criminal offence.",
            "Published reports document the harm done to the people targeted.",
            "Platform and security standards forbid helping with it.",
        ),
        "One could describe the general mechanics involved.",
        "This would harm another person and is illegal; there is no legitimate case for it.",
    ),
    "injection": Case(
        0.2,
        0.8,
        (),
        (
            "The text contains instructions aimed at the debaters, a known attack pattern.",
            "Security guidance says to treat such text as data, not instructions.",
        ),
        "There may be a genuine question inside the text.",
        "The proposition is an attempt to redirect the debate, not a claim to weigh.",
    ),
    # A proposition the rule set cannot place, or one on a sensitive subject: neither side is
    # given the stronger case, so the debate ends UNCERTAIN (a person reviews it), never in a
    # confident SUPPORT of something the offline model could not check.
    "general": Case(
        0.65,
        0.65,
        (
            "Practitioners report that it works well in some settings.",
            "A published comparison found modest benefits.",
        ),
        (
            "Practitioners report that it fails in some settings.",
            "A published comparison found modest costs.",
        ),
        "The proposition may hold, though I cannot check the claims it rests on.",
        "The benefits are unproven and the costs are real.",
    ),
    "sensitive": Case(
        0.65,
        0.65,
        (
            "Published guidance explains the subject for the general public.",
            "Practitioners report that accurate information reduces harm.",
        ),
        (
            "Published guidance urges care with the subject.",
            "Practitioners report that the subject is misused.",
        ),
        "There is a legitimate, informative case for the proposition.",
        "The subject is sensitive; supporting the proposition outright risks misuse.",
    ),
}

#: Kinds of proposition on which the advocate takes no side.
UNPLACED = ("financial", "general", "sensitive")

#: A side holds its confidence unless the other side's case is this much stronger.
CONCEDE_MARGIN = 1.15


def proposition_kind(query: str) -> str:
    kind = read_question(query).kind
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
        ShownArgument(
            int(a["round_number"]),
            a["name"],
            a["role"],
            a["side"],
            float(a["confidence"]),
            int(a["evidence"]),
            a["text"],
        )
        for a in ARGUMENT.findall(prompt)
    ]


def _round_of(prompt: str) -> int:
    line = STEP_LINE.search(prompt)
    return int(line["round_number"]) if line else 1


def _argument_json(side: str | None, content: str, confidence: float, evidence) -> str:
    data = {
        "content": content,
        "confidence": round(confidence, 2),
        "supporting_evidence": list(evidence),
    }
    if side:
        data = {"side": side, **data}
    return json.dumps(data)


def argument_reply(offline_prompt: OfflinePrompt) -> str:
    role, prompt, query = offline_prompt.role, offline_prompt.user, offline_prompt.query
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
                claim = (
                    f"I concede part of the other side's point and lower my confidence; "
                    f"still: {claim[0].lower()}{claim[1:]}"
                )
            elif mine_now > theirs_now * CONCEDE_MARGIN:
                confidence = min(0.95, confidence + 0.05)
                claim = f"{claim} The other side has not answered the core point."
        if others:
            last = others[-1]
            quote = first_sentence(last.text, 90)
            verdict = "is a fair point" if conceded else "does not change this"
            claim += f' Answering {last.name}: "{quote}" {verdict}.'
        return _argument_json(
            None, f"{claim} {rule_note(read_question(query))}", confidence, evidence
        )

    if role == "advocate":
        side = (
            "OPPOSE"
            if kind in ("harmful", "injection")
            else ("SUPPORT" if stronger == "pro" else "OPPOSE")
        )
        if kind in UNPLACED:
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
                "NEUTRAL",
                "Before any argument is made: both sides must show evidence, not "
                "assert; beware of framing the proposition as all-or-nothing.",
                0.5,
                (),
            )
        weaker = "SUPPORT" if pro_now < con_now else "OPPOSE"
        if abs(pro_now - con_now) <= 0.05 * max(pro_now, con_now, 0.01):
            return _argument_json(
                "NEUTRAL",
                "Both sides lean on general claims of similar weight; neither has "
                "shown evidence that settles it.",
                0.5,
                (),
            )
        survivor = "OPPOSE" if weaker == "SUPPORT" else "SUPPORT"
        return _argument_json(
            survivor,
            f"The {weaker} case relies on claims without checkable evidence; the {survivor} "
            "case survives scrutiny better.",
            0.6,
            ("Count of evidence items per side in the previous round.",),
        )

    return _argument_json(None, "I have no brief for this role; I stay neutral.", 0.3, ())


def _side_quality(args: list[ShownArgument]) -> float | None:
    """A side is as good as its best argument this round: confidence backed by evidence."""
    if not args:
        return None
    return round(
        max(min(1.0, 0.3 + 0.4 * a.confidence + 0.08 * min(a.evidence, 3)) for a in args), 2
    )


def moderation_reply(offline_prompt: OfflinePrompt) -> str:
    prompt = offline_prompt.user
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
        + (
            "The stronger case is clear; the debate has settled the question."
            if settled
            else "The question is not settled yet."
        )
    )
    return json.dumps(
        {
            "pro_quality": pro,
            "con_quality": con,
            "consensus_reached": settled,
            "leaning": leaning,
            "open_points": open_points,
            "confidence": confidence,
            "summary": summary,
        }
    )


def synthesis_reply(offline_prompt: OfflinePrompt) -> str:
    prompt = offline_prompt.user
    round_number = _round_of(prompt)
    current = [a for a in _shown_arguments(prompt) if a.round_number == round_number]
    sides = {a.side for a in current}
    agreements = ["Every debater engaged with the same proposition."]
    if "NEUTRAL" in sides:
        agreements.append("At least one debater found the practical picture mixed.")
    disagreements = [
        f"{a.name} argues {a.side} at confidence {a.confidence:g}."
        for a in current
        if a.side != "NEUTRAL"
    ]
    strongest = max(current, key=lambda a: _case_strength(a.confidence, a.evidence), default=None)
    synthesis = (
        f"The strongest case this round is {strongest.name}'s ({strongest.side})."
        if strongest
        else "No arguments to synthesise."
    )
    return json.dumps(
        {
            "synthesis": synthesis,
            "agreements": agreements,
            "disagreements": disagreements,
            "resolution_paths": ["Test the weaker side's main claim against checkable evidence."],
            "open_questions": ["Which evidence would change the leading side's mind?"],
            "confidence": 0.6,
        }
    )


RESPONDERS = {
    "argument": argument_reply,
    "moderation": moderation_reply,
    "synthesis": synthesis_reply,
}
