"""Generic parsing of LLM agent replies: tolerant of format, strict about meaning.

Agents are asked to answer with a JSON object. In practice replies arrive wrapped in
Markdown fences, surrounded by prose, with trailing commas, in Python-dict style with
single quotes, or with percentages written as ``"75%"`` or ``0.75``. This module accepts
all of those *formats*, but it never guesses at *meaning*: a label must be exactly one of
the allowed labels and numbers must be numbers. What a reply of a given step means, and its
fail-safe when it cannot be read, belongs to the protocol that asked for it (each protocol
package's ``parsing`` module builds on the pieces here).

Public API:

* :func:`extract_json_object` / :func:`iter_json_objects` / :func:`find_objects` - find JSON
  objects in a reply.
* :func:`get_field` - first present value among key aliases (reusable by other parsers).
* :func:`parse_percent` - read a 0..100 percentage from many spellings
  (:func:`percent_detail` also says how it was written).
* :func:`parse_unit_interval` - read a 0..1 confidence from many spellings.
* :func:`parse_decision_label` - clean and validate a label (:func:`clean_label`).

The fields protocols' replies share (texts, lists, 0..1 confidences, flags) are read by
`protocols.parsing`.

This module is pure Python and does not import Django.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

__all__ = [
    "clean_label",
    "extract_json_object",
    "find_objects",
    "format_number",
    "get_field",
    "iter_json_objects",
    "parse_decision_label",
    "parse_percent",
    "parse_unit_interval",
    "percent_detail",
]

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


def find_objects(text: str, *, _depth: int = 0) -> tuple[list[dict], str]:
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
            return find_objects(whole, _depth=1)

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
    yield from find_objects(text)[0]


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


def format_number(number: float) -> str:
    """Format a number for messages: 75.0 -> '75', 7.5 -> '7.5'."""
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return f"{number:g}" if isinstance(number, float) else str(number)


def percent_detail(value: Any) -> _Percent | None:
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
    detail = percent_detail(value)
    return None if detail is None else detail.value


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


# ---------------------------------------------------------------------------
# Decision labels
# ---------------------------------------------------------------------------

_LABEL_STRIP = "*_~`#>'\"\u201c\u201d\u2018\u2019\u00ab\u00bb.,;:!?()[]{}<>-"


def clean_label(value: str) -> str:
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
    label = clean_label(value).upper()
    return canonical.get(label) if label else None
