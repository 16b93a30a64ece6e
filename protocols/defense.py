"""Input screening for debate questions, applied before anything is stored.

Implements the "Survives attacks" layer of the coordination protocol:

* malformed input (non-text, empty, too long, control characters) is rejected with a
  human-readable :class:`QueryRejected` message (:func:`validate_query`);
* prompt-injection attempts are detected, including obfuscated spellings
  (:func:`detect_injection`); detection reports, it does not block;
* replies are screened the same way before other agents read them (:func:`screen_reply`).

How the question is framed for the agents (delimited as data, confidence capped on complex
questions) is `protocols.framing`.

This module is pure Python and does not import Django.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "INJECTION_KINDS",
    "MAX_QUERY_LENGTH",
    "InjectionFinding",
    "QueryRejected",
    "detect_injection",
    "screen_reply",
    "validate_query",
]

# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------

MAX_QUERY_LENGTH = 2000

_ALLOWED_CONTROLS = frozenset("\t\n\r")


class QueryRejected(ValueError):
    """A question that cannot be accepted; ``message`` is shown to the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _is_forbidden_control(ch: str) -> bool:
    """C0 controls, DEL and C1 controls, except tab, newline and carriage return."""
    code = ord(ch)
    return (code < 0x20 or 0x7F <= code <= 0x9F) and ch not in _ALLOWED_CONTROLS


def validate_query(text: object) -> str:
    """Return the cleaned question or raise :class:`QueryRejected`.

    Rejected: non-strings, empty or whitespace-only text, text longer than
    :data:`MAX_QUERY_LENGTH` characters (after cleaning), and C0/C1 control characters
    other than tab, newline and carriage return. Format characters such as zero-width
    joiners are allowed here (they are legitimate in emoji and some scripts);
    :func:`detect_injection` looks through them.

    Cleaning: ``\\r\\n`` and lone ``\\r`` become ``\\n``; surrounding whitespace is
    stripped.
    """
    if not isinstance(text, str):
        raise QueryRejected(f"The question must be text, not {type(text).__name__}.")
    if text == "":
        raise QueryRejected("The question is empty.")
    cleaned = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not cleaned:
        raise QueryRejected("The question is empty (it contains only whitespace).")
    if len(cleaned) > MAX_QUERY_LENGTH:
        raise QueryRejected(
            f"The question is {len(cleaned)} characters long; the limit is {MAX_QUERY_LENGTH}."
        )
    # Checked on the unstripped text: str.strip() would silently drop some controls
    # (U+001C..U+001F, U+0085) at the ends.
    bad = sorted({ch for ch in text if _is_forbidden_control(ch)})
    if bad:
        codes = ", ".join(f"U+{ord(ch):04X}" for ch in bad[:5])
        if len(bad) > 5:
            codes += ", ..."
        raise QueryRejected(f"The question contains control characters ({codes}); remove them.")
    return cleaned


# ---------------------------------------------------------------------------
# Injection detection
# ---------------------------------------------------------------------------

#: Kinds reported by :func:`detect_injection`.
INJECTION_KINDS = (
    "instruction_override",  # ignore/disregard/forget previous instructions
    "jailbreak",  # "you are now ...", unrestricted personas, developer mode, DAN
    "role_tag",  # chat-template role markers: system:, <|im_start|>, [INST], <system>
    "system_prompt_probe",  # reveal/print/show your system prompt
    "delimiter_escape",  # <user_query> / </user_query> inside the question
    "obfuscated",  # any of the above, found only after de-obfuscation
)

_EXCERPT_LIMIT = 120


@dataclass(frozen=True)
class InjectionFinding:
    """One suspected injection: its kind, the matched text and the rule that fired."""

    kind: str
    excerpt: str
    pattern: str


_I = re.IGNORECASE
_IM = re.IGNORECASE | re.MULTILINE

_FILLER = r"(?:(?:all|any|the|your|my|of|these|those|every|previous|prior|earlier)\s+)*"
_TARGET = (
    r"(?:instructions?|prompts?|rules|guidelines|directives|directions|commands|"
    r"programming|system\s+prompt|system\s+message|context)\b"
)

