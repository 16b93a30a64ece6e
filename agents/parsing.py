"""Parsing of LLM agent replies: tolerant of format, strict about meaning.

Agents are asked to answer with a JSON object. In practice replies arrive wrapped in
Markdown fences, surrounded by prose, with trailing commas, in Python-dict style with
single quotes, or with percentages written as ``"75%"`` or ``0.75``. This module accepts
all of those *formats*, but it never guesses at *meaning*: a decision label must be
exactly one of the allowed labels, confidence and risk must be numbers, and anything
that cannot be read safely falls back to :data:`FAILSAFE` (REFUSE), as the decision
rules require ("Default-to-REFUSE on any parsing failures").

Public API:

* :func:`extract_json_object` / :func:`iter_json_objects` - find JSON objects in a reply.
* :func:`get_field` - first present value among key aliases (reusable by other parsers).
* :func:`parse_percent` - read a 0..100 percentage from many spellings.
* :func:`parse_decision_label` - clean and validate a decision label.
* :func:`parse_agent_decision` -> :class:`ParsedDecision` (never raises).
* :func:`parse_challenge` -> :class:`ParsedChallenge` (never raises).
* :func:`parse_unit_interval` - read a 0..1 confidence from many spellings.
* :func:`parse_argument`, :func:`parse_moderation`, :func:`parse_synthesis` - the moderated
  debate's replies (never raise).
* :func:`parse_turn` -> :class:`ParsedTurn` - a round-robin turn and its stance (never raises).

This module is pure Python and does not import Django.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

__all__ = [
    "DECISIONS",
    "FAILSAFE",
    "FAILSAFE_REASONING",
    "MAX_ARGUMENT_LENGTH",
    "TURN_FAILSAFE_STANCE",
    "ParsedArgument",
    "ParsedChallenge",
    "ParsedDecision",
    "ParsedModeration",
    "ParsedSynthesis",
    "ParsedTurn",
    "extract_json_object",
    "get_field",
    "iter_json_objects",
    "parse_agent_decision",
    "parse_argument",
    "parse_challenge",
    "parse_decision_label",
    "parse_moderation",
    "parse_percent",
    "parse_synthesis",
    "parse_turn",
    "parse_unit_interval",
]

DECISIONS: tuple[str, ...] = ("ACT", "WARN", "REFUSE", "VETO")

#: Upper bound on characters examined by brace matching while scanning one reply, so
#: adversarial input (thousands of unbalanced braces) cannot make parsing quadratic.
_SCAN_BUDGET = 2_000_000

# ---------------------------------------------------------------------------
# Finding JSON objects
# ---------------------------------------------------------------------------

_FENCE_RE = re.compile(r"```[ \t]*[A-Za-z0-9_+.-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)


def _normalise_keys(obj: dict) -> dict:
    """Lower-case and strip top-level keys; the first of several colliding keys wins."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        norm = str(key).strip().lower()
        if norm not in out:
            out[norm] = value
    return out


