"""Text PostgreSQL will store, whatever a model sent.

PostgreSQL refuses two kinds of character a reply can hold: NUL (in text columns, and in jsonb
even as the escape `\\u0000`) and lone UTF-16 surrogates (Python strings from JSON may hold
them; they have no UTF-8 form). A reply holding either must still be stored, so:

- `escape` / `unescape` keep it faithfully: only when the text holds a refused character, every
  backslash is doubled and each refused character written as `\\uXXXX`; `unescape` gives back
  the exact text. The caller stores the flag `escape` returns beside the text.
- `clean_text` is a storable copy for readers (errors, messages): each refused character becomes
  U+FFFD, the replacement character.
- `clean_reply` is the copy parsers read: `clean_text`, and also each JSON escape of a refused
  character (`\\u0000`, a lone `\\ud800`) becomes `\\ufffd`, so values parsed from the reply's
  JSON are storable too.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_REFUSED = re.compile("[\x00\ud800-\udfff]")
# Left to right: an escaped backslash (skipped whole, so `\\u0000` is text, not an escape), a
# valid surrogate pair (kept), or the escape of a refused character (replaced).
_JSON_ESCAPES = re.compile(
    r"\\\\"
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})"
)
_ESCAPES = re.compile(r"\\\\|\\u([0-9a-f]{4})")


def has_refused(text: str) -> bool:
    return _REFUSED.search(text) is not None


def clean_text(text: str) -> str:
    return _REFUSED.sub(REPLACEMENT, text)


def _json_escape(match: re.Match) -> str:
    escape = match.group()
    return escape if escape == "\\\\" or len(escape) == 12 else "\\ufffd"


def clean_reply(text: str) -> str:
    return _JSON_ESCAPES.sub(_json_escape, clean_text(text))


def escape(text: str, *, force: bool = False) -> tuple[str, bool]:
    """`(storable text, escaped)`. The text is unchanged unless it holds a refused character
    (or `force`, to escape several texts alike)."""
    if not (force or has_refused(text)):
        return text, False
    doubled = text.replace("\\", "\\\\")
    return _REFUSED.sub(lambda m: f"\\u{ord(m.group()):04x}", doubled), True


def unescape(text: str, escaped: bool) -> str:
    """The exact text `escape` was given."""
    if not escaped:
        return text
    return _ESCAPES.sub(lambda m: "\\" if m.group(1) is None else chr(int(m.group(1), 16)), text)
