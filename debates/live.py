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
from debates.models import Challenge, Debate, LLMCall, Participant, Round, Statement, Vote
from debates.protocols import PROTOCOLS
from debates.protocols.round_robin import STANCE_SETS

Kind = Statement.Kind
#: Steps of the moderated debates, whose replies give confidences on the 0-1 scale.
MODERATED_KINDS = (Kind.ARGUMENT, Kind.MODERATION, Kind.SYNTHESIS)
KIND_LABELS = {
    Kind.ANALYSIS: "Analysis",
    Kind.REVISION: "Revision",
    Kind.ARGUMENT: "Argument",
    Kind.MODERATION: "Moderator's evaluation",
    Kind.SYNTHESIS: "Synthesis",
    Kind.TURN: "Turn",
}
#: What a statement's `decision` means, by kind ("" shows the decision alone).
STANCE_VERBS = {Kind.ARGUMENT: "argues", Kind.MODERATION: "leans"}
PARSE_FAILURES = {
    Kind.ANALYSIS: "The reply could not be parsed: fail-safe REFUSE.",
    Kind.REVISION: "The reply could not be parsed: fail-safe REFUSE.",
    Kind.TURN: "The reply could not be parsed: the turn counts as no stance (ABSTAIN).",
}
MODERATED_PARSE_FAILURE = "The reply could not be parsed: it carries no weight."


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"


def _unit(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


@dataclass(frozen=True)
class Detail:
    """A labelled part of a structured reply: evidence, open points, scores ..."""

    label: str
    items: tuple[str, ...]
    inline: bool = False  # one line ("label: a, b") rather than a list


@dataclass(frozen=True)
class Position:
    """A statement, with the same agent's previous one when the statement revises it, and how
    to show it for its kind (the page and the Markdown transcript read these)."""

    statement: Statement
    before: Statement | None = None

    @property
    def changed(self) -> bool:
        return self.statement.changed_position

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.statement.kind, self.statement.get_kind_display())

    @property
    def verb(self) -> str:
        return STANCE_VERBS.get(self.statement.kind, "")

    @property
    def shows_decision(self) -> bool:
        """A synthesis takes no side; every other statement has a position to show."""
        return self.statement.kind != Kind.SYNTHESIS

    def _confidence(self, s: Statement) -> str:
        return _unit(s.confidence / 100) if s.kind in MODERATED_KINDS else _number(s.confidence)

    @property
    def figures(self) -> str:
        """Confidence (0-1 in moderated debates, else 0-100) and risk where one is assessed,
        as "before → after" when the statement revises an earlier one."""
        s, before = self.statement, self.before
        if before is not None:
            parts = [f"confidence {self._confidence(before)} → {self._confidence(s)}"]
            if s.risk is not None:
                parts.append(f"risk {_number(before.risk)} → {_number(s.risk)}")
        else:
            parts = [f"confidence {self._confidence(s)}"]
            if s.risk is not None:
                parts.append(f"risk {_number(s.risk)}")
        return ", ".join(parts)

    @property
    def details(self) -> list[Detail]:
        s, d = self.statement, self.statement.details or {}
        found: list[Detail] = []

        def add(label: str, items, inline: bool = False) -> None:
            items = tuple(str(i) for i in (items or ()) if str(i).strip())
            if items:
                found.append(Detail(label, items, inline))

        if s.kind == Kind.ARGUMENT:
            add("Evidence", d.get("supporting_evidence"))
        elif s.kind == Kind.MODERATION:
            consensus = "reached" if d.get("consensus_reached") else "not reached"
            add("Scores", [f"pro quality {_unit(d.get('pro_quality'))}",
                           f"con quality {_unit(d.get('con_quality'))}",
                           f"consensus {consensus}"], inline=True)
            add("Open points", d.get("open_points"))
        elif s.kind == Kind.SYNTHESIS:
            add("Agreements", d.get("agreements"))
            add("Disagreements", d.get("disagreements"))
            add("Ways to resolve", d.get("resolution_paths"))
            add("Open questions", d.get("open_questions"))
        elif s.kind == Kind.TURN:
            add("Responds to", d.get("responds_to"), inline=True)
        return found

    @property
    def parse_failure(self) -> str:
        if not self.statement.parse_failed:
            return ""
        return PARSE_FAILURES.get(self.statement.kind, MODERATED_PARSE_FAILURE)


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
        return not (self.positions or self.challenges or self.vote or self.thinking
                    or self.failed_calls)