# (rule name, kind, compiled regex). Order is the reporting order.
_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "ignore_previous_instructions",
        "instruction_override",
        re.compile(
            r"\bignore\s+" + _FILLER + r"(?:previous|prior|above|earlier|preceding|former|"
            r"foregoing)\s+"
            + _TARGET
            + r"|\bignore\s+(?:everything|all|anything)\s+(?:above|before|prior)\b",
            _I,
        ),
    ),
    (
        "disregard_instructions",
        "instruction_override",
        re.compile(
            r"\bdisregard\s+"
            + _FILLER
            + r"(?:(?:above|preceding|former|original)\s+)?"
            + _TARGET
            + r"|\bdisregard\s+(?:everything|all|anything)\s+(?:above|before|prior)\b",
            _I,
        ),
    ),
    (
        "forget_rules",
        "instruction_override",
        re.compile(
            r"\bforget\s+(?:about\s+)?"
            + _FILLER
            + _TARGET
            + r"|\bforget\s+(?:everything|all)\s+(?:above|before|you\s+(?:were|have\s+been)"
            r"\s+told)",
            _I,
        ),
    ),
    (
        "new_instructions",
        "instruction_override",
        re.compile(
            r"\b(?:new|updated|override)\s+(?:system\s+)?instructions\s*:"
            r"|\boverride\s+(?:your|the|all)\s+(?:safety\s+)?(?:instructions|rules|guidelines)",
            _I,
        ),
    ),
    (
        "you_are_now",
        "jailbreak",
        re.compile(
            r"\byou\s+are\s+now\b|\byou['\u2019]re\s+now\b|\bfrom\s+now\s+on,?\s+you\s+are\b", _I
        ),
    ),
    (
        "act_without_restrictions",
        "jailbreak",
        re.compile(
            r"\b(?:act|behave|pretend|roleplay|role-play|respond)\s+(?:as|like|to\s+be|that)\b"
            r".{0,80}?\b(?:without|with\s+no|free\s+(?:of|from)|no)\s+"
            r"(?:any\s+)?(?:restrictions|limits|limitations|filters|rules|guidelines|"
            r"censorship|constraints|boundaries|ethics)",
            _I,
        ),
    ),
    (
        "developer_mode",
        "jailbreak",
        re.compile(
            r"\b(?:developer|dev|god|jailbreak)\s+mode\s+(?:is\s+)?(?:enabled|activated)\b"
            r"|\b(?:enter|activate|switch\s+to|you\s+are\s+in|you['\u2019]re\s+in|now\s+in)"
            r"\s+(?:developer|dev|god|jailbreak)\s+mode\b",
            _I,
        ),
    ),
    (
        "dan",
        "jailbreak",
        # Upper-case DAN only, so that the name "Dan" is not flagged.
        re.compile(r"(?-i:\bDAN\b)|\bdo\s+anything\s+now\b", _I),
    ),
    (
        "role_prefix",
        "role_tag",
        re.compile(r"^[ \t>*#-]*(?:system|assistant|developer)[ \t]*:", _IM),
    ),
    (
        "chat_template_token",
        "role_tag",
        re.compile(r"<\|\s*[a-z_]+\s*\|>|\[/?INST\]|<</?SYS>>", _I),
    ),
    (
        "role_xml_tag",
        "role_tag",
        re.compile(r"<\s*/?\s*(?:system|assistant|developer|instructions?)\s*>", _I),
    ),
    (
        "role_heading",
        "role_tag",
        re.compile(r"^[ \t]*#{2,}[ \t]*(?:system|assistant|instructions?)\b", _IM),
    ),
    (
        "reveal_system_prompt",
        "system_prompt_probe",
        re.compile(
            r"\b(?:reveal|print|show|display|output|repeat|recite|tell|give|share|leak|dump|"
            r"what\s+(?:is|are|were))\s+(?:me\s+|us\s+)?(?:your|the)\s+"
            r"(?:(?:full|original|hidden|initial|secret|exact|entire|complete|internal)\s+)*"
            r"(?:system\s+prompt|system\s+message|initial\s+prompt|hidden\s+instructions|"
            r"developer\s+message)"
            r"|\b(?:reveal|print|show|display|output|repeat|recite|tell|give|share|leak|dump|"
            r"what\s+(?:is|are|were))\s+(?:me\s+|us\s+)?your\s+"
            r"(?:(?:full|original|hidden|initial|secret|exact|entire|complete|internal)\s+)*"
            r"(?:instructions|prompt|rules|guidelines)\b"
            r"|\brepeat\s+(?:everything|all|the\s+text|the\s+words)\s+above\b",
            _I,
        ),
    ),
    (
        "user_query_tag",
        "delimiter_escape",
        re.compile(r"<\s*/?\s*user[\s_-]*query\b[^<>]{0,40}>", _I),
    ),
)

# Squashed rules run on the de-obfuscated text with everything but letters removed, to
# catch "i.g.n.o.r.e p-r-e-v-i-o-u-s" style spellings whose word gaps are lost.
_SQUASHED_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "ignore_previous_instructions",
        re.compile(
            r"ignore(?:all|the|your|any)*(?:previous|prior|above|earlier)"
            r"(?:instructions?|prompts?|rules)"
        ),
    ),
    (
        "disregard_instructions",
        re.compile(
            r"disregard(?:all|the|your|any)*(?:previous|prior|above|earlier)?"
            r"(?:instructions|prompts?|rules|guidelines)"
        ),
    ),
    ("forget_rules", re.compile(r"forget(?:all|your|the|about)*(?:instructions|rules|guidelines)")),
    (
        "reveal_system_prompt",
        re.compile(r"(?:reveal|print|show|display|dump|leak)(?:me)?(?:your|the)systemprompt"),
    ),
    ("developer_mode", re.compile(r"developermode(?:enabled|activated)")),
)

_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
# "1" also stands for "l" ("a11", "ru1es"); text containing "1" is read both ways.
_LEET_ONE_AS_L = str.maketrans({"1": "l"})

