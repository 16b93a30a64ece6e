"""How a protocol's debates are shown: the live page, the Markdown and text transcripts and the
JSON export ask the debate's protocol, through its `presentation`, for what is its own.

A `Presentation` reads stored rows (statements, challenges, votes, the debate) by attribute
only: it never queries and imports nothing of Django, so a protocol package stays plain Python.
The defaults here show any protocol as its rounds happened; each protocol overrides what it
shows differently (S4's fixed four rounds, the moderated scores, the round-robin checks).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

WIDTH = 96


def number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"


def unit(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def percent(value: float | None) -> str:
    """A confidence as every page, transcript and export shows it: 0-100 %, whatever scale the
    protocol works on ("72 %"; stored statements are 0-100 for every protocol)."""
    if value is None:
        return "n/a"
    try:
        return f"{round(float(value), 1):g} %"
    except (TypeError, ValueError):
        return "n/a"


def percent_of_unit(value: float | None) -> str:
    """A 0-1 confidence (the moderated debate's decision and moderator confidences, as its
    metadata stores them) shown on the same 0-100 % scale
    (docs/concepts/index.md#one-scale-for-confidence)."""
    try:
        return percent(None if value is None else float(value) * 100)
    except (TypeError, ValueError):
        return "n/a"


def joined(items, empty: str = "none") -> str:
    return ", ".join(str(i) for i in items) or empty


def wrap(text: str, indent: str = "    ") -> str:
    """Text transcript: one paragraph, wrapped to the transcript's width."""
    return textwrap.fill(
        " ".join(text.split()), width=WIDTH, initial_indent=indent, subsequent_indent=indent
    )


def text_position(s) -> str:
    """Text transcript: a vote or statement's decision, confidence and risk in columns."""
    return f"{s.decision:<6} confidence {percent(s.confidence):>7}  risk {s.risk:>3g}"


@dataclass(frozen=True)
class Detail:
    """A labelled part of a structured reply: evidence, open points, scores ..."""

    label: str
    items: tuple[str, ...]
    inline: bool = False  # one line ("label: a, b") rather than a list


@dataclass(frozen=True)
class Fact:
    label: str
    value: str


def round_title(number: int, name: str) -> str:
    """ "Round 2: Challenge round", but "Round 2" alone when the name only repeats the number
    (a round named "Debate Round 2")."""
    bare = " ".join((name or "").split())
    if not bare or bare.lower().removeprefix("debate ").strip() == f"round {number}":
        return f"Round {number}"
    return f"Round {number}: {bare}"


class DetailList(list):
    """`Detail`s collected from a reply's stored details, skipping empty ones."""

    def add(self, label: str, items, inline: bool = False) -> None:
        items = tuple(str(i) for i in (items or ()) if str(i).strip())
        if items:
            self.append(Detail(label, items, inline))


class Presentation:
    """What every protocol shows the same way; a protocol overrides the rest."""

    #: Above the final votes on the page and in the Markdown transcript.
    vote_label = "Final position"
    #: A statement's heading, by kind (else the kind's own name).
    kind_labels: Mapping[str, str] = {}
    #: What a statement's `decision` means, by kind ("" shows the decision alone).
    stance_verbs: Mapping[str, str] = {}
    #: Kinds that state no position of their own (only figures are shown).
    sideless_kinds: tuple[str, ...] = ()
    #: Why an unparseable reply shows what it shows, by kind.
    parse_failures: Mapping[str, str] = {}
    default_parse_failure = "The reply could not be parsed."
    #: Marks an unparseable statement in the text transcript.
    text_parse_flag = "  [PARSE FAILURE]"
    #: The JSON export lists the final votes again as `final_positions`.
    export_final_positions = True

    # --- one statement ------------------------------------------------------------------------

    def statement_label(self, statement) -> str:
        return self.kind_labels.get(statement.kind, statement.get_kind_display())

    def confidence(self, statement) -> str:
        return percent(statement.confidence)

    def details(self, statement) -> list[Detail]:
        return []

    def parse_failure(self, statement) -> str:
        if not statement.parse_failed:
            return ""
        return self.parse_failures.get(statement.kind, self.default_parse_failure)

    # --- the decision -------------------------------------------------------------------------

    def tally_order(self, metadata: Mapping[str, Any], decisions: Sequence[str]) -> list[str]:
        """The decisions votes are counted under, in order (others follow, sorted)."""
        return list(decisions)

    def decision_facts(
        self, debate, metadata: Mapping[str, Any], tally, participants
    ) -> list[Fact]:
        return []

    def decision_notes(self, metadata: Mapping[str, Any]) -> list[str]:
        """Sentences shown under the decision's facts on the page."""
        return []

    def round_checks(self, metadata: Mapping[str, Any]) -> dict[int, str]:
        """What each round ended with, where the protocol records it (by round number)."""
        return {}

    # --- text transcript ----------------------------------------------------------------------

    def text_statement(self, s) -> list[str]:
        name = f"{s.participant.name:<18}"
        change = ""
        if s.previous_decision:
            change = (
                f"  (changed {s.previous_decision} -> {s.decision})"
                if s.changed_position
                else f"  (kept {s.decision})"
            )
        risk = "" if s.risk is None else f"  risk {s.risk:>3g}"
        flag = self.text_parse_flag if s.parse_failed else ""
        out = [
            f"  {name} {s.decision:<7} confidence {percent(s.confidence):>7}{risk}{change}{flag}",
            wrap(s.reasoning),
        ]
        out += [wrap(f"note: {note}", indent="      ") for note in s.notes]
        return out

    def text_rounds(self, debate, statements, rounds: Mapping[int, str]) -> list[str]:
        """Every round with its statements in the order they were made."""
        out: list[str] = []
        for number_, name in sorted(rounds.items()):
            out.append(f"\n{round_title(number_, name)}")
            for s in by_round(statements).get(number_, []):
                out.extend(self.text_statement(s))
        votes = list(debate.votes.all())
        if votes:
            out.append("\nFinal positions")
            for v in votes:
                out.append(f"  {v.participant.name:<18} {text_position(v)}")
        return out

    def text_summary(self, metadata: Mapping[str, Any]) -> list[str]:
        return []

    # --- JSON export --------------------------------------------------------------------------

    def export_statement(self, s) -> dict[str, Any]:
        """A statement: what kind of step, who, the position and the details.

        Confidences are 0-100; the moderated debate's 0-1 confidences are also in `details`."""
        data = {
            "step": s.kind,
            "agent": s.participant.name,
            "role": s.participant.role,
            "decision": s.decision,
            "confidence": s.confidence,
            "risk": s.risk,
            "reasoning": s.reasoning,
            "details": s.details,
        }
        if s.previous_decision:
            data["before"] = s.previous_decision
            data["changed_position"] = s.changed_position
        if s.parse_failed:
            data["parse_failed"] = True
        if s.notes:
            data["notes"] = s.notes
        return data

    def export_rounds(self, debate, statements, votes: list[dict]) -> list[dict]:
        """The rounds as they happened, each with its statements in the order they were made."""
        grouped = by_round(statements)
        return [
            {
                "number": r.number,
                "name": r.name,
                "status": r.status,
                "statements": [self.export_statement(s) for s in grouped.get(r.number, [])],
            }
            for r in sorted(debate.rounds.all(), key=lambda r: r.number)
        ]


def by_round(statements) -> dict[int, list]:
    """Statements by round number, each round's in the order they were made."""
    grouped: dict[int, list] = {}
    for s in sorted(statements, key=lambda s: (s.round.number, s.call_id or 0)):
        grouped.setdefault(s.round.number, []).append(s)
    return grouped
