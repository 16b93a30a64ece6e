"""Reading a question before a debate: does it call for a round-robin debate, is it about an
investment? Pure functions of the question text, so the choice can be explained and tested.

Trigger detection (`auto`, docs/concepts/index.md#trigger-keywords): a question that asks for an
investment decision, a recommendation, advice, an opinion, a strategy or an assessment is
debated round-robin by the specialist agents; anything else goes to the fallback (S4 by
default). The listed keyword "investment" is widened to its stem "invest", so that "Should I
invest in Tesla (TSLA) considering all factors?" triggers it too. Keywords match at the start of
a word, case-insensitively ("assess" matches "assessment", not "reassess").

The `auto` choice's reason says which it was: a keyword of the list itself
(`LISTED_TRIGGER_KEYWORDS`: "matched the trigger keyword 'advice'") or a widening (`WIDENINGS`:
"matched 'invest' ("investing"), a widening of the trigger keyword 'investment' to its stem").
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

#: The trigger keywords as the docs list them (docs/concepts/index.md#trigger-keywords).
LISTED_TRIGGER_KEYWORDS: tuple[str, ...] = (
    "investment",
    "recommendation",
    "should i buy",
    "should i sell",
    "investment decision",
    "portfolio",
    "analysis",
    "comprehensive",
    "opinion",
    "advice",
    "strategy",
    "evaluate",
    "assess",
)

#: The keywords that are not on the list, and how each widens it. ("invest": "Should I invest
#: in Tesla (TSLA) considering all factors?" holds no "investment", yet it asks for an
#: investment decision and so triggers the debate.)
WIDENINGS: dict[str, str] = {
    "invest": "a widening of the trigger keyword 'investment' to its stem",
}

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
class KeywordMatch:
    """One trigger keyword found in a question: the `text` it matched ("investment" for
    "invest"), and either the listed keyword that text is or the widening that let it match."""

    keyword: str
    text: str
    listed_keyword: str | None
    widening: str = ""

    @property
    def reason(self) -> str:
        if self.listed_keyword:
            shown = "" if self.listed_keyword.startswith(self.text) else f' ("{self.text}")'
            return f"matched the trigger keyword '{self.listed_keyword}'{shown}"
        return f"matched '{self.keyword}' (\"{self.text}\"), {self.widening}"

    def as_dict(self) -> dict:
        return {
            "keyword": self.keyword,
            "text": self.text,
            "listed_keyword": self.listed_keyword,
            "widening": self.widening or None,
        }


def keyword_matches(query: str) -> list[KeywordMatch]:
    """Every trigger keyword in `query`, in the keyword list's order, each explained."""
    lowered = query.lower()
    found = []
    for keyword in DEBATE_TRIGGER_KEYWORDS:
        match = re.search(r"\b" + re.escape(keyword), lowered)
        if not match:
            continue
        start = match.start()
        rest = re.match(r"[\w'-]*", lowered[match.end() :]).group(0)
        text = lowered[start : match.end()] + rest
        listed = max(
            (k for k in LISTED_TRIGGER_KEYWORDS if lowered.startswith(k, start)),
            key=len,
            default=None,
        )
        widening = "" if listed else WIDENINGS.get(keyword, "a widening")
        found.append(KeywordMatch(keyword, text, listed, widening))
    return found


@dataclass(frozen=True)
class ProtocolChoice:
    requested: str
    chosen: str
    reason: str
    matched_keywords: tuple[str, ...]
    matches: tuple[KeywordMatch, ...] = ()

    def as_dict(self) -> dict:
        return {
            "requested": self.requested,
            "chosen": self.chosen,
            "reason": self.reason,
            "matched_keywords": list(self.matched_keywords),
            "matches": [m.as_dict() for m in self.matches],
        }


def requires_debate_analysis(query: str) -> list[str]:
    """The trigger keywords found in `query` (empty: no round-robin debate needed)."""
    return _matches(query, DEBATE_TRIGGER_KEYWORDS)


def choose_protocol(query: str, fallback: str = "s4") -> ProtocolChoice:
    """What `auto` means: round_robin when a trigger keyword is present, otherwise `fallback`
    (s4, or vote where the evaluation shows debate adds nothing: setting DEBATE_AUTO_FALLBACK)."""
    matches = keyword_matches(query)
    if matches:
        # A keyword of the list itself explains the choice best; else the first widening.
        first = next((m for m in matches if m.listed_keyword), matches[0])
        return ProtocolChoice(
            requested="auto",
            chosen="round_robin",
            reason=first.reason,
            matched_keywords=tuple(m.keyword for m in matches),
            matches=tuple(matches),
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
