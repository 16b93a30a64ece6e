"""A debate as readable text, for the terminal."""

from __future__ import annotations

import re
import textwrap

from agents import routing
from agents.gateway import OFFLINE_NOTICE
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
        "Options:  " + (", ".join(f"{k}={v}" for k, v in debate.options.items() if v != "")
                        or "none"),
        "Agents:   " + ", ".join(f"{p.name} ({routing.label(p.model_name)})" for p in participants),
    ]
    choice = debate.metadata.get("protocol_choice")
    if choice:
        out.append(f"Chosen:   {choice['requested']} -> {choice['chosen']} ({choice['reason']})")
    if any(routing.config().uses_offline(p.model_name) for p in participants):
        out.append(f"Note:     answers come from the {OFFLINE_NOTICE}.")
    for finding in debate.injection_findings:
        out.append(f"Defense:  suspected prompt injection ({finding['kind']}): "
                   f"\"{finding['excerpt']}\"")
    out.append("=" * WIDTH)

    if debate.protocol == "s4":
        out.extend(_s4_rounds(debate, statements, rounds))
    else:
        out.extend(_rounds_as_they_happened(debate, statements, rounds))

    out.append("")
    out.append("=" * WIDTH)
    if debate.status == Debate.Status.COMPLETED:
        md = debate.metadata
        out.append(f"DECISION: {debate.decision}")
        if debate.is_overridden:
            out.append(f"REVIEWER OVERRIDE: {debate.effective_decision} (replaces the machine's "
                       f"{debate.decision})")
        out.append(_wrap(debate.reasoning, indent="  "))
        if md.get("rule") == "confidence_weighted":
            out.extend(_moderated_summary(md))
        elif md.get("rule") == "round_robin_consensus":
            out.extend(_round_robin_summary(md))
        else:
            out.extend(_s4_summary(md))
        if md.get("review_reasons"):
            out.append("  goes to review: " + ", ".join(md["review_reasons"]))
    else:
        out.append(f"STATUS: {debate.status}  {debate.error}")
    duration = debate.duration_seconds
    out.append(
        f"  tokens in {debate.tokens_in}, out {debate.tokens_out}; cost ${debate.cost_usd}; "
        f"time {duration:.2f} s" if duration is not None else ""
    )
    out.append("=" * WIDTH)
    return "\n".join(out)


def _s4_rounds(debate: Debate, statements: list[Statement], rounds: dict[int, str]) -> list[str]:
    out = [f"\nRound 1: {rounds.get(1, 'Initial Analysis')}"]
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

    return out


def _s4_summary(md: dict) -> list[str]:
    breakdown = md.get("vote_breakdown", {})
    agreement = md.get("agreement_percentage")
    out = [
        f"  agreement {'n/a' if agreement is None else f'{agreement}%'}  "
        f"consensus {md.get('consensus_type')}  max risk {md.get('max_risk')}  "
        f"avg confidence {md.get('avg_confidence')}  "
        f"veto {'yes' if md.get('veto_applied') else 'no'}",
        "  votes " + ", ".join(f"{k} {breakdown[k]}" for k in VOTE_ORDER if k in breakdown),
    ]
    if md.get("changed_position"):
        out.append("  changed position: " + ", ".join(md["changed_position"]))
    return out


def _unit(value: float) -> str:
    return f"{value / 100:.2f}"


