"""A debate as readable text, for the terminal."""

from __future__ import annotations

import re
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


# --- Markdown -----------------------------------------------------------------------------------

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>&#|~])")


def _md(text: str) -> str:
    """Text that is not ours (the question, agents' replies) as literal Markdown: no HTML,
    links, code or emphasis can come out of it when the file is rendered."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join((text or "").split()))


def _md_figures(item) -> str:
    return f"**{item.decision}** (confidence {item.confidence:g}, risk {item.risk:g})"


def _md_round(view) -> list[str]:
    out = [f"## Round {view.round.number}: {_md(view.round.name)}", ""]
    for column in view.columns:
        name = _md(column.participant.name)
        for position in column.positions:
            s = position.statement
            if s.previous_decision:
                was = s.previous_decision
                change = (f"changed position {was} → {s.decision}" if position.changed
                          else f"kept {s.decision}")
                out.append(f"### {name}: revision, {change}")
                if position.before is not None:
                    out.append(f"- Before: {_md_figures(position.before)}")
                out.append(f"- After: {_md_figures(s)}")
            else:
                out.append(f"### {name}: {s.get_kind_display().lower()}")
                out.append(f"- Position: {_md_figures(s)}")
            if s.parse_failed:
                out.append("- The reply could not be parsed: fail-safe REFUSE.")
            out += [f"- Note: {_md(note)}" for note in s.notes]
            out += ["", f"> {_md(s.reasoning)}", ""]
        for c in column.challenges:
            label = "Agrees" if c.stance == c.Stance.AGREE else "Challenge"
            suggestion = f" (suggests {c.suggested_decision})" if c.suggested_decision else ""
            out += [
                f"### {name} → {_md(c.challenged.name)}: {label}{suggestion}",
                "",
                f"> {_md(c.argument)}",
                "",
            ]
        if column.vote is not None:
            out += [f"- Final vote, {name}: {_md_figures(column.vote)}"]
        for call in column.failed_calls:
            out += [f"- {name}: a call failed: {_md(call.error)}"]
    if out[-1] != "":
        out.append("")
    return out


def render_markdown(debate: Debate) -> str:
    """The transcript as Markdown. `debate` should come from
    `selectors.debate_detail_queryset()`."""
    from debates.live import arrange

    so_far = arrange(debate)
    md = debate.metadata
    out = [
        f"# Debate: {_md(debate.query)}",
        "",
        f"- Protocol: {debate.protocol}",
        f"- Status: {debate.get_status_display()}",
        "- Agents: " + ", ".join(
            f"{_md(p.name)} ({_md(p.role)}, {_md(p.model_name)})" for p in so_far.participants
        ),
        f"- Started: {debate.created_at.isoformat(timespec='seconds')}",
    ]
    if debate.completed_at:
        out.append(f"- Finished: {debate.completed_at.isoformat(timespec='seconds')}")
    if so_far.offline:
        out.append(f"- Note: answers come from the {OFFLINE_NOTICE}.")
    for finding in debate.injection_findings:
        out.append(f"- Defense: suspected prompt injection ({_md(finding.get('kind', ''))}): "
                   f"\"{_md(finding.get('excerpt', ''))}\"")
    out.append("")
    for view in so_far.rounds:
        out += _md_round(view)

    if debate.status == Debate.Status.COMPLETED:
        out += [f"## Decision: {debate.effective_decision}", ""]
        if debate.is_overridden:
            out += [f"A reviewer overrode the rules' decision, {debate.decision}.", ""]
        out += [_md(debate.reasoning), ""]
        if so_far.tally:
            out.append("- Votes: " + ", ".join(f"{n} {d}" for d, n in so_far.tally))
        agreement = md.get("agreement_percentage")
        veto = f"yes, by {_md(md.get('veto_agent') or '')}" if md.get("veto_applied") else "no"
        out += [
            f"- Agreement: {'n/a' if agreement is None else f'{agreement}%'}"
            f" ({md.get('consensus_type') or debate.consensus_type or 'n/a'})",
            f"- Max risk: {md.get('max_risk', 'n/a')}",
            f"- Average confidence: {md.get('avg_confidence', 'n/a')}",
            f"- Veto: {veto}",
        ]
        if md.get("changed_position"):
            out.append("- Changed position: " + ", ".join(_md(n) for n in md["changed_position"]))
        out.append(f"- Review: {debate.get_review_status_display()}")
        out.append("")
    elif debate.status == Debate.Status.FAILED:
        out += ["## The debate failed", "", _md(debate.error), ""]
    else:
        out += [f"The debate is {debate.get_status_display().lower()}; this is what it has "
                "said so far.", ""]

    usage = so_far.usage
    duration = "n/a" if usage.duration_seconds is None else f"{usage.duration_seconds:.2f} s"
    out += [
        "## Usage",
        "",
        f"- LLM calls: {usage.calls}",
        f"- Tokens: {usage.tokens_in} in, {usage.tokens_out} out",
        f"- Cost: ${usage.cost_usd}",
        f"- Time: {duration}",
        "",
    ]
    return "\n".join(out)