@dataclass
class RoundView:
    round: Round
    columns: list[Column]
    check: str = ""  # what the round ended with, where the protocol records it

    @property
    def is_running(self) -> bool:
        return self.round.status == Round.Status.RUNNING


@dataclass(frozen=True)
class Fact:
    label: str
    value: str


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
        return f"Round {current.number}: {current.name}, {state}."


def _tally(debate: Debate, votes: list[Vote]) -> list[tuple[str, int]]:
    """Votes per decision, in the protocol's order (then any other, such as VETO). A round
    robin counts the stances of the set it used (BUY / HOLD / SELL or ACT / WARN / REFUSE)."""
    if not votes:
        return []
    counts = Counter(v.decision for v in votes)
    known = list(getattr(PROTOCOLS.get(debate.protocol), "decisions", ()))
    stance_set = STANCE_SETS.get((debate.metadata or {}).get("stance_set"))
    if stance_set:
        known = list(stance_set)
    return [(d, counts[d]) for d in known + sorted(set(counts) - set(known))]


def _joined(items, empty: str = "none") -> str:
    return ", ".join(str(i) for i in items) or empty


def _review_facts(debate: Debate, md: dict) -> list[Fact]:
    facts = [Fact("Review", debate.get_review_status_display())]
    if md.get("review_reasons"):
        facts.append(Fact("Raised for review", _joined(r.replace("_", " ")
                                                        for r in md["review_reasons"])))
    return facts


def _s4_facts(debate: Debate, md: dict, tally) -> list[Fact]:
    agreement = md.get("agreement_percentage")
    consensus = md.get("consensus_type") or debate.consensus_type
    facts = []
    if tally:
        facts.append(Fact("Votes", _joined(f"{n} {d}" for d, n in tally)))
    facts += [
        Fact("Agreement", ("n/a" if agreement is None else f"{agreement}%")
             + (f" ({consensus})" if consensus else "")),
        Fact("Max risk", _number(md.get("max_risk"))),
        Fact("Average confidence", _number(md.get("avg_confidence"))),
        Fact("Veto", f"yes, by {md.get('veto_agent')}" if md.get("veto_applied") else "no"),
    ]
    if md.get("changed_position"):
        facts.append(Fact("Changed position", _joined(md["changed_position"])))
    return facts


def _by_role(values: dict | None, order) -> str:
    """`role -> score`, in the order of the debate's participants (stored JSON objects do not
    keep their order)."""
    values = values or {}
    roles = [r for r in order if r in values] + sorted(set(values) - set(order))
    return _joined(f"{role} {values[role]:g}" for role in roles)


def _moderated_facts(md: dict, roles: list[str]) -> list[Fact]:
    pro, con = md.get("pro_strength") or 0, md.get("con_strength") or 0
    if not (pro and con):
        ratio_text = "one side has no strength"
    elif pro >= con:
        ratio_text = f"pro is {pro / con:.2f}x con"
    else:
        ratio_text = f"con is {con / pro:.2f}x pro"
    stop = ("stopped early: the moderator was confident" if md.get("stopped_early")
            else "the moderator's confidence decided" if md.get("stop_reason") ==
            "moderator_confidence" else "every round was run")
    facts = [
        Fact("Weighted strength", f"pro {_number(pro)}, con {_number(con)} ({ratio_text}; "
             f"a side needs more than {md.get('margin_required', 1.2):g}x)"),
        Fact("Decision confidence", _unit(md.get("decision_confidence"))),
        Fact("Moderator's confidence by round",
             _joined(_unit(c) for c in md.get("moderator_confidence_by_round", []))
             + f" (stops above {_unit(md.get('consensus_threshold'))})"),
        Fact("Rounds", f"{md.get('rounds_run')} of {md.get('max_rounds')} ({stop})"),
        Fact("Moderator's last leaning", f"{md.get('moderator_leaning')} (consensus "
             f"{'reached' if md.get('moderator_consensus_reached') else 'not reached'})"),
        Fact("Evidence quality", _by_role(md.get("evidence_quality"), roles)),
        Fact("Logical consistency", _by_role(md.get("logical_consistency"), roles)),
    ]
    if md.get("open_points"):
        facts.append(Fact("Open points", "; ".join(md["open_points"])))
    return facts


