"""Reading a round-robin turn: the agent's stance (one of the allowed labels), its confidence
and risk, its reasoning and the peers it answered. Never raises."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agents.parsing import (
    get_field,
    parse_decision_label,
    parse_percent,
)
from protocols.parsing import (
    REASONING_KEYS,
    RISK_KEYS,
    reply_object,
    short_repr,
    string_list,
    text_field,
)

# ---------------------------------------------------------------------------
# Round-robin turns
# ---------------------------------------------------------------------------

#: The stance of a turn that could not be read: it agrees with no one, so it can never make
#: (or fake) a consensus.
TURN_FAILSAFE_STANCE = "ABSTAIN"


@dataclass(frozen=True)
class ParsedTurn:
    """One round-robin turn: the agent's stance (one of the allowed labels), its confidence and
    risk (0..100), its reasoning and the peers it answered."""

    stance: str
    confidence: float
    risk: float
    reasoning: str
    responds_to: tuple[str, ...]
    parse_failed: bool
    error: str = ""
    notes: tuple[str, ...] = ()


def parse_turn(text: str, *, stances: Iterable[str]) -> ParsedTurn:
    """Read ``{"stance", "confidence", "risk", "reasoning", "responds_to"}``.

    The stance is taken from the ``stance`` field (or ``decision`` / ``recommendation``) and
    must be exactly one of ``stances`` (see :func:`parse_decision_label`): it is never guessed
    from the reasoning text. Confidence and risk are percentages (:func:`parse_percent`).
    Anything unreadable gives :data:`TURN_FAILSAFE_STANCE` with confidence 0 and risk 75,
    marked ``parse_failed``. Never raises.
    """
    allowed = tuple(str(s).strip().upper() for s in stances)

    def failed(error: str, notes: tuple[str, ...] = ()) -> ParsedTurn:
        return ParsedTurn(TURN_FAILSAFE_STANCE, 0.0, 75.0, "", (), True, error, notes)

    try:
        obj, reason = reply_object(text)
        if obj is None:
            return failed(reason)
        notes: list[str] = []
        errors: list[str] = []
        raw_stance = get_field(obj, "stance", "decision", "recommendation")
        stance = parse_decision_label(raw_stance, allowed) if raw_stance is not None else None
        if raw_stance is None:
            errors.append("stance missing")
        elif stance is None:
            errors.append(f"stance {short_repr(raw_stance)} is not one of {', '.join(allowed)}")
        values: dict[str, float] = {}
        for name, keys in (("confidence", ("confidence",)), ("risk", RISK_KEYS)):
            raw = get_field(obj, *keys)
            value = parse_percent(raw) if raw is not None else None
            if value is None:
                errors.append(f"{name} {'missing' if raw is None else short_repr(raw)}")
            else:
                values[name] = value
        reasoning = text_field(obj, REASONING_KEYS, notes)
        if not reasoning:
            notes.append("reasoning missing")
        responds_to = string_list(obj, ("responds_to", "addressed"), notes)
        if errors or stance is None:
            return failed("; ".join(errors), tuple(notes))
        return ParsedTurn(
            stance,
            values["confidence"],
            values["risk"],
            reasoning,
            tuple(responds_to),
            False,
            "",
            tuple(notes),
        )
    except Exception as exc:  # noqa: BLE001 - never raise on model output
        return failed(f"parser error: {type(exc).__name__}")
