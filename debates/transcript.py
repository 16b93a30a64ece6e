"""A debate as readable text, for the terminal."""

from __future__ import annotations

import re

from agents import routing
from agents.gateway import OFFLINE_NOTICE
from debates.baselines import baseline_lines
from debates.live import arrange
from debates.models import Debate
from debates.quality import quality_lines
from protocols import presentation_for
from protocols.presentation import WIDTH, percent
from protocols.presentation import wrap as _wrap


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
        "Options:  "
        + (", ".join(f"{k}={v}" for k, v in debate.options.items() if v != "") or "none"),
        "Agents:   " + ", ".join(f"{p.name} ({routing.label(p.model_name)})" for p in participants),
    ]
    choice = debate.metadata.get("protocol_choice")
    if choice:
        out.append(f"Chosen:   {choice['requested']} -> {choice['chosen']} ({choice['reason']})")
    if any(routing.config().uses_offline(p.model_name) for p in participants):
        out.append(f"Note:     answers come from the {OFFLINE_NOTICE}.")
    for finding in debate.injection_findings:
        out.append(
            f'Defense:  suspected prompt injection ({finding["kind"]}): "{finding["excerpt"]}"'
        )
    out.append("=" * WIDTH)

    presentation = presentation_for(debate.protocol)
    out.extend(presentation.text_rounds(debate, statements, rounds))

    out.append("")
    out.append("=" * WIDTH)
    if debate.status == Debate.Status.COMPLETED:
        md = debate.metadata
        out.append(f"DECISION: {debate.decision}")
        if debate.is_overridden:
            out.append(
                f"REVIEWER OVERRIDE: {debate.effective_decision} (replaces the machine's "
                f"{debate.decision})"
            )
        out.append(_wrap(debate.reasoning, indent="  "))
        out.extend(presentation.text_summary(md))
        if md.get("review_reasons"):
            out.append("  goes to review: " + ", ".join(md["review_reasons"]))
        out.extend("  " + line for line in baseline_lines(debate))
        out.extend("  " + line for line in quality_lines(debate))
    else:
        out.append(f"STATUS: {debate.status}  {debate.error}")
    duration = debate.duration_seconds
    out.append(
        f"  tokens in {debate.tokens_in}, out {debate.tokens_out}; cost ${debate.cost_usd}; "
        f"time {duration:.2f} s"
        if duration is not None
        else ""
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
    risk = "" if item.risk is None else f", risk {item.risk:g}"
    return f"**{item.decision}** (confidence {percent(item.confidence)}{risk})"


def _md_position(name: str, position) -> list[str]:
    s = position.statement
    if s.previous_decision:
        was = s.previous_decision
        change = (
            f"changed position {was} → {s.decision}" if position.changed else f"kept {s.decision}"
        )
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
    out = [f"## {_md(view.round.title)}", ""]
    for column in view.columns:
        name = _md(column.participant.name)
        for position in column.positions:
            out += _md_position(name, position)
        for c in column.challenges:
            label = "Challenge, " + (
                "agrees with the conclusion"
                if c.agrees_with_conclusion
                else "disputes the conclusion"
            )
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
    so_far = arrange(debate)
    choice = (debate.metadata or {}).get("protocol_choice")
    chosen = f" (auto chose it: {_md(choice['reason'])})" if choice else ""
    out = [
        f"# Debate: {_md(debate.query)}",
        "",
        f"- Protocol: {_md(debate.protocol)}{chosen}",
        f"- Status: {debate.get_status_display()}",
        "- Agents: "
        + ", ".join(
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
        out.append(
            f"- Defense: suspected prompt injection ({_md(finding.get('kind', ''))}): "
            f'"{_md(finding.get("excerpt", ""))}"'
        )
    out.append("")
    for view in so_far.rounds:
        out += _md_round(view, vote_label=so_far.vote_label)

    if debate.status == Debate.Status.COMPLETED:
        out += [f"## Decision: {debate.effective_decision}", ""]
        if debate.is_overridden:
            out += [f"A reviewer overrode the rules' decision, {debate.decision}.", ""]
        out += [_md(debate.reasoning), ""]
        out += [f"- {fact.label}: {_md(fact.value)}" for fact in so_far.facts]
        out += [f"- {_md(line)}" for line in baseline_lines(debate)]
        out += [f"- {_md(line)}" for line in quality_lines(debate)]
        out.append("")
    elif debate.status == Debate.Status.FAILED:
        out += ["## The debate failed", "", _md(debate.error), ""]
    else:
        out += [
            f"The debate is {debate.get_status_display().lower()}; this is what it has "
            "said so far.",
            "",
        ]

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