def _loads_strict(text: str) -> Any:
    """``json.loads`` that reports failure as a sentinel instead of raising."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _FAILED


class _Failed:
    pass


_FAILED = _Failed()


def _repair(text: str) -> str:
    """Rewrite near-JSON into JSON.

    Handles single-quoted strings (Python-dict style), trailing commas before ``}`` or
    ``]`` and the Python literals ``True``/``False``/``None``. Text inside strings is
    left alone apart from the escaping needed to turn ``'...'`` into ``"..."``.
    """
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            # Copy a double-quoted string verbatim.
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif ch == "'":
            # Convert a single-quoted string into a double-quoted one.
            buf = ['"']
            j = i + 1
            while j < n and text[j] != "'":
                c = text[j]
                if c == "\\" and j + 1 < n:
                    nxt = text[j + 1]
                    buf.append("'" if nxt == "'" else c + nxt)
                    j += 2
                    continue
                buf.append('\\"' if c == '"' else c)
                j += 1
            buf.append('"')
            out.append("".join(buf))
            i = j + 1
        elif ch == ",":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # drop the trailing comma
            else:
                out.append(ch)
                i += 1
        elif ch.isalpha() or ch == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            out.append({"True": "true", "False": "false", "None": "null"}.get(word, word))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _load_object(candidate: str) -> dict | None:
    """Parse a ``{...}`` candidate strictly, then with repairs; return a dict or None."""
    value = _loads_strict(candidate)
    if isinstance(value, dict):
        return _normalise_keys(value)
    repaired = _repair(candidate)
    if repaired != candidate:
        value = _loads_strict(repaired)
        if isinstance(value, dict):
            return _normalise_keys(value)
    return None


def _match_brace(text: str, start: int, quotes: str) -> int | None:
    """Return the index just past the ``}`` balancing ``text[start] == '{'``.

    Braces inside strings (delimited by any character in ``quotes``) are ignored and
    backslash escapes inside strings are honoured. Returns None if unbalanced.
    """
    depth = 0
    in_string = ""
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 2
                continue
            if ch == in_string:
                in_string = ""
        elif ch in quotes:
            in_string = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _scan_objects(text: str) -> Iterator[dict]:
    """Yield top-level balanced ``{...}`` spans of ``text`` that parse, left to right.

    When a span does not parse, scanning resumes just after its opening brace, so an
    object nested inside non-JSON braces can still be found. After a span parses,
    scanning resumes after its closing brace (nested objects are not yielded again).
    """
    pos = 0
    budget = _SCAN_BUDGET
    while budget > 0:
        start = text.find("{", pos)
        if start < 0:
            return
        found: dict | None = None
        end_found = start + 1
        tried: set[int] = set()
        # Single quotes count as string delimiters for Python-dict style, but an
        # apostrophe in prose can mislead that; fall back to double quotes only.
        for quotes in ("\"'", '"'):
            end = _match_brace(text, start, quotes)
            budget -= (len(text) if end is None else end) - start
            if end is None or end in tried:
                continue
            tried.add(end)
            found = _load_object(text[start:end])
            if found is not None:
                end_found = end
                break
        if found is not None:
            yield found
            pos = end_found
        else:
            pos = start + 1


def _find_objects(text: str, *, _depth: int = 0) -> tuple[list[dict], str]:
    """Return the JSON objects in ``text`` in preference order, and a reason if none.

    Order: the whole reply if it is one object; otherwise objects inside Markdown
    fences, then objects elsewhere in the reply, left to right, without duplicates.
    A reply (or fence) that is valid JSON but an array is not searched: the reply's
    structure is explicit and is not an object.
    """
    stripped = text.strip()
    if not stripped:
        return [], "empty reply"
    if stripped[0] in '{["':
        whole = _loads_strict(stripped)
        if isinstance(whole, dict):
            return [_normalise_keys(whole)], ""
        if isinstance(whole, list):
            return [], "reply is a JSON array, not an object"
        if isinstance(whole, str) and _depth == 0:
            # A JSON string that itself contains the JSON answer.
            return _find_objects(whole, _depth=1)

    objects: list[dict] = []
    masked = text
    array_seen = False
    for match in _FENCE_RE.finditer(text):
        content = match.group(1).strip()
        value = _loads_strict(content) if content[:1] in "{[" else _FAILED
        if isinstance(value, list):
            array_seen = True
            start, end = match.span()
            masked = masked[:start] + " " * (end - start) + masked[end:]
            continue
        for obj in _scan_objects(content):
            if obj not in objects:
                objects.append(obj)
    for obj in _scan_objects(masked):
        if obj not in objects:
            objects.append(obj)
    if objects:
        return objects, ""
    if array_seen:
        return [], "reply is a JSON array, not an object"
    if "{" in text:
        return [], "no JSON object found (a {...} block is present but is not valid JSON)"
    return [], "no JSON object found"


def iter_json_objects(text: str) -> Iterator[dict]:
    """Yield every JSON object found in ``text``, in preference order.

    See :func:`extract_json_object` for what is accepted. Keys are lower-cased and
    stripped (top level only). Yields nothing for non-string input.
    """
    if not isinstance(text, str):
        return
    yield from _find_objects(text)[0]


def extract_json_object(text: str) -> dict | None:
    """Return the JSON object in an LLM reply, or None if there is nothing usable.

    Accepted shapes: plain JSON; JSON inside ```` ```json ```` (or bare ```` ``` ````)
    fences; JSON with prose before or after; the first balanced top-level ``{...}``
    that parses (brace matching ignores braces inside strings). As a fallback,
    trailing commas, single-quoted Python-dict style and ``True``/``False``/``None``
    are repaired. A fenced object is preferred over an unfenced one. A reply that is
    a JSON array is not an object and yields None.

    Top-level keys of the result are lower-cased and stripped.
    """
    for obj in iter_json_objects(text):
        return obj
    return None


def get_field(obj: Mapping[str, Any], *names: str, default: Any = None) -> Any:
    """Return the value of the first of ``names`` present in ``obj``.

    Key comparison is case-insensitive and ignores surrounding whitespace. A key whose
    value is ``None`` (JSON ``null``) counts as absent, so the next alias is tried.
    Returns ``default`` when no alias has a value.
    """
    if not isinstance(obj, Mapping):
        return default
    lookup: dict[str, Any] = {}
    for key, value in obj.items():
        lookup.setdefault(str(key).strip().lower(), value)
    for name in names:
        value = lookup.get(name.strip().lower())
        if value is not None:
            return value
    return default


# ---------------------------------------------------------------------------
# Percentages
# ---------------------------------------------------------------------------

_PERCENT_RE = re.compile(
    r"""^\s*
    (?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*
    (?:
        (?P<pct>%|percent|pct)
      | /\s*(?P<den>\d+(?:\.\d*)?|\.\d+)
    )?
    \s*$""",
    re.VERBOSE | re.IGNORECASE,
)


class _Percent(NamedTuple):
    value: float  # final value in 0..100
    unclamped: float  # value before clamping
    how: str  # "", "fraction" or "ratio"


def _fmt(number: float) -> str:
    """Format a number for messages: 75.0 -> '75', 7.5 -> '7.5'."""
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return f"{number:g}" if isinstance(number, float) else str(number)


def _percent_detail(value: Any) -> _Percent | None:
    if value is None or isinstance(value, bool):
        return None
    how = ""
    if isinstance(value, int):
        # Integers are always percentages, including 0 and 1. Avoid float overflow.
        number = float(value) if abs(value) < 10**300 else (math.inf if value > 0 else -math.inf)
    elif isinstance(value, float):
        if not math.isfinite(value):
            return None
        number = value
        if 0.0 <= value <= 1.0:
            number, how = value * 100.0, "fraction"
    elif isinstance(value, str):
        match = _PERCENT_RE.match(value)
        if match is None:
            return None
        num_text = match.group("num")
        number = float(num_text)
        den_text = match.group("den")
        if den_text is not None:
            den = float(den_text)
            if den <= 0:
                return None
            number, how = number / den * 100.0, "ratio"
        elif match.group("pct") is None and "." in num_text and 0.0 <= number <= 1.0:
            number, how = number * 100.0, "fraction"
        if not math.isfinite(number):
            return None
    else:
        return None
    if math.isfinite(number):
        number = round(number, 9) + 0.0  # tidy 0.07 * 100 -> 7.000000000000001; no -0.0
    return _Percent(min(100.0, max(0.0, number)), number, how)


def parse_percent(value: Any) -> float | None:
    """Read a percentage in 0..100 from a number or string; None if unreadable.

    Accepted: ``75``, ``"75"``, ``"75%"``, ``" 75 % "``, ``"75 percent"``,
    ``"75/100"`` and ``"7.5/10"`` (ratios, read as 75), and fractions.

    The 0..1 rule: a value written with a decimal point (a ``float``, or a string
    such as ``"0.75"``) that lies in [0, 1] is a fraction and is multiplied by 100,
    so ``0.75`` and ``"0.75"`` read as 75.0 and ``1.0`` reads as 100.0. Integers are
    always percentages: ``0`` is 0.0 and ``1`` is 1.0. An explicit percent sign wins:
    ``"0.5%"`` is 0.5.

    Results are clamped to 0..100. ``bool``, ``None``, NaN/infinity, other types and
    unparseable strings give None.
    """
    detail = _percent_detail(value)
    return None if detail is None else detail.value


# ---------------------------------------------------------------------------
# Decision labels
# ---------------------------------------------------------------------------

_LABEL_STRIP = "*_~`#>'\"\u201c\u201d\u2018\u2019\u00ab\u00bb.,;:!?()[]{}<>-"


def _clean_label(value: str) -> str:
    text = unicodedata.normalize("NFKC", value)
    previous = None
    while previous != text:
        previous = text
        text = text.strip().strip(_LABEL_STRIP)
    return text


def parse_decision_label(value: Any, allowed: Iterable[str]) -> str | None:
    """Return the canonical upper-case label if ``value`` is exactly one of ``allowed``.

    Tolerated around the label: whitespace, Markdown emphasis (``**WARN**``), quotes
    and punctuation (``"act."``, ``"Refuse!"``, ``"VETO:"``); comparison is
    case-insensitive. No synonyms and no substring guessing: ``"ACTION"`` and
    ``"ACT NOW"`` are not ``ACT``. Non-strings give None.
    """
    if not isinstance(value, str):
        return None
    canonical = {str(a).strip().upper(): str(a).strip().upper() for a in allowed}
    label = _clean_label(value).upper()
    return canonical.get(label) if label else None


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

_RISK_KEYS = ("risk", "risk_level", "risk_score")
_REASONING_KEYS = ("reasoning", "rationale", "explanation")

_KV_LINE_RE = re.compile(
    r"""^[\s*_#>-]*
    (?P<key>decision|confidence|risk(?:[ _](?:level|score))?|reasoning|rationale|explanation)
    [\s*_]*[:=][\s*_]*
    (?P<value>.*)$""",
    re.IGNORECASE | re.VERBOSE,
)


def _failsafe(error: str, notes: tuple[str, ...] = ()) -> ParsedDecision:
    return replace(FAILSAFE, error=error, notes=notes)


def _short(value: Any, limit: int = 60) -> str:
    """repr() of a value for error messages, truncated."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
        elif current in _REASONING_KEYS and line.strip():
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
            errors.append(f"decision {_short(raw_decision)} is not one of {', '.join(allowed)}")

    values: dict[str, float] = {}
    for name, keys in (("confidence", ("confidence",)), ("risk", _RISK_KEYS)):
        raw = get_field(obj, *keys)
        if raw is None:
            errors.append(f"{name} missing")
            continue
        detail = _percent_detail(raw)
        if detail is None:
            errors.append(f"{name} {_short(raw)} is not a number")
            continue
        if detail.how == "fraction":
            shown = raw.strip() if isinstance(raw, str) else _fmt(raw)
            notes.append(f"{name} given as fraction {shown}, read as {_fmt(detail.unclamped)}")
        elif detail.how == "ratio":
            notes.append(f"{name} given as {raw.strip()}, read as {_fmt(detail.unclamped)}")
        if detail.value != detail.unclamped:
            notes.append(f"{name} {_fmt(detail.unclamped)} clamped to {_fmt(detail.value)}")
        values[name] = detail.value

    reasoning, reasoning_note = _reasoning_text(get_field(obj, *_REASONING_KEYS))
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
        objects, reason = _find_objects(text)
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

MAX_ARGUMENT_LENGTH = 4000

_STANCES = {
    "challenge": "challenge",
    "disagree": "challenge",
    "agree": "agree",
    "agreement": "agree",
    "concur": "agree",
}


@dataclass(frozen=True)
class ParsedChallenge:
    """A challenge-round reply.

    ``stance`` is ``"challenge"`` or ``"agree"``; ``suggested_decision`` is one of
    ACT/WARN/REFUSE/VETO or None. ``parse_failed``/``error`` report unreadable
    replies; ``notes`` records tolerant readings (prose reply, truncation, ignored
    fields).
    """

    stance: str
    argument: str
    suggested_decision: str | None
    parse_failed: bool
    error: str = ""
    notes: tuple[str, ...] = ()


def _truncate_argument(text: str, notes: list[str]) -> str:
    if len(text) > MAX_ARGUMENT_LENGTH:
        notes.append(f"argument truncated to {MAX_ARGUMENT_LENGTH} characters")
        return text[:MAX_ARGUMENT_LENGTH]
    return text


def _challenge_from_mapping(obj: Mapping[str, Any]) -> ParsedChallenge:
    notes: list[str] = []
    errors: list[str] = []

    raw_stance = get_field(obj, "stance")
    stance = "challenge"
    if raw_stance is None:
        notes.append("stance missing; read as challenge")
    else:
        cleaned = _clean_label(raw_stance).lower() if isinstance(raw_stance, str) else None
        if cleaned in _STANCES:
            stance = _STANCES[cleaned]
        else:
            errors.append(f"stance {_short(raw_stance)} is not one of challenge, agree")

    raw_argument = get_field(obj, "argument", "challenge", "text", "content")
    argument = ""
    if raw_argument is None:
        errors.append("argument missing")
    elif not isinstance(raw_argument, str):
        errors.append(f"argument {_short(raw_argument)} is not text")
    else:
        argument = _truncate_argument(raw_argument.strip(), notes)
        if not argument:
            errors.append("argument empty")

    raw_suggested = get_field(obj, "suggested_decision")
    suggested = None
    if raw_suggested is not None:
        suggested = parse_decision_label(raw_suggested, DECISIONS)
        if suggested is None:
            notes.append(
                f"suggested_decision {_short(raw_suggested)} ignored: "
                f"not one of {', '.join(DECISIONS)}"
            )

    return ParsedChallenge(
        stance=stance,
        argument=argument,
        suggested_decision=suggested,
        parse_failed=bool(errors),
        error="; ".join(errors),
        notes=tuple(notes),
    )


def parse_challenge(text: str) -> ParsedChallenge:
    """Read a challenge-round reply ``{"stance", "argument", "suggested_decision"}``.

    ``stance``: ``challenge`` or ``agree`` (``disagree`` means challenge;
    ``agreement``/``concur`` mean agree); missing means challenge; any other value
    marks the parse as failed (stance stays ``challenge``). ``argument`` may also be
    called ``challenge``, ``text`` or ``content``; it must be non-empty text.
    ``suggested_decision`` is kept only if it is a valid label.

    Without a JSON object, non-empty prose is taken as the argument (stripped,
    truncated to :data:`MAX_ARGUMENT_LENGTH`) with stance ``challenge`` and
    ``parse_failed=False``. Empty or whitespace-only replies fail. Never raises.
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
        argument = _truncate_argument(text.strip(), notes)
        return ParsedChallenge("challenge", argument, None, False, "", tuple(notes))
    except Exception as exc:  # noqa: BLE001 - never raise on model output
        return ParsedChallenge("challenge", "", None, True, f"parser error: {type(exc).__name__}")


# ---------------------------------------------------------------------------
# Other protocols: shared pieces
# ---------------------------------------------------------------------------

#: Limits on the lists a reply may carry (evidence, open points ...): items beyond are dropped.
MAX_LIST_ITEMS = 10
MAX_ITEM_LENGTH = 500


def parse_unit_interval(value: Any) -> float | None:
    """Read a confidence on the 0..1 scale; None if unreadable.

    The moderated debate asks for confidences between 0.0 and 1.0, so here (unlike
    :func:`parse_percent`) the whole numbers ``0`` and ``1`` (and ``"1"``) mean 0.0 and 1.0.
    Anything else is read as :func:`parse_percent` reads it and divided by 100: ``0.8``,
    ``"0.8"``, ``"80%"`` and ``80`` all give 0.8. Results are clamped to 0..1.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value in (0, 1):
        return float(value)
    if isinstance(value, str) and value.strip() in ("0", "1"):
        return float(value.strip())
    percent = parse_percent(value)
    return None if percent is None else round(percent / 100.0, 6)


def _text_field(obj: Mapping[str, Any], names: tuple[str, ...], notes: list[str]) -> str:
    value = get_field(obj, *names)
    if value is None:
        return ""
    if isinstance(value, str):
        return _truncate_argument(value.strip(), notes)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        notes.append(f"{names[0]} given as a list")
        return _truncate_argument(" ".join(item.strip() for item in value).strip(), notes)
    notes.append(f"{names[0]} was not text")
    return _truncate_argument(json.dumps(value, default=str), notes)


def _string_list(obj: Mapping[str, Any], names: tuple[str, ...], notes: list[str]) -> list[str]:
    """A list of short texts; a single text counts as a list of one. Never fails."""
    value = get_field(obj, *names)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        notes.append(f"{names[0]} {_short(value)} ignored: not a list")
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


def _unit_confidence(
    obj: Mapping[str, Any], errors: list[str], notes: list[str], name: str = "confidence"
) -> float | None:
    raw = get_field(obj, name)
    if raw is None:
        errors.append(f"{name} missing")
        return None
    value = parse_unit_interval(raw)
    if value is None:
        errors.append(f"{name} {_short(raw)} is not a number between 0 and 1")
        return None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw > 1:
        notes.append(f"{name} {_fmt(float(raw))} read as a percentage: {value:g}")
    return value


def _reply_object(text: Any) -> tuple[dict | None, str]:
    if not isinstance(text, str):
        return None, f"reply is not a string ({type(text).__name__})"
    if not text.strip():
        return None, "empty reply"
    objects, reason = _find_objects(text)
    return (objects[0], "") if objects else (None, reason)


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        cleaned = _clean_label(value).lower()
        if cleaned in ("true", "yes", "y"):
            return True
        if cleaned in ("false", "no", "n"):
            return False
    return None


# ---------------------------------------------------------------------------
# Moderated debate: arguments, the moderator's evaluation, the refiner's synthesis
# ---------------------------------------------------------------------------

SIDES: tuple[str, ...] = ("SUPPORT", "OPPOSE", "NEUTRAL")


@dataclass(frozen=True)
class ParsedArgument:
    """A debater's argument (seed 003's DebateArgument, without the round, which we know).

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
        obj, reason = _reply_object(text)
        if obj is None:
            return ParsedArgument("", 0.0, (), "NEUTRAL" if sides else None, True, reason)
        notes: list[str] = []
        errors: list[str] = []
        content = _text_field(obj, ("content", "argument", "reasoning"), notes)
        if not content:
            errors.append("content missing")
        confidence = _unit_confidence(obj, errors, notes)
        evidence = _string_list(obj, ("supporting_evidence", "evidence"), notes)
        if not evidence:
            notes.append("no supporting evidence given")
        side = None
        if sides:
            allowed = tuple(sides)
            raw_side = get_field(obj, "side", "stance", "position")
            side = parse_decision_label(raw_side, allowed) if raw_side is not None else None
            if side is None:
                shown = "missing" if raw_side is None else _short(raw_side)
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
        obj, reason = _reply_object(text)
        if obj is None:
            return ParsedModeration(None, None, False, "NEUTRAL", (), 0.0, "", True, reason)
        notes: list[str] = []
        errors: list[str] = []
        confidence = _unit_confidence(obj, errors, notes)
        qualities: list[float | None] = []
        for names in (("pro_quality", "proponent_quality"), ("con_quality", "opponent_quality")):
            raw = get_field(obj, *names)
            value = parse_unit_interval(raw) if raw is not None else None
            if value is None:
                notes.append(f"{names[0]} {'missing' if raw is None else _short(raw)}: not rated")
            qualities.append(value)
        raw_flag = get_field(obj, "consensus_reached", "consensus")
        consensus = _flag(raw_flag)
        if consensus is None:
            notes.append(f"consensus_reached {_short(raw_flag)} read as false")
            consensus = False
        raw_leaning = get_field(obj, "leaning")
        leaning = parse_decision_label(raw_leaning, SIDES) if raw_leaning is not None else None
        if leaning is None:
            leaning = "NEUTRAL"
        open_points = _string_list(obj, ("open_points", "key_points"), notes)
        summary = _text_field(obj, ("summary", "reasoning", "evaluation"), notes)
        if errors:
            return ParsedModeration(
                qualities[0], qualities[1], False, leaning, tuple(open_points), 0.0, summary,
                True, "; ".join(errors), tuple(notes),
            )
        return ParsedModeration(
            qualities[0], qualities[1], consensus, leaning, tuple(open_points), confidence,
            summary, False, "", tuple(notes),
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
        obj, reason = _reply_object(text)
        if obj is None:
            return ParsedSynthesis("", (), (), (), (), 0.0, True, reason)
        notes: list[str] = []
        errors: list[str] = []
        synthesis = _text_field(obj, ("synthesis", "summary", "content"), notes)
        if not synthesis:
            errors.append("synthesis missing")
        confidence = _unit_confidence(obj, errors, notes)
        lists = [
            tuple(_string_list(obj, (name,), notes))
            for name in ("agreements", "disagreements", "resolution_paths", "open_questions")
        ]
        return ParsedSynthesis(
            synthesis, *lists, 0.0 if errors else confidence, bool(errors), "; ".join(errors),
            tuple(notes),
        )
    except Exception as exc:  # noqa: BLE001 - never raise on model output
        return ParsedSynthesis("", (), (), (), (), 0.0, True, f"parser error: {type(exc).__name__}")


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
        obj, reason = _reply_object(text)
        if obj is None:
            return failed(reason)
        notes: list[str] = []
        errors: list[str] = []
        raw_stance = get_field(obj, "stance", "decision", "recommendation")
        stance = parse_decision_label(raw_stance, allowed) if raw_stance is not None else None
        if raw_stance is None:
            errors.append("stance missing")
        elif stance is None:
            errors.append(f"stance {_short(raw_stance)} is not one of {', '.join(allowed)}")
        values: dict[str, float] = {}
        for name, keys in (("confidence", ("confidence",)), ("risk", _RISK_KEYS)):
            raw = get_field(obj, *keys)
            value = parse_percent(raw) if raw is not None else None
            if value is None:
                errors.append(f"{name} {'missing' if raw is None else _short(raw)}")
            else:
                values[name] = value
        reasoning = _text_field(obj, _REASONING_KEYS, notes)
        if not reasoning:
            notes.append("reasoning missing")
        responds_to = _string_list(obj, ("responds_to", "addressed"), notes)
        if errors or stance is None:
            return failed("; ".join(errors), tuple(notes))
        return ParsedTurn(
            stance, values["confidence"], values["risk"], reasoning, tuple(responds_to), False,
            "", tuple(notes),
        )
    except Exception as exc:  # noqa: BLE001 - never raise on model output
        return failed(f"parser error: {type(exc).__name__}")
