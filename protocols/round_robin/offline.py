"""The round-robin specialists (valuation, sentiment, fundamental) as the offline model plays
them: an opening view by kind of investment (or the S4 roles' view on other questions), then
turns that follow, meet in the middle or hold, as the peers' positions warrant."""

from __future__ import annotations

import json

from agents.responders import OfflinePrompt
from protocols.offline import Position, initial_position, read_question, rule_note
from protocols.round_robin.formats import (
    OWN_POSITION,
    PEER_POSITION,
    read_stance_choices,
)

SPECULATIVE_KEYWORDS = (
    "bitcoin",
    "crypto",
    "ethereum",
    "dogecoin",
    "nft",
    "meme stock",
    "penny stock",
)
DIVERSIFIED_KEYWORDS = ("index fund", "etf", "diversif", "retirement", "pension")
#: A specialist this sure of itself is not moved by its peers.
CONVICTION = 80
#: A peer on the most cautious stance with at least this risk pulls the unconvinced to it.
HIGH_RISK = 75.0

INVESTMENT_POSITIONS: dict[str, dict[str, Position]] = {
    "speculative": {
        "valuation": Position(
            "SELL",
            85,
            80,
            "There are no cash flows to value; the price rests on what the next buyer will pay.",
        ),
        "sentiment": Position(
            "BUY",
            82,
            70,
            "News flow and adoption headlines are strongly "
            "positive and momentum is with the buyers.",
        ),
        "fundamental": Position(
            "SELL", 80, 75, "There is no underlying business, revenue or balance sheet to analyse."
        ),
        "default": Position("HOLD", 60, 60, "Speculative; no basis for conviction either way."),
    },
    "diversified": {
        "valuation": Position(
            "BUY",
            70,
            25,
            "Broad-market valuations are near their long-run average, and costs are low.",
        ),
        "sentiment": Position(
            "BUY",
            72,
            30,
            "Analysts broadly recommend low-cost diversified funds for long-term savers.",
        ),
        "fundamental": Position(
            "BUY",
            75,
            25,
            "It owns a slice of many profitable businesses; no single failure sinks it.",
        ),
        "default": Position("BUY", 65, 30, "Diversified and low-cost."),
    },
    "single": {
        "valuation": Position(
            "SELL",
            70,
            55,
            "The multiples price in years of perfect growth; "
            "the downside if growth slows is large.",
        ),
        "sentiment": Position(
            "BUY",
            65,
            45,
            "Recent news and analyst upgrades are positive; the market likes the story.",
        ),
        "fundamental": Position(
            "HOLD",
            60,
            45,
            "Revenue is growing but margins are under pressure; the business is sound, not cheap.",
        ),
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


#: On a harmful question every specialist advises against it: no consensus to act on harm.
HARMFUL_INVESTMENT = Position(
    "SELL",
    85,
    90,
    "The question asks for help with something harmful; no return justifies taking part.",
)


def _opening_position(role: str, query: str, stances: list[str]) -> Position:
    if "BUY" in stances and read_question(query).harmful:
        return HARMFUL_INVESTMENT
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
    return json.dumps(
        {
            "stance": stance,
            "confidence": round(confidence),
            "risk": round(risk),
            "reasoning": reasoning,
            "responds_to": list(responds_to),
        }
    )


def turn_reply(offline_prompt: OfflinePrompt) -> str:
    """Round 1: the specialist's own opening view. Later rounds: it answers its peers. With all
    peers on one other stance it follows them, unless it holds its view with conviction; between
    two opposite peers it meets them in the middle (HOLD / WARN); otherwise it keeps its view."""
    role, prompt = offline_prompt.role.strip().lower(), offline_prompt.user
    stances = read_stance_choices(prompt)
    middle = "HOLD" if "HOLD" in stances else "WARN"
    query = offline_prompt.query
    peer_risks = [
        (peer["name"], peer["decision"], float(peer["confidence"]), float(peer["risk"]))
        for peer in PEER_POSITION.findall(prompt)
        if peer["decision"] in stances
    ]
    peers = [(name, stance, conf) for name, stance, conf, _ in peer_risks]
    own = OWN_POSITION.search(prompt)
    lens = ROLE_LENS.get(role, "my specialty")
    if not own:
        p = _opening_position(role, query, stances)
        others = "; ".join(f"{n} says {s}" for n, s, _ in peers)
        text = f"From {lens}: {p.reasoning}"
        if "[Offline rule set:" not in text:
            text += f" {rule_note(read_question(query))}"
        if others:
            text += f" I note that {others}, but this is my own first read."
        return _turn_json(p.decision, p.confidence, p.risk, text, [])

    stance, confidence, risk = own["decision"], float(own["confidence"]), float(own["risk"])
    disagree = [n for n, s, _ in peers if s != stance]
    peer_stances = {s for _, s, _ in peers}
    cautious = "SELL" if "SELL" in stances else "REFUSE"
    alarmed = [n for n, s, _, r in peer_risks if s == cautious and r >= HIGH_RISK]
    if alarmed and stance != cautious and confidence < CONVICTION:
        return _turn_json(
            cautious,
            70,
            max(risk, HIGH_RISK),
            f"{' and '.join(alarmed)} {_verb(alarmed)} a risk of {HIGH_RISK:g} or more that my "
            f"view from {lens} had not weighed. I change from {stance} to {cautious}.",
            disagree,
        )
    if peers and len(peer_stances) == 1 and stance not in peer_stances and confidence < CONVICTION:
        new = peer_stances.pop()
        conf = min(sum(c for _, _, c in peers) / len(peers), CONVICTION - 5)
        names = [n for n, _, _ in peers]
        return _turn_json(
            new,
            conf,
            risk,
            f"{' and '.join(names)} {'holds' if len(names) == 1 else 'hold'} {new}, and "
            f"{'that answers' if len(names) == 1 else 'their arguments answer'} my concern about "
            f"{lens}. I change from {stance} to {new}.",
            disagree,
        )
    opposite = peer_stances - {stance, middle}
    if stance != middle and middle in peer_stances and opposite and confidence < CONVICTION:
        return _turn_json(
            middle,
            60,
            risk,
            f"My peers split between {', '.join(sorted(peer_stances))}. From {lens} my case "
            f"for {stance} is not strong enough to override theirs; {middle} is the defensible "
            f"position until the evidence is clearer. I change from {stance} to {middle}.",
            disagree,
        )
    agreeing = [n for n, s, _ in peers if s == stance]
    if agreeing:
        confidence = min(confidence + 2, 90)
        text = (
            f"{' and '.join(agreeing)} {'holds' if len(agreeing) == 1 else 'hold'} "
            f"{stance} too; from {lens} I keep {stance}."
        )
    else:
        text = f"From {lens} I keep {stance}."
        if disagree:
            text += f" {', '.join(disagree)} have not answered my point."
    return _turn_json(stance, confidence, risk, text, disagree)


RESPONDERS = {"turn": turn_reply}
