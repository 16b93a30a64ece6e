"""Reading the fields protocols' replies share: texts, lists of short texts, 0..1 confidences
and yes/no flags, each recording what it had to tolerate as a note. Built on the generic
reading of `agents.parsing` (JSON objects, percentages, labels). Never raises on model output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agents.parsing import (
    clean_label,
    find_objects,
    format_number,
    get_field,
    parse_unit_interval,
)

# ---------------------------------------------------------------------------
# Fields every protocol's replies share
# ---------------------------------------------------------------------------

RISK_KEYS = ("risk", "risk_level", "risk_score")
REASONING_KEYS = ("reasoning", "rationale", "explanation")
MAX_ARGUMENT_LENGTH = 4000


def short_repr(value: Any, limit: int = 60) -> str:
    """repr() of a value for error messages, truncated."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def truncate_text(text: str, notes: list[str]) -> str:
    if len(text) > MAX_ARGUMENT_LENGTH:
        notes.append(f"argument truncated to {MAX_ARGUMENT_LENGTH} characters")
        return text[:MAX_ARGUMENT_LENGTH]
    return text


# ---------------------------------------------------------------------------
# Lists, texts, 0..1 confidences and flags
# ---------------------------------------------------------------------------

#: Limits on the lists a reply may carry (evidence, open points ...): items beyond are dropped.
MAX_LIST_ITEMS = 10
MAX_ITEM_LENGTH = 500


def text_field(obj: Mapping[str, Any], names: tuple[str, ...], notes: list[str]) -> str:
    value = get_field(obj, *names)
    if value is None:
        return ""
    if isinstance(value, str):
        return truncate_text(value.strip(), notes)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        notes.append(f"{names[0]} given as a list")
        return truncate_text(" ".join(item.strip() for item in value).strip(), notes)
    notes.append(f"{names[0]} was not text")
    return truncate_text(json.dumps(value, default=str), notes)


def string_list(obj: Mapping[str, Any], names: tuple[str, ...], notes: list[str]) -> list[str]:
    """A list of short texts; a single text counts as a list of one. Never fails."""
    value = get_field(obj, *names)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        notes.append(f"{names[0]} {short_repr(value)} ignored: not a list")
        return []
    items: list[str] = []
    for item in value:
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            item = str(item)
        if isinstance(item, Mapping):
            item = "; ".join(f"{k}: {v}" for k, v in item.items())
        if not isinstance(item, str) or not item.strip():
            continue
        text = " ".join(item.split())
        if len(text) > MAX_ITEM_LENGTH:
            text = text[: MAX_ITEM_LENGTH - 3] + "..."
        items.append(text)
    if len(items) > MAX_LIST_ITEMS:
        notes.append(f"{names[0]}: {len(items)} items, kept the first {MAX_LIST_ITEMS}")
        items = items[:MAX_LIST_ITEMS]
    return items


def unit_confidence(
    obj: Mapping[str, Any], errors: list[str], notes: list[str], name: str = "confidence"
) -> float | None:
    raw = get_field(obj, name)
    if raw is None:
        errors.append(f"{name} missing")
        return None
    value = parse_unit_interval(raw)
    if value is None:
        errors.append(f"{name} {short_repr(raw)} is not a number between 0 and 1")
        return None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw > 1:
        notes.append(f"{name} {format_number(float(raw))} read as a percentage: {value:g}")
    return value


def reply_object(text: Any) -> tuple[dict | None, str]:
    if not isinstance(text, str):
        return None, f"reply is not a string ({type(text).__name__})"
    if not text.strip():
        return None, "empty reply"
    objects, reason = find_objects(text)
    return (objects[0], "") if objects else (None, reason)


def read_flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        cleaned = clean_label(value).lower()
        if cleaned in ("true", "yes", "y"):
            return True
        if cleaned in ("false", "no", "n"):
            return False
    return None
