"""Prompt pieces every protocol shares: the system message, agent text quoted safely, and
`LineFormat`, a prompt line its protocol writes and its offline responder reads back."""

from __future__ import annotations

import re
import string
from typing import Any

from protocols.base import ParticipantSpec
from protocols.defense import REPLY_WITHHELD, detect_injection
from protocols.framing import QUERY_DATA_INSTRUCTION, neutralise_query_tags

#: Agent-written text shown in a prompt stands between these lines (see `quoted`).
QUOTE_OPEN, QUOTE_CLOSE = "<<<", ">>>"
QUOTED_BLOCK = re.compile(r"<<<\n(.*?)\n>>>", re.S)


def quoted(text: str) -> str:
    """Agent-written text placed inside a later prompt: it cannot open or close our blocks
    (`<<<` / `>>>`, the question's tags), and text the defense layer flags as an injection
    attempt is not shown at all (`REPLY_WITHHELD` stands in its place)."""
    text = text or ""
    if detect_injection(text):
        return REPLY_WITHHELD
    return neutralise_query_tags(text).replace("<<<", "< < <").replace(">>>", "> > >")


def one_line(text: str) -> str:
    return " ".join(quoted(text).split())


def clipped(text: str, limit: int) -> str:
    """One line of at most `limit` characters (long arguments are cut when shown to others)."""
    line = one_line(text)
    return line if len(line) <= limit else line[: limit - 3].rsplit(" ", 1)[0] + "..."


def system_message(p: ParticipantSpec, *extra: str) -> dict[str, str]:
    """The agent's persona, its role and name in this debate, and the query-as-data rule."""
    lines = [
        p.system_prompt.strip(),
        "",
        f"Your role: {p.role}. Your name in this debate: {p.name}.",
    ]
    if p.guiding_question:
        lines.append(f"Your guiding question: {p.guiding_question}")
    lines.extend(extra)
    lines.append(QUERY_DATA_INSTRUCTION)
    return {"role": "system", "content": "\n".join(lines)}


class LineFormat:
    """A line of a prompt that a protocol writes and its offline responder reads back.

    The template is a `str.format` template; each field may name the pattern its value matches
    when the line is read (``.+?`` otherwise). Writing and reading from the one template keeps
    the prompt and the scripted responder in step: change the wording here and both follow.
    A line is matched from its start (`search`, `findall`); `whole_line` also pins its end.
    """

    def __init__(self, template: str, *, whole_line: bool = False, flags: int = 0, **patterns: str):
        self.template = template
        parts = ["^"]
        for literal, name, _spec, _conversion in string.Formatter().parse(template):
            parts.append(re.escape(literal))
            if name is not None:
                parts.append(f"(?P<{name}>{patterns.get(name, '.+?')})")
        if whole_line:
            parts.append("$")
        self.pattern = re.compile("".join(parts), re.M | flags)

    def format(self, **values: Any) -> str:
        return self.template.format(**values)

    def search(self, text: str) -> dict[str, str] | None:
        """The fields of the first such line in `text`, as written; None without one."""
        match = self.pattern.search(text)
        return match.groupdict() if match else None

    def findall(self, text: str) -> list[dict[str, str]]:
        return [m.groupdict() for m in self.pattern.finditer(text)]
