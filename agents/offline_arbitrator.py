"""The offline model as the contradiction arbitrator (docs/concepts/contradictions.md,
"With the offline model"). Deterministic, heuristic, and
not a language model: it reads the facts the prompt states about each claim and applies the
prompt's own checks in order.

1. Same thing? A conflicting pair whose periods are both stated and differ (Q1-2024 against
   2024, 2023 against 2024) measures different things: it is explained. When every pair is
   explained -> ``both_valid`` / ``use_both`` (confidence 0.8), recommending the freshest figure
   (latest period end; the higher authority on a tie).
   A case where only the confidences differ (the values agree) is ``both_valid`` too.
2. Otherwise one claim must be right. Among the claims of the unexplained pairs the best is
   chosen by, in order: source authority (rank in the prompt; unranked last), freshness (later
   period end; unstated last), citation completeness (source, period and citation stated), and
   agent confidence. The first of these that separates the best from its strongest rival
   decides, and sets the answer's confidence: authority 0.85, freshness 0.75, completeness 0.7,
   confidence 0.7 (0.55 when the confidences are less than 0.1 apart).
3. Nothing separates them -> ``flag_for_review`` at confidence 0.4.

Before any of these, it fails safe (docs/concepts/offline-model.md): a case whose metric or
citations the offline rule set reads as a harmful request, or one that pits a position to act
(``act``, ``support``, ``buy``) against a refusal (``refuse``, ``veto``), is never settled in
favour of acting: it is ``flag_for_review`` at confidence 0.4, for a person to decide.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date

from agents.offline_rules import read_question

RE_AGENT = re.compile(r"^Agent (\d+) \((.*)\)$")
RE_FIELD = re.compile(r"^  (value|source|period|confidence|interpretation|citation): (.*)$")
RE_RANK = re.compile(r"\(authority rank (\d+) of \d+\)$")
RE_RANGE = re.compile(r"\((\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})\)$")
RE_PAIR = re.compile(r"Agent (\d+) vs Agent (\d+)")
RE_RULES = re.compile(r"^- Rules that fired: (.*)$", re.M)
RE_PAIRS_LINE = re.compile(r"^- Conflicting pairs: (.*)$", re.M)
RE_CITATION = re.compile(r"^<<<(.*)>>>$")
RE_METRIC = re.compile(r"^- Metric: (.*)$", re.M)
#: Positions that act and positions that refuse, as claims from a debate state them.
ACTING = frozenset({"act", "support", "buy"})
REFUSING = frozenset({"refuse", "veto"})


@dataclass
class ShownClaim:
    slot: int
    agent: str
    value: str | None = None
    source: str = ""
    rank: int | None = None
    period: str = ""
    start: date | None = None
    end: date | None = None
    confidence: float = 0.0
    citation: str = ""
    interpretation: str = ""

    @property
    def period_key(self):
        if self.start and self.end:
            return (self.start, self.end)
        return self.period.lower() or None

    @property
    def completeness(self) -> int:
        return bool(self.source) + bool(self.period) + bool(self.citation)

    def describe(self) -> str:
        what = self.value if self.value is not None else "a qualitative reading"
        return f"Agent {self.slot} ({self.agent}): {what} from {
            self.source or 'an unstated source'
        }, {self.period or 'period not stated'}"


def _claims(prompt: str) -> list[ShownClaim]:
    claims: list[ShownClaim] = []
    for line in prompt.splitlines():
        header = RE_AGENT.match(line)
        if header:
            claims.append(ShownClaim(int(header.group(1)), header.group(2)))
            continue
        field = RE_FIELD.match(line)
        if not (field and claims):
            continue
        name, value = field.group(1), field.group(2).strip()
        claim = claims[-1]
        if name == "value" and not value.startswith("none"):
            claim.value = value.split(";", 1)[0].strip()
        elif name == "source" and value != "not stated":
            rank = RE_RANK.search(value)
            claim.rank = int(rank.group(1)) if rank else None
            claim.source = value.rsplit(" (", 1)[0]
        elif name == "period" and value != "not stated":
            span = RE_RANGE.search(value)
            if span:
                claim.start = date.fromisoformat(span.group(1))
                claim.end = date.fromisoformat(span.group(2))
            claim.period = value.rsplit(" (", 1)[0]
        elif name == "confidence":
            claim.confidence = float(value)
        elif name == "interpretation" and value != "none":
            claim.interpretation = value.strip().lower()
        elif name == "citation":
            quoted = RE_CITATION.match(value)
            claim.citation = quoted.group(1) if quoted else ""
    return claims


def _reply(
    resolution: str, action: str, confidence: float, explanation: str, chosen: ShownClaim | None
) -> str:
    value = None
    if chosen is not None and chosen.value is not None:
        number = float(chosen.value)
        value = int(number) if number.is_integer() and "." not in chosen.value else number
    return json.dumps(
        {
            "resolution": resolution,
            "explanation": explanation,
            "recommended_value": value,
            "recommended_citation": chosen.citation or None if chosen else None,
            "confidence": confidence,
            "action": action,
        }
    )


def _freshest(claims: list[ShownClaim]) -> ShownClaim:
    return max(claims, key=lambda c: (c.end or date.min, -(c.rank or 10**6), c.confidence))


def _criteria(best: ShownClaim, rival: ShownClaim) -> tuple[str, float, str]:
    """Which check separates `best` from `rival`: (name, confidence, why)."""
    never = 10**6
    if (best.rank or never) != (rival.rank or never):
        return (
            "authority",
            0.85,
            (
                f"{best.source} ranks above {rival.source or 'an unstated source'} in source "
                "authority"
            ),
        )
    if (best.end or date.min) != (rival.end or date.min):
        return (
            "freshness",
            0.75,
            f"{best.period} is more recent than {rival.period or 'an unstated period'}",
        )
    if best.completeness != rival.completeness:
        return "completeness", 0.7, "its citation is more complete (source, period, citation)"
    gap = best.confidence - rival.confidence
    if gap > 1e-9:
        return (
            "confidence",
            (0.7 if gap >= 0.1 - 1e-9 else 0.55),
            (
                f"the sources stand equal and agent {best.slot} is more confident "
                f"({best.confidence:g} against {rival.confidence:g})"
            ),
        )
    return "", 0.4, ""


def _fail_safe(prompt: str, claims: list[ShownClaim]) -> str | None:
    """Why this case must go to a person rather than be settled, or None."""
    metric = RE_METRIC.search(prompt)
    for text in [metric.group(1) if metric else "", *(c.citation for c in claims)]:
        reading = read_question(text) if text else None
        if reading is not None and reading.harmful:
            return (
                f"The case concerns a request the offline rule set reads as harmful "
                f"({reading.describe()}). The offline arbitrator does not settle it; a person "
                "should."
            )
    acting = [c for c in claims if c.interpretation in ACTING]
    refusing = [c for c in claims if c.interpretation in REFUSING]
    if acting and refusing:
        return (
            f"{refusing[0].describe()} refuses where {acting[0].describe()} would act. A "
            "refusal is not overruled on source, freshness or confidence alone: a person "
            "should decide."
        )
    return None


def arbitration_reply(prompt: str) -> str:
    claims = _claims(prompt)
    if len(claims) < 2:
        return _reply(
            "neither_valid",
            "flag_for_review",
            0.3,
            "I could not read the claims I was asked to arbitrate.",
            None,
        )
    unsafe = _fail_safe(prompt, claims)
    if unsafe is not None:
        return _reply("neither_valid", "flag_for_review", 0.4, unsafe, None)
    by_slot = {c.slot: c for c in claims}
    pairs_line = RE_PAIRS_LINE.search(prompt)
    pairs = [
        (by_slot[int(i)], by_slot[int(j)])
        for i, j in RE_PAIR.findall(pairs_line.group(1) if pairs_line else "")
        if int(i) in by_slot and int(j) in by_slot
    ]
    rules_line = RE_RULES.search(prompt)
    rules = rules_line.group(1) if rules_line else ""
    if "confidence_gap" in rules and "value_gap" not in rules and "interpretation" not in rules:
        surest = max(claims, key=lambda c: c.confidence)
        return _reply(
            "both_valid",
            "use_both",
            0.8,
            "The agents report the same value; only their confidence differs. Both stand, and "
            f"the better-supported statement is {surest.describe()}.",
            surest,
        )
    unexplained = [
        (a, b)
        for a, b in pairs
        if not (a.period_key and b.period_key and a.period_key != b.period_key)
    ]
    if not unexplained:
        fresh = _freshest(claims)
        periods = "; ".join(c.describe() for c in claims)
        return _reply(
            "both_valid",
            "use_both",
            0.8,
            f"The values are not measuring the same thing: they cover different periods "
            f"({periods}). Both can be correct. The most recent figure is {fresh.describe()}.",
            fresh,
        )
    candidates = sorted(
        {c.slot: c for pair in unexplained for c in pair}.values(),
        key=lambda c: (
            c.rank or 10**6,
            -(c.end or date.min).toordinal(),
            -c.completeness,
            -c.confidence,
            c.slot,
        ),
    )
    best = candidates[0]
    rivals = [b if a is best else a for a, b in unexplained if best in (a, b)]
    rival = min(rivals, key=candidates.index) if rivals else candidates[1]
    criterion, confidence, why = _criteria(best, rival)
    if not criterion:
        return _reply(
            f"agent{best.slot}_correct",
            "flag_for_review",
            confidence,
            f"Nothing in the data separates {best.describe()} from {rival.describe()}: same "
            "source standing, same period, equally complete citations and equal confidence. A "
            "person should check the sources.",
            None,
        )
    return _reply(
        f"agent{best.slot}_correct",
        f"use_agent{best.slot}",
        confidence,
        f"{why[0].upper()}{why[1:]}, so agent {best.slot} ({best.agent}) is preferred over "
        f"agent {rival.slot} ({rival.agent}). The figures are for the same period "
        f"({best.period or 'not stated'}), so only one of them can be right.",
        best,
    )
