"""Prompt pieces every protocol shares: the system message and agent text quoted safely."""

from __future__ import annotations

from debates.defense import QUERY_DATA_INSTRUCTION, neutralise_query_tags
from debates.protocols.base import ParticipantSpec


def quoted(text: str) -> str:
    """Agent-written text placed inside a later prompt: it cannot open or close our blocks."""
    return neutralise_query_tags(text or "").replace("<<<", "< < <").replace(">>>", "> > >")


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