def _round_robin_facts(md: dict, tally) -> list[Fact]:
    if md.get("consensus_reached"):
        consensus = f"reached in round {md.get('consensus_round')}"
        if md.get("first_consensus_round") != md.get("consensus_round"):
            consensus += f" (first in round {md.get('first_consensus_round')})"
    else:
        consensus = f"not reached after {md.get('total_rounds')} rounds"
    share = md.get("agreement_share") or 0
    leading = max((md.get("stance_breakdown") or {}).items(), key=lambda kv: kv[1],
                  default=(None, 0))[0]
    participation = md.get("agent_participation") or {}
    order = [a for a in md.get("speaking_order") or [] if a in participation]
    order += [a for a in participation if a not in order]
    facts = []
    if tally:
        facts.append(Fact("Final stances", _joined(f"{n} {d}" for d, n in tally if n)))
    facts += [
        Fact("Consensus", consensus),
        Fact("Agreement", f"{share:.0%}" + (f" on {leading}" if leading else "")
             + f" (needs {md.get('consensus_threshold', 0):.0%})"),
        Fact("Turns per agent", _joined(f"{a} {participation[a]}" for a in order)),
        Fact("Rounds and turns", f"{md.get('total_rounds')} rounds, {md.get('total_turns')} "
             f"turns (at least {md.get('min_turns_per_agent')} each, at most "
             f"{md.get('max_rounds')} rounds)"),
        Fact("Max risk", _number(md.get("max_risk"))),
        Fact("Average confidence", _number(md.get("avg_confidence"))),
    ]
    if md.get("changed_position"):
        facts.append(Fact("Changed position", _joined(md["changed_position"])))
    return facts


def decision_facts(debate: Debate, tally, participants: list[Participant]) -> list[Fact]:
    """The metadata a completed debate's decision shows, in each protocol's own terms."""
    if debate.status != Debate.Status.COMPLETED:
        return []
    md = debate.metadata or {}
    rule = md.get("rule")
    if rule == "confidence_weighted":
        facts = _moderated_facts(md, [p.role for p in participants])
    elif rule == "round_robin_consensus":
        facts = _round_robin_facts(md, tally)
    else:
        facts = _s4_facts(debate, md, tally)
    return facts + _review_facts(debate, md)


def _round_checks(debate: Debate) -> dict[int, str]:
    """Round robin: the consensus check after each round, as the metadata recorded it."""
    checks = {}
    for check in (debate.metadata or {}).get("consensus_by_round") or []:
        counts = _joined(f"{n} {s}" for s, n in (check.get("counts") or {}).items())
        outcome = (f"reached on {check.get('leading_stance')}" if check.get("reached")
                   else "not reached")
        checks[check.get("round")] = (f"Consensus check: {counts} "
                                      f"({check.get('share', 0):.0%} agree), {outcome}.")
    return checks


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


def _version(debate: Debate, rounds, statements, challenges, votes, calls) -> str:
    """Changes whenever anything the page shows changes (stored rows never change otherwise)."""
    state = repr(
        (
            debate.status, debate.decision, debate.decision_override, debate.review_status,
            debate.error, debate.completed_at, debate.tokens_in, debate.tokens_out,
            [(r.number, r.status) for r in rounds],
            [s.pk for s in statements], [c.pk for c in challenges], [v.pk for v in votes],
            [(c.pk, c.status) for c in calls],
        )
    )
    return hashlib.blake2b(state.encode(), digest_size=8).hexdigest()


def arrange(debate: Debate) -> DebateSoFar:
    participants = list(debate.participants.all())
    rounds = list(debate.rounds.all())
    statements = list(debate.statements.all())
    challenges = list(debate.challenges.all())
    votes = list(debate.votes.all())
    calls = list(debate.llm_calls.all())

    columns: dict[tuple[int, int], Column] = {}
    views = []
    checks = _round_checks(debate)
    for rnd in rounds:
        row = [Column(participant=p) for p in participants]
        columns.update({(rnd.pk, c.participant.pk): c for c in row})
        views.append(RoundView(round=rnd, columns=row, check=checks.get(rnd.number, "")))

    last_statement: dict[int, Statement] = {}
    for s in statements:  # ordered by round, so `before` is the agent's previous statement
        before = last_statement.get(s.participant_id) if s.previous_decision else None
        columns[(s.round_id, s.participant_id)].positions.append(Position(s, before))
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
    return DebateSoFar(
        debate=debate,
        participants=participants,
        rounds=views,
        thinking=[p for p in participants if p.pk in thinking_ids],
        tally=tally,
        usage=_usage(debate, calls),
        offline=any(routing.config().uses_offline(p.model_name) for p in participants),
        version=_version(debate, rounds, statements, challenges, votes, calls),
        facts=decision_facts(debate, tally, participants),
    )
