"""A debate as readable text, for the terminal."""

from __future__ import annotations

import textwrap

from agents.gateway import OFFLINE_NOTICE, is_offline_model
from debates.models import Debate, Statement

WIDTH = 96
VOTE_ORDER = ("ACT", "WARN", "REFUSE", "VETO")


def _wrap(text: str, indent: str = "    ") -> str:
    return textwrap.fill(
        " ".join(text.split()), width=WIDTH, initial_indent=indent, subsequent_indent=indent
    )


def _position(s) -> str:
    return f"{s.decision:<6} confidence {s.confidence:>3g}  risk {s.risk:>3g}"


def render_text(debate: Debate) -> str:
    """`debate` should come from `selectors.debate_detail_queryset()`."""
    participants = list(debate.participants.all())
    statements = list(debate.statements.all())
    rounds = {r.number: r.name for r in debate.rounds.all()}
    out = [
        "=" * WIDTH,
        f"Debate {debate.id}",
        f"Question: {debate.query}",
        f"Protocol: {debate.protocol}    Status: {debate.status}",
        "Agents:   " + ", ".join(f"{p.name} ({p.model_name})" for p in participants),
    ]
    if any(is_offline_model(p.model_name) for p in participants):
        out.append(f"Note:     answers come from the {OFFLINE_NOTICE}.")
    for finding in debate.injection_findings:
        out.append(f"Defense:  suspected prompt injection ({finding['kind']}): "
                   f"\"{finding['excerpt']}\"")
    out.append("=" * WIDTH)

    out.append(f"\nRound 1: {rounds.get(1, 'Initial Analysis')}")
    for s in statements:
        if s.kind == Statement.Kind.ANALYSIS:
            flag = "  [PARSE FAILURE: fail-safe REFUSE]" if s.parse_failed else ""
            out.append(f"  {s.participant.name:<16} {_position(s)}{flag}")
            out.append(_wrap(s.reasoning))

    out.append(f"\nRound 2: {rounds.get(2, 'Challenge Round')}")
    for c in debate.challenges.all():
        label = "AGREES WITH" if c.stance == "agree" else "CHALLENGES"
        out.append(f"  {c.challenger.name} {label} {c.challenged.name}")
        out.append(_wrap(c.argument))

    out.append(f"\nRound 3: {rounds.get(3, 'Revision Round')}")
    for s in statements:
        if s.kind == Statement.Kind.REVISION:
            change = (
                f"CHANGED {s.previous_decision} -> {s.decision}"
                if s.changed_position
                else f"kept {s.decision}"
            )
            out.append(f"  {s.participant.name:<16} {_position(s)}  ({change})")
            out.append(_wrap(s.reasoning))
            for note in s.notes:
                out.append(_wrap(f"note: {note}", indent="      "))

    out.append(f"\nRound 4: {rounds.get(4, 'Final Voting')}")
    for v in debate.votes.all():
        out.append(f"  {v.participant.name:<16} {_position(v)}")

    out.append("")
    out.append("=" * WIDTH)
    if debate.status == Debate.Status.COMPLETED:
        md = debate.metadata
        out.append(f"DECISION: {debate.decision}")
        if debate.is_overridden:
            out.append(f"REVIEWER OVERRIDE: {debate.effective_decision} (replaces the machine's "
                       f"{debate.decision})")
        out.append(_wrap(debate.reasoning, indent="  "))
        breakdown = md.get("vote_breakdown", {})
        agreement = md.get("agreement_percentage")
        out.append(
            f"  agreement {'n/a' if agreement is None else f'{agreement}%'}  "
            f"consensus {md.get('consensus_type')}  max risk {md.get('max_risk')}  "
            f"avg confidence {md.get('avg_confidence')}  "
            f"veto {'yes' if md.get('veto_applied') else 'no'}"
        )
        out.append(
            "  votes " + ", ".join(f"{k} {breakdown[k]}" for k in VOTE_ORDER if k in breakdown)
        )
        if md.get("changed_position"):
            out.append("  changed position: " + ", ".join(md["changed_position"]))
    else:
        out.append(f"STATUS: {debate.status}  {debate.error}")
    duration = debate.duration_seconds
    out.append(
        f"  tokens in {debate.tokens_in}, out {debate.tokens_out}; cost ${debate.cost_usd}; "
        f"time {duration:.2f} s" if duration is not None else ""
    )
    out.append("=" * WIDTH)
    return "\n".join(out)