def _statement_lines(s: Statement) -> list[str]:
    name = f"{s.participant.name:<18}"
    flag = "  [PARSE FAILURE: no weight]" if s.parse_failed else ""
    d = s.details or {}
    if s.kind == Statement.Kind.ARGUMENT:
        out = [f"  {name} argues {s.decision:<8} confidence {_unit(s.confidence)}{flag}",
               _wrap(s.reasoning)]
        out += [_wrap(f"evidence: {item}", indent="      ") for item in
                d.get("supporting_evidence", [])]
        return out
    if s.kind == Statement.Kind.SYNTHESIS:
        out = [f"  {name} synthesis, confidence {_unit(s.confidence)}{flag}", _wrap(s.reasoning)]
        for label in ("agreements", "disagreements", "resolution_paths", "open_questions"):
            if d.get(label):
                out.append(_wrap(f"{label.replace('_', ' ')}: {'; '.join(d[label])}",
                                 indent="      "))
        return out
    if s.kind == Statement.Kind.MODERATION:
        quality = " / ".join(
            f"{side} {'n/a' if d.get(key) is None else f'{d[key]:.2f}'}"
            for side, key in (("pro", "pro_quality"), ("con", "con_quality"))
        )
        out = [
            f"  {name} evaluates: quality {quality}; leaning {s.decision}; consensus "
            f"{'yes' if d.get('consensus_reached') else 'no'}; confidence "
            f"{_unit(s.confidence)}{flag}",
            _wrap(s.reasoning),
        ]
        out += [_wrap(f"open point: {point}", indent="      ") for point in
                d.get("open_points", [])]
        return out
    change = ""
    if s.previous_decision:
        change = (f"  (changed {s.previous_decision} -> {s.decision})" if s.changed_position
                  else f"  (kept {s.decision})")
    risk = "" if s.risk is None else f"  risk {s.risk:>3g}"
    flag = "  [PARSE FAILURE: counts as no stance]" if s.parse_failed else ""
    out = [f"  {name} {s.decision:<7} confidence {s.confidence:>3g}{risk}{change}{flag}",
           _wrap(s.reasoning)]
    out += [_wrap(f"note: {note}", indent="      ") for note in s.notes]
    return out


def _rounds_as_they_happened(
    debate: Debate, statements: list[Statement], rounds: dict[int, str]
) -> list[str]:
    """Every round with its statements in the order they were made."""
    out: list[str] = []
    by_round: dict[int, list[Statement]] = {}
    for s in sorted(statements, key=lambda s: (s.round.number, s.call_id or 0)):
        by_round.setdefault(s.round.number, []).append(s)
    for number in sorted(rounds):
        out.append(f"\nRound {number}: {rounds[number]}")
        for s in by_round.get(number, []):
            out.extend(_statement_lines(s))
    votes = list(debate.votes.all())
    if votes:
        out.append("\nFinal positions")
        for v in votes:
            out.append(f"  {v.participant.name:<18} {_position(v)}")
    return out


def _moderated_summary(md: dict) -> list[str]:
    ratio = md.get("strength_ratio")
    confidences = ", ".join(f"{c:g}" for c in md.get("moderator_confidence_by_round", []))
    out = [
        f"  pro strength {md.get('pro_strength')}  con strength {md.get('con_strength')}  "
        f"ratio {'n/a' if ratio is None else ratio} (more than {md.get('margin_required')}x "
        f"needed)  decision confidence {md.get('decision_confidence')}",
        f"  consensus {md.get('consensus_type')}  moderator confidence by round: {confidences} "
        f"(stops above {md.get('consensus_threshold')}); {md.get('rounds_run')} of "
        f"{md.get('max_rounds')} rounds",
    ]
    if md.get("open_points"):
        out.append(_wrap("open points: " + "; ".join(md["open_points"]), indent="  "))
    return out


def _round_robin_summary(md: dict) -> list[str]:
    participation = md.get("agent_participation", {})
    order = md.get("speaking_order") or sorted(participation)
    turns = ", ".join(f"{a} {participation[a]}" for a in order if a in participation)
    if md.get("consensus_reached"):
        consensus = (f"reached after round {md.get('consensus_round')} (first in round "
                     f"{md.get('first_consensus_round')})")
    else:
        consensus = "not reached"
    breakdown = ", ".join(f"{k} {v}" for k, v in md.get("stance_breakdown", {}).items())
    out = [
        f"  consensus {consensus}; share {md.get('agreement_share', 0):.0%} of agents "
        f"(needs {md.get('consensus_threshold', 0):.0%}); stances {breakdown or 'none'}",
        f"  turns: {turns}; {md.get('total_rounds')} rounds, {md.get('total_turns')} turns "
        f"(at least {md.get('min_turns_per_agent')} each, at most {md.get('max_rounds')} rounds)",
    ]
    if md.get("changed_position"):
        out.append("  changed position: " + ", ".join(md["changed_position"]))
    return out