# A few Cyrillic and Greek letters that look like Latin ones (NFKC leaves them alone).
HOMOGLYPHS = str.maketrans(
    {
        "\u0430": "a",
        "\u0435": "e",
        "\u043e": "o",
        "\u0440": "p",
        "\u0441": "c",
        "\u0443": "y",
        "\u0445": "x",
        "\u0456": "i",
        "\u0455": "s",
        "\u0458": "j",
        "\u0410": "A",
        "\u0415": "E",
        "\u041e": "O",
        "\u0420": "P",
        "\u0421": "C",
        "\u0422": "T",
        "\u041d": "H",
        "\u041c": "M",
        "\u041a": "K",
        "\u0412": "B",
        "\u03bf": "o",
        "\u039f": "O",
        "\u03b1": "a",
        "\u0391": "A",
        "\u0395": "E",
    }
)

# Single letters separated by exactly one space, dot, dash or underscore: "i g n o r e".
_SPACED_LETTERS = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-_]){2,}[^\W\d_](?![^\W\d_])")
_SEPARATORS = re.compile(r"[ .\-_]")


def _deobfuscate(text: str) -> list[str]:
    """NFKC, drop format characters (zero-width etc.), map homoglyphs and leetspeak,
    and join letters written one by one. Returns one or two readings (see "1")."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = text.translate(HOMOGLYPHS)
    variants = [text.translate(_LEET)]
    if "1" in text:
        variants.append(text.translate(_LEET_ONE_AS_L).translate(_LEET))
    return [
        _SPACED_LETTERS.sub(lambda m: _SEPARATORS.sub("", m.group(0)), variant)
        for variant in variants
    ]


def _excerpt(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _EXCERPT_LIMIT else text[: _EXCERPT_LIMIT - 3] + "..."


def detect_injection(text: str) -> list[InjectionFinding]:
    """Return suspected prompt-injection attempts in ``text`` (empty list if none).

    Each rule reports at most once. Rules are first run on the text as written; those
    findings carry the rule's kind (see :data:`INJECTION_KINDS`). The text is then
    de-obfuscated (NFKC, zero-width characters removed, common homoglyphs and leetspeak
    ``0→o 1→i 3→e 4→a 5→s 7→t @→a $→s`` mapped, spaced-out letters joined) and the
    rules run again, plus a few rules on the letters-only form; rules that fire only
    there are reported with kind ``"obfuscated"`` and the de-obfuscated excerpt.
    Order is deterministic: plain findings in rule order, then obfuscated ones.
    """
    if not isinstance(text, str) or not text:
        return []
    return list(_findings(text))


@functools.lru_cache(maxsize=4096)
def _findings(text: str) -> tuple[InjectionFinding, ...]:
    """`detect_injection`, remembered per text: a reply is screened when it is stored and
    again each time a later prompt quotes it (S4 quotes each reply several times)."""
    findings: list[InjectionFinding] = []
    fired: set[str] = set()
    for name, kind, regex in _RULES:
        match = regex.search(text)
        if match:
            findings.append(InjectionFinding(kind, _excerpt(match.group(0)), name))
            fired.add(name)

    cleaned = _deobfuscate(text)
    readings = [clean for clean in cleaned if clean != text]
    squashed = [re.sub(r"[^a-z]", "", clean.lower()) for clean in cleaned]
    for name, _kind, regex in _RULES:
        if name in fired:
            continue
        for clean in readings:
            match = regex.search(clean)
            if match:
                findings.append(InjectionFinding("obfuscated", _excerpt(match.group(0)), name))
                fired.add(name)
                break
    for name, regex in _SQUASHED_RULES:
        if name in fired:
            continue
        for letters in squashed:
            match = regex.search(letters)
            if match:
                findings.append(InjectionFinding("obfuscated", _excerpt(match.group(0)), name))
                fired.add(name)
                break
    return tuple(findings)


def screen_reply(text: str) -> list[dict[str, str]]:
    """A model's reply, screened before any other agent sees it: the same detection the
    question gets (:func:`detect_injection`), as storable dicts (empty list: nothing found).
    A flagged reply is recorded on its call, withheld from its peers' prompts
    (:data:`REPLY_WITHHELD`) and sends the debate to review."""
    found: dict[str, dict[str, str]] = {}
    for reading in (text, *_json_strings(text)):
        for f in detect_injection(reading):
            found.setdefault(
                f.pattern, {"kind": f.kind, "pattern": f.pattern, "excerpt": f.excerpt}
            )
    return list(found.values())


def _json_strings(text: str) -> list[str]:
    """The text values of a JSON reply, decoded (a role tag after an escaped newline is only a
    line of its own once decoded, as peers would see it); none when it is not JSON."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return []
    strings: list[str] = []

    def walk(item) -> None:
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, dict):
            for v in item.values():
                walk(v)
        elif isinstance(item, list):
            for v in item:
                walk(v)

    walk(value)
    return ["\n".join(strings)] if strings else []


#: What other agents see instead of a reply flagged by :func:`screen_reply`.
REPLY_WITHHELD = (
    "[withheld: this text was flagged as a suspected prompt injection and is under review]"
)
