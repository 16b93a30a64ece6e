"""A debate arranged for reading: round by round, one column per agent, with what is in flight.

`arrange` takes a debate loaded by `selectors.debate_detail_queryset()` (everything prefetched)
and makes no queries. The live page, its partial and the Markdown transcript all read this
arrangement, so they show the same thing, for any protocol: statements, challenges and calls
are placed by round and participant, and the final votes go to the last round.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from agents import routing
from debates.charts import debate_charts
from debates.models import Challenge, Debate, LLMCall, Participant, Round, Statement, Vote
from debates.timeline import Timeline, call_timeline
from protocols import PROTOCOLS, presentation_for
from protocols.presentation import Detail, Fact, Presentation, joined, number

__all__ = [
    "DebateSoFar",
    "Detail",
    "Fact",
    "Position",
    "arrange",
    "decision_facts",
    "label_models",
]


def label_models(participants: list[Participant], calls: list[LLMCall]) -> None:
    """Set each participant's `model_label`: its model when pinned; when routed by step and
    role, the models that answered its calls so far, after "routed:" (or how it is routed,
    before any has answered)."""
    answered: dict[int, list[str]] = {}
    for call in calls:
        names = answered.setdefault(call.participant_id, [])
        if call.model and call.status == LLMCall.Status.DONE and call.model not in names:
            names.append(call.model)
    for p in participants:
        names = answered.get(p.pk)
        if p.model_name or not names:
            p.model_label = routing.label(p.model_name)
        else:
            p.model_label = "routed: " + ", ".join(names)


@dataclass(frozen=True)
class Position:
    """A statement, with the same agent's previous one when the statement revises it, and how
    to show it for its kind, as its protocol's presentation says (the page and the Markdown
    transcript read these)."""

    statement: Statement
    before: Statement | None = None
    presentation: Presentation = field(default_factory=Presentation)

    @property
    def changed(self) -> bool:
        return self.statement.changed_position

    @property
    def label(self) -> str:
        return self.presentation.statement_label(self.statement)

    @property
    def verb(self) -> str:
        return self.presentation.stance_verbs.get(self.statement.kind, "")

    @property
    def shows_decision(self) -> bool:
        """A statement that takes no side (a synthesis) shows only its figures."""
        return self.statement.kind not in self.presentation.sideless_kinds

    @property
    def figures(self) -> str:
        """Confidence (as the protocol shows it) and risk where one is assessed, as
        "before → after" when the statement revises an earlier one."""
        s, before, confidence = self.statement, self.before, self.presentation.confidence
        if before is not None:
            parts = [f"confidence {confidence(before)} → {confidence(s)}"]
            if s.risk is not None:
                parts.append(f"risk {number(before.risk)} → {number(s.risk)}")
        else:
            parts = [f"confidence {confidence(s)}"]
            if s.risk is not None:
                parts.append(f"risk {number(s.risk)}")
        return ", ".join(parts)

    @property
    def details(self) -> list[Detail]:
        return self.presentation.details(self.statement)

    @property
    def parse_failure(self) -> str:
        return self.presentation.parse_failure(self.statement)


@dataclass
class Column:
    participant: Participant
    positions: list[Position] = field(default_factory=list)
    challenges: list[Challenge] = field(default_factory=list)
    vote: Vote | None = None
    thinking: int = 0
    failed_calls: list[LLMCall] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not (
            self.positions or self.challenges or self.vote or self.thinking or self.failed_calls
        )


@dataclass
class RoundView:
    round: Round
    columns: list[Column]
    check: str = ""  # what the round ended with, where the protocol records it

    @property
    def is_running(self) -> bool:
        return self.round.status == Round.Status.RUNNING


@dataclass(frozen=True)
class Usage:
    calls: int
    calls_done: int
    tokens_in: int
    tokens_out: int
    cost_usd: Decimal
    duration_seconds: float | None


@dataclass
class DebateSoFar:
    debate: Debate
    participants: list[Participant]
    rounds: list[RoundView]
    thinking: list[Participant]
    tally: list[tuple[str, int]]
    usage: Usage
    offline: bool
    version: str
    facts: list[Fact] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    vote_label: str = "Final position"
    charts: list = field(default_factory=list)
    timeline: Timeline | None = None

    @property
    def summary(self) -> str:
        """One line for screen readers, announced when it changes."""
        debate = self.debate
        if debate.status == Debate.Status.COMPLETED:
            return f"Debate finished. Decision: {debate.effective_decision}."
        if debate.status == Debate.Status.FAILED:
            return "The debate failed."
        if not self.rounds:
            return "Waiting for a worker to start the debate."
        current = self.rounds[-1].round
        state = "in progress" if current.status == Round.Status.RUNNING else "done"
        return f"{current.title}, {state}."


def _tally(debate: Debate, votes: list[Vote]) -> list[tuple[str, int]]:
    """Votes per decision, in the order the protocol counts them (then any other, such as
    VETO)."""
    if not votes:
        return []
    counts = Counter(v.decision for v in votes)
    cls = PROTOCOLS.get(debate.protocol)
    known = presentation_for(debate.protocol).tally_order(
        debate.metadata or {}, cls.decisions if cls is not None else ()
    )
    return [(d, counts[d]) for d in known + sorted(set(counts) - set(known))]


def _review_facts(debate: Debate, md: dict) -> list[Fact]:
    facts = [Fact("Review", debate.get_review_status_display())]
    if md.get("review_reasons"):
        facts.append(
            Fact("Raised for review", joined(r.replace("_", " ") for r in md["review_reasons"]))
        )
    return facts


def decision_facts(debate: Debate, tally, participants: list[Participant]) -> list[Fact]:
    """The metadata a completed debate's decision shows, in its protocol's own terms."""
    if debate.status != Debate.Status.COMPLETED:
        return []
    md = debate.metadata or {}
    facts = presentation_for(debate.protocol).decision_facts(debate, md, tally, participants)
    return facts + _review_facts(debate, md)


def _usage(debate: Debate, calls: list[LLMCall]) -> Usage:
    done = [c for c in calls if c.status == LLMCall.Status.DONE]
    if debate.is_finished and (debate.tokens_in or debate.tokens_out):
        tokens_in, tokens_out, cost = debate.tokens_in, debate.tokens_out, debate.cost_usd
    else:  # the debate's totals are written when it ends; until then, add up the calls
        tokens_in = sum(c.tokens_in for c in done)
        tokens_out = sum(c.tokens_out for c in done)
        cost = sum((c.cost_usd for c in done), Decimal(0))
    return Usage(
        calls=len(calls),
        calls_done=len(done),
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost_usd=cost,
        duration_seconds=debate.duration_seconds,
    )


VERSION_FIELDS = (
    "status",
    "decision",
    "decision_override",
    "review_status",
    "error",
    "completed_at",
    "tokens_in",
    "tokens_out",
)


def version_of(
    fields: tuple, rounds: list[str], statements, challenges, votes, calls: list[str]
) -> str:
    """Changes whenever anything the page shows changes (stored rows never change otherwise).

    `fields`: the debate's VERSION_FIELDS; `rounds`: "number:status" by number; `statements`,
    `challenges`, `votes`: their ids; `calls`: "id:status". The live poll computes the same
    from one query (`selectors.debate_live_version`), so an unchanged poll loads nothing else.
    """
    state = repr(
        (tuple(fields), list(rounds), sorted(statements), sorted(challenges), sorted(votes))
        + (sorted(calls, key=lambda c: int(c.split(":", 1)[0])),)
    )
    return hashlib.blake2b(state.encode(), digest_size=8).hexdigest()


def _version(debate: Debate, rounds, statements, challenges, votes, calls) -> str:
    return version_of(
        tuple(getattr(debate, name) for name in VERSION_FIELDS),
        [f"{r.number}:{r.status}" for r in sorted(rounds, key=lambda r: r.number)],
        [s.pk for s in statements],
        [c.pk for c in challenges],
        [v.pk for v in votes],
        [f"{c.pk}:{c.status}" for c in calls],
    )


def arrange(debate: Debate) -> DebateSoFar:
    participants = list(debate.participants.all())
    rounds = list(debate.rounds.all())
    statements = list(debate.statements.all())
    challenges = list(debate.challenges.all())
    votes = list(debate.votes.all())
    calls = list(debate.llm_calls.all())
    label_models(participants, calls)

    presentation = presentation_for(debate.protocol)
    columns: dict[tuple[int, int], Column] = {}
    views = []
    checks = presentation.round_checks(debate.metadata or {})
    for rnd in rounds:
        row = [Column(participant=p) for p in participants]
        columns.update({(rnd.pk, c.participant.pk): c for c in row})
        views.append(RoundView(round=rnd, columns=row, check=checks.get(rnd.number, "")))

    last_statement: dict[int, Statement] = {}
    for s in statements:  # ordered by round, so `before` is the agent's previous statement
        before = last_statement.get(s.participant_id) if s.previous_decision else None
        columns[(s.round_id, s.participant_id)].positions.append(Position(s, before, presentation))
        last_statement[s.participant_id] = s
    for c in challenges:
        columns[(c.round_id, c.challenger_id)].challenges.append(c)
    if views:
        for v in votes:
            columns[(views[-1].round.pk, v.participant_id)].vote = v

    round_ids = {r.number: r.pk for r in rounds}
    thinking_ids: set[int] = set()
    for call in calls:
        column = columns.get((round_ids.get(call.round_number), call.participant_id))
        if column is None:
            continue
        if call.status == LLMCall.Status.PENDING and not debate.is_finished:
            column.thinking += 1
            thinking_ids.add(call.participant_id)
        elif call.status == LLMCall.Status.FAILED:
            column.failed_calls.append(call)

    tally = _tally(debate, votes)
    so_far = DebateSoFar(
        debate=debate,
        participants=participants,
        rounds=views,
        thinking=[p for p in participants if p.pk in thinking_ids],
        tally=tally,
        usage=_usage(debate, calls),
        offline=any(routing.config().uses_offline(p.model_name) for p in participants),
        version=_version(debate, rounds, statements, challenges, votes, calls),
        facts=decision_facts(debate, tally, participants),
        notes=(
            presentation.decision_notes(debate.metadata or {})
            if debate.status == Debate.Status.COMPLETED
            else []
        ),
        vote_label=presentation.vote_label,
        timeline=call_timeline(calls, participants),
    )
    so_far.charts = debate_charts(so_far)
    return so_far
