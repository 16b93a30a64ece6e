"""Reading the moderated debates' replies: a debater's argument, the moderator's evaluation
and the refiner's synthesis. Confidences are on the 0..1 scale. Never raises."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agents.parsing import (
    get_field,
    parse_decision_label,
    parse_unit_interval,
)
from protocols.parsing import (
    read_flag,
    reply_object,
    short_repr,
    string_list,
    text_field,
    unit_confidence,
)

# ---------------------------------------------------------------------------
# Moderated debate: arguments, the moderator's evaluation, the refiner's synthesis
# ---------------------------------------------------------------------------

SIDES: tuple[str, ...] = ("SUPPORT", "OPPOSE", "NEUTRAL")


@dataclass(frozen=True)
class ParsedArgument:
    """A debater's argument (docs/concepts/moderated.md#prompt-shapes), without the round, which
    we know.

    ``confidence`` is on the 0..1 scale. ``side`` is the side the argument argues for, when
    the debater chooses it (advocate, critic); ``None`` when its role fixes it.
    """

    content: str
    confidence: float
    supporting_evidence: tuple[str, ...]
    side: str | None
    parse_failed: bool
    error: str = ""
    notes: tuple[str, ...] = ()


def parse_argument(text: str, *, sides: Iterable[str] | None = None) -> ParsedArgument:
    """Read ``{"content", "confidence" (0-1), "supporting_evidence": [...], "side"?}``.

    ``content`` may also be called ``argument`` or ``reasoning``; ``supporting_evidence`` may
    be called ``evidence`` (a single text counts as one item; missing means none, noted).
    When ``sides`` is given the reply must name one of them as ``side`` (or ``stance`` /
    ``position``); a missing or unknown side is read as NEUTRAL with a note: it then counts
    for neither side. Missing content or confidence, or no JSON at all, fails the parse:
    confidence 0 (the argument carries no weight). Never raises.
    """
    try:
        obj, reason = reply_object(text)
        if obj is None:
            return ParsedArgument("", 0.0, (), "NEUTRAL" if sides else None, True, reason)
        notes: list[str] = []
        errors: list[str] = []
        content = text_field(obj, ("content", "argument", "reasoning"), notes)
        if not content:
            errors.append("content missing")
        confidence = unit_confidence(obj, errors, notes)
        evidence = string_list(obj, ("supporting_evidence", "evidence"), notes)
        if not evidence:
            notes.append("no supporting evidence given")
        side = None
        if sides:
            allowed = tuple(sides)
            raw_side = get_field(obj, "side", "stance", "position")
            side = parse_decision_label(raw_side, allowed) if raw_side is not None else None
            if side is None:
                shown = "missing" if raw_side is None else short_repr(raw_side)
                notes.append(f"side {shown} is not one of {', '.join(allowed)}; read as NEUTRAL")
                side = "NEUTRAL"
        if errors:
            return ParsedArgument(
                content, 0.0, tuple(evidence), side, True, "; ".join(errors), tuple(notes)
            )
        return ParsedArgument(content, confidence, tuple(evidence), side, False, "", tuple(notes))
    except Exception as exc:  # noqa: BLE001 - never raise on model output
        return ParsedArgument("", 0.0, (), None, True, f"parser error: {type(exc).__name__}")


@dataclass(frozen=True)
class ParsedModeration:
    """The moderator's evaluation of one round. Scores are on the 0..1 scale; a quality the
    moderator did not give is ``None`` (the decision rules then use a stated neutral value)."""

    pro_quality: float | None
    con_quality: float | None
    consensus_reached: bool
    leaning: str
    open_points: tuple[str, ...]
    confidence: float
    summary: str
    parse_failed: bool
    error: str = ""
    notes: tuple[str, ...] = ()


def parse_moderation(text: str) -> ParsedModeration:
    """Read ``{"pro_quality", "con_quality", "consensus_reached", "leaning", "open_points",
    "confidence", "summary"}``.

    Qualities and confidence are 0..1 (:func:`parse_unit_interval`); ``proponent_quality`` /
    ``opponent_quality`` are accepted too. ``consensus_reached`` is a boolean (``"yes"`` /
    ``"no"`` accepted; missing reads as false). ``leaning`` is one of SUPPORT, OPPOSE,
    NEUTRAL (anything else reads as NEUTRAL). A missing or unreadable confidence, or no JSON,
    fails the parse with confidence 0, which can never end the debate early. Never raises.
    """
    try:
        obj, reason = reply_object(text)
        if obj is None:
            return ParsedModeration(None, None, False, "NEUTRAL", (), 0.0, "", True, reason)
        notes: list[str] = []
        errors: list[str] = []
        confidence = unit_confidence(obj, errors, notes)
        qualities: list[float | None] = []
        for names in (("pro_quality", "proponent_quality"), ("con_quality", "opponent_quality")):
            raw = get_field(obj, *names)
            value = parse_unit_interval(raw) if raw is not None else None
            if value is None:
                shown = "missing" if raw is None else short_repr(raw)
                notes.append(f"{names[0]} {shown}: not rated")
            qualities.append(value)
        raw_flag = get_field(obj, "consensus_reached", "consensus")
        consensus = read_flag(raw_flag)
        if consensus is None:
            notes.append(f"consensus_reached {short_repr(raw_flag)} read as false")
            consensus = False
        raw_leaning = get_field(obj, "leaning")
        leaning = parse_decision_label(raw_leaning, SIDES) if raw_leaning is not None else None
        if leaning is None:
            leaning = "NEUTRAL"
        open_points = string_list(obj, ("open_points", "key_points"), notes)
        summary = text_field(obj, ("summary", "reasoning", "evaluation"), notes)
        if errors:
            return ParsedModeration(
                qualities[0],
                qualities[1],
                False,
                leaning,
                tuple(open_points),
                0.0,
                summary,
                True,
                "; ".join(errors),
                tuple(notes),
            )
        return ParsedModeration(
            qualities[0],
            qualities[1],
            consensus,
            leaning,
            tuple(open_points),
            confidence,
            summary,
            False,
            "",
            tuple(notes),
        )
    except Exception as exc:  # noqa: BLE001 - never raise on model output
        return ParsedModeration(
            None, None, False, "NEUTRAL", (), 0.0, "", True, f"parser error: {type(exc).__name__}"
        )


@dataclass(frozen=True)
class ParsedSynthesis:
    synthesis: str
    agreements: tuple[str, ...]
    disagreements: tuple[str, ...]
    resolution_paths: tuple[str, ...]
    open_questions: tuple[str, ...]
    confidence: float
    parse_failed: bool
    error: str = ""
    notes: tuple[str, ...] = ()


def parse_synthesis(text: str) -> ParsedSynthesis:
    """Read the refiner's ``{"synthesis", "agreements", "disagreements", "resolution_paths",
    "open_questions", "confidence"}``. The synthesis text and a 0..1 confidence are required;
    the lists may be missing. Never raises."""
    try:
        obj, reason = reply_object(text)
        if obj is None:
            return ParsedSynthesis("", (), (), (), (), 0.0, True, reason)
        notes: list[str] = []
        errors: list[str] = []
        synthesis = text_field(obj, ("synthesis", "summary", "content"), notes)
        if not synthesis:
            errors.append("synthesis missing")
        confidence = unit_confidence(obj, errors, notes)
        lists = [
            tuple(string_list(obj, (name,), notes))
            for name in ("agreements", "disagreements", "resolution_paths", "open_questions")
        ]
        return ParsedSynthesis(
            synthesis,
            *lists,
            0.0 if errors else confidence,
            bool(errors),
            "; ".join(errors),
            tuple(notes),
        )
    except Exception as exc:  # noqa: BLE001 - never raise on model output
        return ParsedSynthesis("", (), (), (), (), 0.0, True, f"parser error: {type(exc).__name__}")
