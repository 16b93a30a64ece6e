"""Which claims in a set of agent reports contradict each other. Plain Python: no ORM, no LLM.

`detect(claims, thresholds)` compares every two claims about the same metric that come from
different reports (an agent never contradicts itself: two figures of its own for one metric are
usually two periods). Metric names are matched after normalisation (case, spacing, underscores,
hyphens and other punctuation: "Qatar Unemployment-Rate" is `qatar_unemployment_rate`).

The rules (docs/concepts/contradictions.md#detection-rules), each with a name stored on the
contradiction:

==========================  =====================================================================
rule                        fires when
==========================  =====================================================================
``value_gap``               both claims give a number, in the same unit, and the numbers are more
                            than `value_threshold` apart (default 5 %), relative to the larger
                            magnitude: ``|a - b| / max(|a|, |b|)``. Exactly at the threshold is
                            not more. Zero against non-zero is 100 %; opposite signs are more
                            than 100 % (-2 against 2 is 200 %); two zeros agree.
``interpretation_conflict`` both claims read the metric on the same scale and differ: a trend
                            (improving / increasing / rising ... against declining / decreasing /
                            falling ..., with stable in the middle) or a position (ACT / WARN /
                            REFUSE, SUPPORT / UNCERTAIN / OPPOSE, BUY / HOLD / SELL). Words that
                            are on no scale are never compared: no guessing.
``confidence_gap``          the claims agree (same number within the threshold, or the same
                            reading) but their confidences are `confidence_gap` (default 0.3) or
                            more apart: the same claim held at very different confidence.
``source_conflict``         with ``value_gap``: the two numbers come from different named sources
                            (the arbitrator must weigh the sources against each other).
==========================  =====================================================================

Units: compared after normalisation (``%``, ``percent``, ``pct`` are one unit; so are ``pp`` and
``percentage points``). A claim without a unit takes the metric's unit, so it is compared with
any. Two different units (``USD`` and ``QAR``) are **not compared**: a conversion would be a
guess. Each such skipped comparison is reported in `Detection.notes`.

Severity of a pair, from the size of the gap and the confidences::

    value_gap: relative gap >= 50 % -> high, >= 15 % -> medium, otherwise low
    interpretation_conflict: opposite ends of a scale (improving / declining, ACT / REFUSE)
        -> medium; neighbours (stable / declining, ACT / WARN) -> low
    confidence_gap alone -> low
    then, when a value or interpretation rule fired: both confidences >= 0.8 -> one level up
    (two confident agents disagreeing); either confidence < 0.5 -> one level down (a weak claim)

A contradiction is one metric: every claim involved in a conflicting pair, the pairs that
actually conflict (three agents where two agree give two pairs, read as one multi-way case), the
rules that fired, the largest relative gap and the highest severity of its pairs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

VALUE_GAP = "value_gap"
INTERPRETATION_CONFLICT = "interpretation_conflict"
CONFIDENCE_GAP = "confidence_gap"
SOURCE_CONFLICT = "source_conflict"
RULES: tuple[str, ...] = (VALUE_GAP, INTERPRETATION_CONFLICT, CONFIDENCE_GAP, SOURCE_CONFLICT)
RULE_LABELS = {
    VALUE_GAP: "values differ",
    INTERPRETATION_CONFLICT: "conflicting interpretations",
    CONFIDENCE_GAP: "same claim, very different confidence",
    SOURCE_CONFLICT: "sources disagree",
}

LOW, MEDIUM, HIGH = "low", "medium", "high"
SEVERITIES: tuple[str, ...] = (LOW, MEDIUM, HIGH)
HIGH_GAP = Decimal("0.5")
MEDIUM_GAP = Decimal("0.15")
CONFIDENT = 0.8
WEAK = 0.5

DEFAULT_VALUE_THRESHOLD = Decimal("0.05")
DEFAULT_CONFIDENCE_GAP = 0.3


@dataclass(frozen=True)
class Thresholds:
    value_threshold: Decimal = DEFAULT_VALUE_THRESHOLD
    confidence_gap: float = DEFAULT_CONFIDENCE_GAP


@dataclass(frozen=True)
class Claim:
    """One finding of one report. `ref` identifies it to the caller (a stored row's id);
    `report` identifies its report: claims of one report are never compared."""

    ref: Hashable
    report: Hashable
    agent: str
    metric: str
    value: Decimal | None = None
    unit: str = ""
    source: str = ""
    period: str = ""
    citation: str = ""
    confidence: float = 1.0
    interpretation: str = ""

    @property
    def metric_key(self) -> str:
        return normalise_metric(self.metric)


@dataclass(frozen=True)
class ConflictPair:
    first: Hashable
    second: Hashable
    rules: tuple[str, ...]
    severity: str
    relative_gap: Decimal | None = None
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Contradiction:
    metric_key: str
    metric: str
    claims: tuple[Claim, ...]
    pairs: tuple[ConflictPair, ...]
    rules: tuple[str, ...]
    severity: str
    relative_gap: Decimal | None = None

    @property
    def is_multiway(self) -> bool:
        return len(self.claims) > 2

    @property
    def severity_reason(self) -> str:
        return "; ".join(r for p in self.pairs for r in p.reasons)


@dataclass(frozen=True)
class Detection:
    contradictions: tuple[Contradiction, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)


# --- normalisation ------------------------------------------------------------------------------

_NON_WORD = re.compile(r"[^0-9a-z]+")


def normalise_metric(name: str) -> str:
    """Case, spacing, underscores, hyphens and other punctuation do not make a new metric."""
    text = unicodedata.normalize("NFKC", name or "").lower()
    return _NON_WORD.sub("_", text).strip("_")


_UNIT_ALIASES = {
    "%": "%",
    "percent": "%",
    "per cent": "%",
    "pct": "%",
    "percentage": "%",
    "pp": "pp",
    "p.p.": "pp",
    "percentage point": "pp",
    "percentage points": "pp",
    "bp": "bp",
    "bps": "bp",
    "basis point": "bp",
    "basis points": "bp",
    "$": "usd",
    "us$": "usd",
    "usd": "usd",
    "us dollar": "usd",
    "us dollars": "usd",
}


def normalise_unit(unit: str) -> str:
    text = " ".join(unicodedata.normalize("NFKC", unit or "").lower().split())
    return _UNIT_ALIASES.get(text, text)


def normalise_source(source: str) -> str:
    return " ".join(_NON_WORD.sub(" ", unicodedata.normalize("NFKC", source or "").lower()).split())


# Scales of readings: each word has a place; 0 and 2 are opposite ends, 1 the middle.
_SCALES: dict[str, dict[str, int]] = {
    "trend": {
        **dict.fromkeys(
            (
                "improving",
                "improved",
                "improvement",
                "increasing",
                "increased",
                "increase",
                "rising",
                "rise",
                "risen",
                "growing",
                "growth",
                "grew",
                "up",
                "upward",
                "higher",
                "strengthening",
                "expanding",
                "expansion",
                "accelerating",
            ),
            0,
        ),
        **dict.fromkeys(
            ("stable", "flat", "unchanged", "steady", "constant", "no change", "stagnant"), 1
        ),
        **dict.fromkeys(
            (
                "declining",
                "declined",
                "decline",
                "decreasing",
                "decreased",
                "decrease",
                "falling",
                "fell",
                "fall",
                "worsening",
                "worsened",
                "deteriorating",
                "down",
                "downward",
                "lower",
                "weakening",
                "contracting",
                "contraction",
                "shrinking",
                "slowing",
            ),
            2,
        ),
    },
    "decision": {"act": 0, "warn": 1, "refuse": 2, "veto": 2},
    "stance": {"support": 0, "uncertain": 1, "neutral": 1, "oppose": 2},
    "investment": {"buy": 0, "hold": 1, "sell": 2},
}
_HEDGES = {
    "slightly",
    "strongly",
    "rapidly",
    "sharply",
    "gradually",
    "steadily",
    "modestly",
    "broadly",
    "largely",
    "mostly",
    "moderately",
    "significantly",
    "clearly",
}


@dataclass(frozen=True)
class Reading:
    scale: str
    place: int
    word: str


def read_interpretation(text: str) -> Reading | None:
    """The scale and place of an interpretation, or None when it is on no scale.

    Accepted: one word or phrase of a scale, optionally after a hedge ("slightly improving").
    Anything else (including negations such as "not improving") is not read.
    """
    words = normalise_source(text).split()
    if len(words) >= 2 and words[0] in _HEDGES:
        words = words[1:]
    phrase = " ".join(words)
    for scale, places in _SCALES.items():
        if phrase in places:
            return Reading(scale, places[phrase], phrase)
    return None


# --- comparing two claims -----------------------------------------------------------------------


def relative_gap(a: Decimal, b: Decimal) -> Decimal:
    """|a - b| relative to the larger magnitude: 0 for equal values, up to 2 for opposite ones."""
    larger = max(abs(a), abs(b))
    if larger == 0:
        return Decimal(0)
    return abs(a - b) / larger


def units_comparable(a: str, b: str) -> bool:
    ua, ub = normalise_unit(a), normalise_unit(b)
    return not ua or not ub or ua == ub


def format_value(value: Decimal | None, unit: str = "") -> str:
    if value is None:
        return "no value"
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    text = "0" if text in ("-0", "") else text
    unit = (unit or "").strip()
    if not unit:
        return text
    return f"{text}{unit}" if unit == "%" else f"{text} {unit}"


def format_gap(gap: Decimal) -> str:
    return f"{(gap * 100).quantize(Decimal('0.1'))} %"


def _level_up(level: str, steps: int) -> str:
    index = min(max(SEVERITIES.index(level) + steps, 0), len(SEVERITIES) - 1)
    return SEVERITIES[index]


def compare(a: Claim, b: Claim, thresholds: Thresholds = Thresholds()) -> ConflictPair | None:
    """The conflict between two claims about one metric, or None when they agree."""
    rules: list[str] = []
    reasons: list[str] = []
    levels: list[str] = []
    gap: Decimal | None = None
    values_agree = False
    if a.value is not None and b.value is not None and units_comparable(a.unit, b.unit):
        gap = relative_gap(a.value, b.value)
        unit = a.unit or b.unit
        # Decided without dividing, so the comparison with the threshold is exact.
        if abs(a.value - b.value) > thresholds.value_threshold * max(abs(a.value), abs(b.value)):
            rules.append(VALUE_GAP)
            level = HIGH if gap >= HIGH_GAP else MEDIUM if gap >= MEDIUM_GAP else LOW
            levels.append(level)
            reasons.append(
                f"{a.agent} {format_value(a.value, unit)} vs {b.agent} "
                f"{format_value(b.value, unit)}: {format_gap(gap)} apart ({level})"
            )
            if (
                normalise_source(a.source)
                and normalise_source(b.source)
                and normalise_source(a.source) != normalise_source(b.source)
            ):
                rules.append(SOURCE_CONFLICT)
        else:
            values_agree = True
    readings_agree = False
    ra, rb = read_interpretation(a.interpretation), read_interpretation(b.interpretation)
    if ra and rb and ra.scale == rb.scale:
        if ra.place != rb.place:
            rules.append(INTERPRETATION_CONFLICT)
            level = MEDIUM if abs(ra.place - rb.place) == 2 else LOW
            levels.append(level)
            reasons.append(f"{a.agent} reads it as {ra.word}, {b.agent} as {rb.word} ({level})")
        else:
            readings_agree = True
    if levels:
        low_confidence = min(a.confidence, b.confidence)
        severity = max(levels, key=SEVERITIES.index)
        if low_confidence >= CONFIDENT:
            severity = _level_up(severity, 1)
            reasons.append(f"both agents are confident (>= {CONFIDENT:g}): one level up")
        elif low_confidence < WEAK:
            severity = _level_up(severity, -1)
            reasons.append(f"a claim held at confidence below {WEAK:g}: one level down")
    elif (values_agree or readings_agree) and (
        abs(a.confidence - b.confidence) >= thresholds.confidence_gap - 1e-9
    ):
        rules.append(CONFIDENCE_GAP)
        severity = LOW
        reasons.append(
            f"the same claim at confidence {a.confidence:g} ({a.agent}) and "
            f"{b.confidence:g} ({b.agent}) (low)"
        )
    else:
        return None
    ordered = tuple(r for r in RULES if r in rules)
    return ConflictPair(
        a.ref, b.ref, ordered, severity, gap if VALUE_GAP in rules else None, tuple(reasons)
    )


# --- a whole set of reports ---------------------------------------------------------------------


def detect(claims: Iterable[Claim], thresholds: Thresholds = Thresholds()) -> Detection:
    """Every metric on which claims from different reports conflict, in order of appearance."""
    by_metric: dict[str, list[Claim]] = {}
    for claim in claims:
        by_metric.setdefault(claim.metric_key, []).append(claim)
    found: list[Contradiction] = []
    notes: list[str] = []
    for key, group in by_metric.items():
        pairs: list[ConflictPair] = []
        skipped: dict[tuple[str, str], set[str]] = {}
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if a.report == b.report:
                    continue
                if (
                    a.value is not None
                    and b.value is not None
                    and not units_comparable(a.unit, b.unit)
                ):
                    units = tuple(sorted((normalise_unit(a.unit), normalise_unit(b.unit))))
                    skipped.setdefault(units, set()).update((a.agent, b.agent))
                pair = compare(a, b, thresholds)
                if pair is not None:
                    pairs.append(pair)
        for (u1, u2), agents in skipped.items():
            notes.append(
                f"{group[0].metric}: values in different units ({u1} and {u2}) were not "
                f"compared ({', '.join(sorted(agents))}); a conversion would be a guess."
            )
        if not pairs:
            continue
        involved = {p.first for p in pairs} | {p.second for p in pairs}
        members = tuple(c for c in group if c.ref in involved)
        gaps = [p.relative_gap for p in pairs if p.relative_gap is not None]
        found.append(
            Contradiction(
                metric_key=key,
                metric=group[0].metric.strip(),
                claims=members,
                pairs=tuple(pairs),
                rules=tuple(r for r in RULES if any(r in p.rules for p in pairs)),
                severity=max((p.severity for p in pairs), key=SEVERITIES.index),
                relative_gap=max(gaps) if gaps else None,
            )
        )
    return Detection(tuple(found), tuple(notes))


def slot_pairs(contradiction: Contradiction) -> list[tuple[int, int]]:
    """The conflicting pairs as 1-based positions in `contradiction.claims` (Agent 1, 2 ...)."""
    slots = {c.ref: i for i, c in enumerate(contradiction.claims, start=1)}
    return [(slots[p.first], slots[p.second]) for p in contradiction.pairs]


def agreeing(claims: Sequence[Claim], pairs: Sequence[ConflictPair]) -> dict[Hashable, set]:
    """For each claim, the claims it does not conflict with (itself included)."""
    conflicts = {frozenset((p.first, p.second)) for p in pairs}
    return {
        a.ref: {
            b.ref for b in claims if a.ref == b.ref or frozenset((a.ref, b.ref)) not in conflicts
        }
        for a in claims
    }
