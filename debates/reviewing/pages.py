"""What a debate's review page shows: its rounds, position changes, unparseable replies,
metadata, and how far a failed debate got. `debate` comes from
`debates.selectors.debate_detail_queryset()`, so nothing here queries."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

from django.utils.safestring import SafeString

from debates.live import label_models
from debates.models import Debate, LLMCall, Statement
from protocols import ProtocolError, get_protocol
from protocols.presentation import round_title


@dataclass
class RoundView:
    number: int
    name: str
    statements: list = field(default_factory=list)
    challenges: list = field(default_factory=list)

    @property
    def title(self) -> str:
        return round_title(self.number, self.name)


@dataclass
class PositionChange:
    agent: str
    first: str
    first_round: int
    last: str
    last_round: int

    @property
    def changed(self) -> bool:
        return self.first != self.last


def debate_rounds(debate: Debate) -> list[RoundView]:
    """Statements and challenges grouped by round, for any protocol that stores them.

    `debate` must come from `debates.selectors.debate_detail_queryset()` (no queries here).
    """
    rounds = {r.id: RoundView(r.number, r.name) for r in debate.rounds.all()}
    for s in debate.statements.all():
        if s.round_id in rounds:
            rounds[s.round_id].statements.append(s)
    for c in debate.challenges.all():
        if c.round_id in rounds:
            rounds[c.round_id].challenges.append(c)
    return sorted(rounds.values(), key=lambda r: r.number)


def position_changes(debate: Debate) -> list[PositionChange]:
    """Each agent's first stated position against its last one (S4: round 1 against round 3)."""
    first: dict[int, Statement] = {}
    last: dict[int, Statement] = {}
    for s in debate.statements.all():  # ordered by round, then participant
        first.setdefault(s.participant_id, s)
        last[s.participant_id] = s
    return [
        PositionChange(
            agent=s.participant.name,
            first=s.decision,
            first_round=s.round.number,
            last=last[pid].decision,
            last_round=last[pid].round.number,
        )
        for pid, s in first.items()
    ]


def parse_failures(debate: Debate) -> list[dict[str, Any]]:
    """Every reply that could not be parsed, with what the model actually sent."""
    return [
        {
            "key": c.key,
            "round": c.round_number,
            "step": c.step,
            "raw": c.raw_response,
            "error": c.error,
        }
        for c in debate.llm_calls.all()
        if c.parse_failed
    ]


def metadata_rows(metadata: dict) -> list[tuple[str, str]]:
    return [
        (key, value if isinstance(value, str) else json.dumps(value, indent=1, sort_keys=True))
        for key, value in sorted((metadata or {}).items())
    ]


def transcript_context(debate: Debate) -> dict[str, Any]:
    """What `debates/_review_transcript.html` shows. `debate` from `debate_detail_queryset()`."""
    participants = list(debate.participants.all())
    label_models(participants, list(debate.llm_calls.all()))
    return {
        "debate": debate,
        "participants": participants,
        "rounds": debate_rounds(debate),
        "changes": position_changes(debate),
        "votes": list(debate.votes.all()),
        "parse_failures": parse_failures(debate),
        "metadata_rows": metadata_rows(debate.metadata),
    }


@dataclass
class Progress:
    """How far a failed debate got: what a re-run starts from."""

    calls_done: int
    calls_failed: int
    calls_in_flight: int
    rounds: int
    statements: int


def debate_progress(debate: Debate) -> Progress:
    """`debate` from `debates.selectors.debate_detail_queryset()` (no queries here)."""
    calls = [c.status for c in debate.llm_calls.all()]
    return Progress(
        calls_done=calls.count(LLMCall.Status.DONE),
        calls_failed=calls.count(LLMCall.Status.FAILED),
        calls_in_flight=calls.count(LLMCall.Status.PENDING),
        rounds=len(debate.rounds.all()),
        statements=len(debate.statements.all()),
    )


#: Each status's label, made once (`get_status_display` builds the choices again every call).
STATUS_LABELS = dict(Debate.Status.choices)


def decision_html(debate: Debate) -> SafeString:
    """The effective decision, with the machine's original beside it when a reviewer overrode
    it: the review page and its transcript (`{% review_decision debate %}`) and each of the
    queue's rows, so it is made without the template engine; every text is escaped
    (`html.escape`, as the templates' autoescape)."""
    decision = html.escape(debate.decision)
    if debate.is_overridden:
        effective = html.escape(debate.effective_decision)
        if debate.decision:
            who = (
                "fallback at the review deadline, no reviewer"
                if debate.review_status == Debate.ReviewStatus.EXPIRED
                else "reviewer override"
            )
            why = (
                f'{who}; machine decided <span class="decision-{decision}" '
                f'data-testid="machine-decision">{decision}</span>'
            )
        else:
            status = html.escape(str(STATUS_LABELS.get(debate.status, debate.status)).lower())
            why = f"set by a reviewer; the debate {status} without a decision"
        return SafeString(
            f'<span class="decision-{effective}" data-testid="effective-decision">{effective}'
            f'</span> <span class="override">{why}</span>'
        )
    if debate.status == Debate.Status.FAILED:
        return SafeString('<span data-testid="effective-decision">none: the debate failed</span>')
    return SafeString(
        f'<span class="decision-{decision}" data-testid="effective-decision">'
        f"{decision or '(none yet)'}</span>"
    )


def allowed_decisions(debate: Debate) -> tuple[str, ...]:
    """The decisions a reviewer may set: the debate's protocol's (none if it is gone)."""
    try:
        return tuple(get_protocol(debate.protocol).decisions)
    except ProtocolError:
        return ()
