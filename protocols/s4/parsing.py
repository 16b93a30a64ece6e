"""Reading S4 replies: an agent's decision (analysis, revision) and a challenge.

Tolerant of format (see `agents.parsing`), strict about meaning: a decision must be exactly one
of the allowed labels, and anything that cannot be read safely falls back to :data:`FAILSAFE`
(REFUSE), as the decision rules require ("Default-to-REFUSE on any parsing failures").

* :func:`parse_agent_decision` -> :class:`ParsedDecision` (never raises).
* :func:`parse_challenge` -> :class:`ParsedChallenge` (never raises).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from agents.parsing import (
    clean_label,
    extract_json_object,
    find_objects,
    get_field,
    parse_decision_label,
    percent_detail,
)
from agents.parsing import (
    format_number as fmt,
)
from protocols.parsing import (
    MAX_ARGUMENT_LENGTH,
    REASONING_KEYS,
    RISK_KEYS,
    short_repr,
    truncate_text,
)

__all__ = [
    "DECISIONS",
    "FAILSAFE",
    "FAILSAFE_REASONING",
    "MAX_ARGUMENT_LENGTH",
    "ParsedChallenge",
    "ParsedDecision",
    "challenge_text",
    "parse_agent_decision",
    "parse_challenge",
]

DECISIONS: tuple[str, ...] = ("ACT", "WARN", "REFUSE", "VETO")

# ---------------------------------------------------------------------------
# Agent decisions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedDecision:
    """An agent's decision as read from its reply.

    ``parse_failed`` is True when the reply could not be read and the fail-safe was
    used; ``error`` then says why (it is ``""`` otherwise). ``notes`` records any
    tolerant reading that changed a value (fractions, clamping, missing reasoning).
    """

    decision: str
    confidence: float
    risk: float
    reasoning: str
    parse_failed: bool
    error: str = ""
    notes: tuple[str, ...] = ()


FAILSAFE_REASONING = "Failed to analyze - defaulting to REFUSE for safety"

#: Returned (with a specific ``error``) whenever a reply cannot be read: REFUSE with
#: confidence 50 and risk 75 ("assume risky when uncertain"), as in the decision rules.
FAILSAFE = ParsedDecision(
    decision="REFUSE",
    confidence=50.0,
    risk=75.0,
    reasoning=FAILSAFE_REASONING,
    parse_failed=True,
    error="reply could not be parsed",
    notes=(),
)


_KV_LINE_RE = re.compile(
    r"""^[\s*_#>-]*
    (?P<key>decision|confidence|risk(?:[ _](?:level|score))?|reasoning|rationale|explanation)
    [\s*_]*[:=][\s*_]*
    (?P<value>.*)$""",
    re.IGNORECASE | re.VERBOSE,
)


def _failsafe(error: str, notes: tuple[str, ...] = ()) -> ParsedDecision:
    return replace(FAILSAFE, error=error, notes=notes)


def _key_value_prose(text: str) -> dict[str, str] | None:
    """Read ``Decision: WARN`` / ``Confidence: 70%`` style prose; None without a decision.

    The reasoning value continues over following lines until the next recognised key.
    """
    fields: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        match = _KV_LINE_RE.match(line)
        if match:
            key = re.sub(r"[ _]+", "_", match.group("key").lower())
            current = key if key not in fields else None
            if current is not None:
                fields[current] = match.group("value").strip()
        elif current in REASONING_KEYS and line.strip():
            fields[current] = (fields[current] + "\n" + line.strip()).strip()
    return fields if "decision" in fields else None


def _reasoning_text(value: Any) -> tuple[str, str | None]:
    if value is None:
        return "", "reasoning missing"
    if isinstance(value, str):
        text = value.strip()
        return text, None if text else "reasoning empty"
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return " ".join(item.strip() for item in value).strip(), "reasoning given as a list"
    return json.dumps(value, default=str), "reasoning was not a string"


def _decision_from_mapping(
    obj: Mapping[str, Any], allowed: tuple[str, ...], notes: list[str]
) -> ParsedDecision:
    errors: list[str] = []

    raw_decision = get_field(obj, "decision")
    decision = None
    if raw_decision is None:
        errors.append("decision missing")
    else:
        decision = parse_decision_label(raw_decision, allowed)
        if decision is None:
            errors.append(f"decision {short_repr(raw_decision)} is not one of {', '.join(allowed)}")

    values: dict[str, float] = {}
    for name, keys in (("confidence", ("confidence",)), ("risk", RISK_KEYS)):
        raw = get_field(obj, *keys)
        if raw is None:
            errors.append(f"{name} missing")
            continue
        detail = percent_detail(raw)
        if detail is None:
            errors.append(f"{name} {short_repr(raw)} is not a number")
            continue
        if detail.how == "fraction":
            shown = raw.strip() if isinstance(raw, str) else fmt(raw)
            notes.append(f"{name} given as fraction {shown}, read as {fmt(detail.unclamped)}")
        elif detail.how == "ratio":
            notes.append(f"{name} given as {raw.strip()}, read as {fmt(detail.unclamped)}")
        if detail.value != detail.unclamped:
            notes.append(f"{name} {fmt(detail.unclamped)} clamped to {fmt(detail.value)}")
        values[name] = detail.value

    reasoning, reasoning_note = _reasoning_text(get_field(obj, *REASONING_KEYS))
    if reasoning_note:
        notes.append(reasoning_note)

    if errors or decision is None:
        return _failsafe("; ".join(errors), tuple(notes))
    return ParsedDecision(
        decision=decision,
        confidence=values["confidence"],
        risk=values["risk"],
        reasoning=reasoning,
        parse_failed=False,
        error="",
        notes=tuple(notes),
    )


def parse_agent_decision(text: str, *, allowed: Iterable[str] = DECISIONS) -> ParsedDecision:
    """Read an agent's ``{"decision", "confidence", "risk", "reasoning"}`` reply.

    The reply must yield a decision that is exactly one of ``allowed`` (see
    :func:`parse_decision_label`) and numeric confidence and risk (see
    :func:`parse_percent`). Keys are case-insensitive; ``risk_level``/``risk_score``
    are accepted for risk and ``rationale``/``explanation`` for reasoning. Missing
    reasoning becomes ``""`` with a note.

    If the reply holds several objects, the first one with a ``decision`` key is used
    (fenced objects first). With no JSON object at all, ``Key: value`` prose
    (``Decision: WARN`` / ``Confidence: 70%`` / ``Risk: 30%`` / ``Reasoning: ...``)
    is accepted.

    Anything else returns :data:`FAILSAFE` (REFUSE, 50, 75) with ``parse_failed=True``
    and ``error`` explaining the problem. Never raises.
    """
    try:
        allowed_labels = tuple(str(a).strip().upper() for a in allowed)
        if not isinstance(text, str):
            return _failsafe(f"reply is not a string ({type(text).__name__})")
        if not text.strip():
            return _failsafe("empty reply")
        notes: list[str] = []
        objects, reason = find_objects(text)
        if not objects:
            prose = _key_value_prose(text) if reason.startswith("no JSON") else None
            if prose is None:
                return _failsafe(reason)
            notes.append("no JSON object; read key-value prose")
            return _decision_from_mapping(prose, allowed_labels, notes)
        chosen = next((o for o in objects if get_field(o, "decision") is not None), objects[0])
        if len(objects) > 1:
            index = objects.index(chosen) + 1
            notes.append(f"reply contained {len(objects)} JSON objects; used object {index}")
        return _decision_from_mapping(chosen, allowed_labels, notes)
    except Exception as exc:  # noqa: BLE001 - the fail-safe must hold for any input
        return _failsafe(f"parser error: {type(exc).__name__}")


# ---------------------------------------------------------------------------
# Challenges
# ---------------------------------------------------------------------------
#
# Challenges are required, not optional (docs/concepts/s4.md#compulsory-challenges); they are
# adversarial, specific (they quote the exact reasoning) and ask for evidence. So every challenge
# names the weakest point of the challenged reasoning and the evidence that would settle it, even
# when the challenger agrees with the conclusion; whether it does is a separate yes/no field.

_LEGACY_STANCES = {
    "challenge": False,
    "disagree": False,
    "agree": True,
    "agreement": True,
    "concur": True,
}
_YES = {"yes", "true", "y", "agree", "agrees"}
_NO = {"no", "false", "n", "disagree", "disagrees"}

AGREES_KEYS = ("agrees_with_conclusion", "agrees_with_the_conclusion", "agrees")
WEAKEST_POINT_KEYS = ("weakest_point", "weak_point", "quote")
EVIDENCE_KEYS = ("evidence_needed", "evidence", "evidence_that_would_settle_it")


@dataclass(frozen=True)
class ParsedChallenge:
    """A challenge-round reply.

    ``stance`` is always ``"challenge"`` (challenges are compulsory); ``agrees_with_conclusion``
    says whether the challenger nonetheless agrees with the challenged agent's conclusion.
    ``weakest_point`` quotes the reasoning's weakest point and ``evidence_needed`` names what
    would settle it; both are required. ``suggested_decision`` is one of ACT/WARN/REFUSE/VETO or
    None. ``parse_failed``/``error`` report unreadable replies or a missing required part;
    ``notes`` records tolerant readings (legacy stance, truncation, ignored fields).
    """

    stance: str
    argument: str
    suggested_decision: str | None
    parse_failed: bool
    error: str = ""
    notes: tuple[str, ...] = ()
    agrees_with_conclusion: bool = False
    weakest_point: str = ""
    evidence_needed: str = ""

    @property
    def text(self) -> str:
        """The challenge as stored and shown: the argument, then its two required parts."""
        return challenge_text(self.argument, self.weakest_point, self.evidence_needed)


WEAKEST_POINT_LABEL = "Weakest point"
EVIDENCE_LABEL = "Evidence that would settle it"


def challenge_text(argument: str, weakest_point: str, evidence_needed: str) -> str:
    """One text holding the argument, the weakest point (quoted) and the evidence asked for."""
    parts = [argument.strip()]
    if weakest_point:
        parts.append(f"{WEAKEST_POINT_LABEL}: \u201c{weakest_point.strip()}\u201d")
    if evidence_needed:
        parts.append(f"{EVIDENCE_LABEL}: {evidence_needed.strip()}")
    return "\n".join(p for p in parts if p)


def _agreement(obj: Mapping[str, Any], notes: list[str], errors: list[str]) -> bool:
    raw = get_field(obj, *AGREES_KEYS)
    if raw is not None:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and clean_label(raw).lower() in _YES | _NO:
            return clean_label(raw).lower() in _YES
        errors.append(f"agrees_with_conclusion {short_repr(raw)} is not yes or no")
        return False
    raw_stance = get_field(obj, "stance")
    if isinstance(raw_stance, str) and clean_label(raw_stance).lower() in _LEGACY_STANCES:
        agrees = _LEGACY_STANCES[clean_label(raw_stance).lower()]
        notes.append(
            f"agrees_with_conclusion missing; read as {'yes' if agrees else 'no'} from stance "
            f"{short_repr(raw_stance)}"
        )
        return agrees
    errors.append("agrees_with_conclusion missing (true or false)")
    return False


def _required_text(
    obj: Mapping[str, Any], keys: tuple[str, ...], what: str, notes: list[str], errors: list[str]
) -> str:
    raw = get_field(obj, *keys)
    if raw is None:
        errors.append(f"{keys[0]} missing: a challenge must name {what}")
        return ""
    if not isinstance(raw, str):
        errors.append(f"{keys[0]} {short_repr(raw)} is not text")
        return ""
    text = truncate_text(" ".join(raw.split()), notes)
    if not text:
        errors.append(f"{keys[0]} empty: a challenge must name {what}")
    return text


def _challenge_from_mapping(obj: Mapping[str, Any]) -> ParsedChallenge:
    notes: list[str] = []
    errors: list[str] = []

    agrees = _agreement(obj, notes, errors)

    raw_argument = get_field(obj, "argument", "challenge", "text", "content")
    argument = ""
    if raw_argument is None:
        errors.append("argument missing")
    elif not isinstance(raw_argument, str):
        errors.append(f"argument {short_repr(raw_argument)} is not text")
    else:
        argument = truncate_text(raw_argument.strip(), notes)
        if not argument:
            errors.append("argument empty")

    weakest = _required_text(
        obj, WEAKEST_POINT_KEYS, "the weakest point of the reasoning", notes, errors
    )
    evidence = _required_text(
        obj, EVIDENCE_KEYS, "the evidence that would settle it", notes, errors
    )

    raw_suggested = get_field(obj, "suggested_decision")
    suggested = None
    if raw_suggested is not None:
        suggested = parse_decision_label(raw_suggested, DECISIONS)
        if suggested is None:
            notes.append(
                f"suggested_decision {short_repr(raw_suggested)} ignored: "
                f"not one of {', '.join(DECISIONS)}"
            )

    return ParsedChallenge(
        stance="challenge",
        argument=argument,
        suggested_decision=suggested,
        parse_failed=bool(errors),
        error="; ".join(errors),
        notes=tuple(notes),
        agrees_with_conclusion=agrees,
        weakest_point=weakest,
        evidence_needed=evidence,
    )


def parse_challenge(text: str) -> ParsedChallenge:
    """Read a challenge-round reply ``{"agrees_with_conclusion", "weakest_point",
    "evidence_needed", "argument", "suggested_decision"}``.

    ``agrees_with_conclusion``: true/false (also "yes"/"no"); when missing, a legacy ``stance``
    (``agree``/``agreement``/``concur`` yes, ``challenge``/``disagree`` no) is read with a note;
    with neither, the parse fails. ``weakest_point`` (the quoted weakest point of the
    challenged reasoning) and ``evidence_needed`` (what would settle it) are required: a
    challenge without them does not meet the compulsory-challenge rule
    (docs/concepts/s4.md#compulsory-challenges) and is marked failed. ``argument`` may also be
    called ``challenge``, ``text`` or ``content``; it must be non-empty text.
    ``suggested_decision`` is kept only if it is a valid label.

    Without a JSON object, non-empty prose is kept as the argument but the parse fails (it names
    neither the weakest point nor the evidence as fields). Empty replies fail. Never raises.
    """
    try:
        if not isinstance(text, str):
            return ParsedChallenge(
                "challenge", "", None, True, f"reply is not a string ({type(text).__name__})"
            )
        if not text.strip():
            return ParsedChallenge("challenge", "", None, True, "empty reply")
        obj = extract_json_object(text)
        if obj is not None:
            return _challenge_from_mapping(obj)
        notes = ["no JSON object; whole reply used as the argument"]
        argument = truncate_text(text.strip(), notes)
        return ParsedChallenge(
            "challenge",
            argument,
            None,
            True,
            "no JSON object: a challenge must give weakest_point and evidence_needed",
            tuple(notes),
        )
    except Exception as exc:  # noqa: BLE001 - never raise on model output
        return ParsedChallenge("challenge", "", None, True, f"parser error: {type(exc).__name__}")