# --- Markdown -----------------------------------------------------------------------------------

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>&#|~])")


def _md(text: str) -> str:
    """Text that is not ours (the question, agents' replies) as literal Markdown: no HTML,
    links, code or emphasis can come out of it when the file is rendered."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join((text or "").split()))


def _md_figures(item) -> str:
    risk = "" if item.risk is None else f", risk {item.risk:g}"
    return f"**{item.decision}** (confidence {item.confidence:g}{risk})"


def _md_position(name: str, position) -> list[str]:
    s = position.statement
    if s.previous_decision:
        was = s.previous_decision
        change = (f"changed position {was} → {s.decision}" if position.changed
                  else f"kept {s.decision}")
        out = [f"### {name}: {position.label.lower()}, {change}"]
        if position.before is not None:
            out.append(f"- Before: {_md_figures(position.before)}")
        out.append(f"- After: {_md_figures(s)}")
    else:
        out = [f"### {name}: {position.label.lower()}"]
        if position.shows_decision:
            verb = f"{position.verb} " if position.verb else ""
            out.append(f"- Position: {verb}**{s.decision}** ({position.figures})")
        else:
            out.append(f"- {position.figures.capitalize()}")
    for detail in position.details:
        if detail.inline:
            out.append(f"- {detail.label}: " + ", ".join(_md(i) for i in detail.items))
        else:
            out.append(f"- {detail.label}:")
            out += [f"    - {_md(item)}" for item in detail.items]
    if position.parse_failure:
        out.append(f"- {position.parse_failure}")
    out += [f"- Note: {_md(note)}" for note in s.notes]
    return [*out, "", f"> {_md(s.reasoning)}", ""]


def _md_round(view, *, vote_label: str) -> list[str]:
    out = [f"## Round {view.round.number}: {_md(view.round.name)}", ""]
    for column in view.columns:
        name = _md(column.participant.name)
        for position in column.positions:
            out += _md_position(name, position)
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
            out += [f"- {vote_label}, {name}: {_md_figures(column.vote)}", ""]
        for call in column.failed_calls:
            out += [f"- {name}: a call failed: {_md(call.error)}", ""]
    if view.check:
        out += [_md(view.check), ""]
    if out[-1] != "":
        out.append("")
    return out


def render_markdown(debate: Debate) -> str:
    """The transcript as Markdown. `debate` should come from
    `selectors.debate_detail_queryset()`."""
    from debates.live import arrange

    so_far = arrange(debate)
    choice = (debate.metadata or {}).get("protocol_choice")
    chosen = f" (auto chose it: {_md(choice['reason'])})" if choice else ""
    out = [
        f"# Debate: {_md(debate.query)}",
        "",
        f"- Protocol: {_md(debate.protocol)}{chosen}",
        f"- Status: {debate.get_status_display()}",
        "- Agents: " + ", ".join(
            f"{_md(p.name)} ({_md(p.role)}, {_md(routing.label(p.model_name))})"
            for p in so_far.participants
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
    vote_label = "Final vote" if debate.protocol == "s4" else "Final position"
    for view in so_far.rounds:
        out += _md_round(view, vote_label=vote_label)

    if debate.status == Debate.Status.COMPLETED:
        out += [f"## Decision: {debate.effective_decision}", ""]
        if debate.is_overridden:
            out += [f"A reviewer overrode the rules' decision, {debate.decision}.", ""]
        out += [_md(debate.reasoning), ""]
        out += [f"- {fact.label}: {_md(fact.value)}" for fact in so_far.facts]
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
