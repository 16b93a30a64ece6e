"""Reading a question before a debate: does it call for a round-robin debate, is it about an
investment? Pure functions of the question text, so the choice can be explained and tested.

Trigger detection (`auto`) follows seed 004: a question that asks for an investment decision,
a recommendation, advice, an opinion, a strategy or an assessment is debated round-robin by the
specialist agents; anything else goes to the S4 debate. The seed's keyword "investment" is
widened to its stem "invest", so that the seed's own example ("Should I invest in Tesla
(TSLA) considering all factors?") triggers it too. Keywords match at the start of a word,
case-insensitively ("assess" matches "assessment", not "reassess").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEBATE_TRIGGER_KEYWORDS: tuple[str, ...] = (
    "invest",
    "recommendation",
    "should i buy",
    "should i sell",
    "portfolio",
    "analysis",
    "comprehensive",
    "opinion",
    "advice",
    "strategy",
    "evaluate",
    "assess",
)

#: Words that make a question an investment question, whose stances are BUY / HOLD / SELL.
INVESTMENT_KEYWORDS: tuple[str, ...] = (
    "invest",
    "stock",
    "shares",
    "share price",
    "equity",
    "equities",
    "portfolio",
    "bitcoin",
    "crypto",
    "ethereum",
    "etf",
    "index fund",
    "mutual fund",
    "bond",
    "dividend",
    "ticker",
    "should i buy",
    "should i sell",
    "buy or sell",
    "trading",
    "market cap",
)

#: A ticker written in parentheses, as in "Tesla (TSLA)".
TICKER_RE = re.compile(r"\(\$?[A-Z]{1,5}\)")


def _matches(text: str, keywords: tuple[str, ...]) -> list[str]:
    lowered = text.lower()
    return [k for k in keywords if re.search(r"\b" + re.escape(k), lowered)]


@dataclass(frozen=True)
class ProtocolChoice:
    requested: str
    chosen: str
    reason: str
    matched_keywords: tuple[str, ...]

    def as_dict(self) -> dict:
        return {
            "requested": self.requested,
            "chosen": self.chosen,
            "reason": self.reason,
            "matched_keywords": list(self.matched_keywords),
        }


def requires_debate_analysis(query: str) -> list[str]:
    """The seed-004 trigger keywords found in `query` (empty: no round-robin debate needed)."""
    return _matches(query, DEBATE_TRIGGER_KEYWORDS)


def choose_protocol(query: str, fallback: str = "s4") -> ProtocolChoice:
    """What `auto` means: round_robin when a trigger keyword is present, otherwise `fallback`
    (s4, or vote where the evaluation shows debate adds nothing: setting DEBATE_AUTO_FALLBACK)."""
    matched = requires_debate_analysis(query)
    if matched:
        return ProtocolChoice(
            requested="auto",
            chosen="round_robin",
            reason=f"matched keyword '{matched[0]}'",
            matched_keywords=tuple(matched),
        )
    return ProtocolChoice(
        requested="auto",
        chosen=fallback,
        reason="no debate trigger keyword (investment, recommendation, advice, ...) matched"
        + ("" if fallback == "s4" else f"; {fallback} is configured for the rest"),
        matched_keywords=(),
    )


def is_investment_question(query: str) -> bool:
    return bool(_matches(query, INVESTMENT_KEYWORDS) or TICKER_RE.search(query))
