"""Which of a completed debate's outcomes need a human. Plain Python: no ORM, no settings.

`flags_for(metadata, injection_findings)` reads a completed debate's decision metadata (what
`protocols.s4.rules.decide` and the protocol recorded) and returns one
`reviews.triage.Flag` per reason to review (the reasons, their labels and priorities are in
`reviews.triage`).
Protocols raise reasons of their own through the metadata key ``review_reasons``: a list of
reason names, or of ``{"reason": name, "summary": text}``; a name the queue does not know
becomes ``flag_for_review`` (the name is kept in the summary), so nothing a protocol raises is
lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reviews.triage import (
    FAILURE_REASONS,
    FLAG_FOR_REVIEW,
    HIGH_RISK_DISSENT,
    INJECTION_IN_REPLY,
    LOW_CONFIDENCE,
    PARSE_FAILURE,
    PROMPT_INJECTION,
    REASONS,
    SAFETY_VETO,
    SPLIT_VOTE,
    Flag,
    priority_for,
)


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


VOTE_ORDER = ("ACT", "WARN", "REFUSE", "VETO", "SUPPORT", "OPPOSE", "UNCERTAIN")


def vote_counts(metadata: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The non-zero counts of ``vote_breakdown``, known decisions first, in a stable order."""
    counts = metadata.get("vote_breakdown") or {}
    if not isinstance(counts, Mapping):
        return []
    order = {d: i for i, d in enumerate(VOTE_ORDER)}
    keys = sorted(counts, key=lambda d: (order.get(d, len(order)), str(d)))
    return [(d, counts[d]) for d in keys if counts[d]]


def _breakdown(metadata: Mapping[str, Any]) -> str:
    return ", ".join(f"{n} {d}" for d, n in vote_counts(metadata))


def _rule_flags(metadata: Mapping[str, Any], injection_findings: Sequence[Any]) -> list[tuple]:
    """(reason, summary, details) for everything the decision rules and defense recorded."""
    found: list[tuple] = []
    if metadata.get("veto_applied"):
        agent = metadata.get("veto_agent") or "an agent"
        risk = metadata.get("veto_risk")
        found.append(
            (
                SAFETY_VETO,
                f"VETO by {agent}" + (f" (risk {_fmt(risk)})" if risk is not None else ""),
                {"veto_agent": metadata.get("veto_agent"), "veto_risk": risk},
            )
        )
    outvoted = metadata.get("high_risk_outvoted") or []
    if outvoted:
        votes = [v for v in metadata.get("high_risk_votes") or [] if v.get("agent") in outvoted]
        described = "; ".join(
            f"{v.get('agent')} voted {v.get('decision')} with risk {_fmt(v.get('risk'))}"
            for v in votes
        ) or ", ".join(outvoted)
        found.append((HIGH_RISK_DISSENT, f"Outvoted: {described}", {"votes": votes}))
    kinds = sorted({f.get("kind", "?") for f in injection_findings if isinstance(f, Mapping)})
    if metadata.get("injection_suspected") or injection_findings:
        found.append(
            (
                PROMPT_INJECTION,
                "Suspected prompt injection" + (f": {', '.join(kinds)}" if kinds else ""),
                {"kinds": kinds},
            )
        )
    in_replies = [r for r in metadata.get("injection_in_replies") or [] if isinstance(r, Mapping)]
    if in_replies:
        described = "; ".join(
            f"{r.get('call')} ({', '.join(r.get('kinds') or []) or '?'})" for r in in_replies
        )
        found.append(
            (
                INJECTION_IN_REPLY,
                f"Suspected prompt injection in a model's reply: {described}",
                {"calls": [r.get("call") for r in in_replies]},
            )
        )
    failures = list(metadata.get("parse_failures") or [])
    if failures:
        noun = "reply" if len(failures) == 1 else "replies"
        found.append(
            (
                PARSE_FAILURE,
                f"{len(failures)} {noun} could not be parsed (fail-safe REFUSE): "
                + ", ".join(failures),
                {"calls": failures},
            )
        )
    consensus = metadata.get("consensus_type")
    if consensus in ("split", "tie"):
        what = "Split vote" if consensus == "split" else "Tied vote (defaulted to REFUSE)"
        found.append(
            (
                SPLIT_VOTE,
                f"{what}: {_breakdown(metadata)}",
                {"consensus_type": consensus, "vote_breakdown": metadata.get("vote_breakdown")},
            )
        )
    if metadata.get("low_confidence_warning"):
        avg = metadata.get("avg_confidence")
        found.append(
            (
                LOW_CONFIDENCE,
                f"Average confidence {_fmt(avg)} % is below 60 %",
                {"avg_confidence": avg},
            )
        )
    return found


def _protocol_flags(metadata: Mapping[str, Any]) -> list[tuple]:
    raised = metadata.get("review_reasons") or []
    if isinstance(raised, (str, Mapping)):
        raised = [raised]
    found: list[tuple] = []
    for entry in raised:
        if isinstance(entry, Mapping):
            name, summary = str(entry.get("reason", "")), str(entry.get("summary", ""))
        else:
            name, summary = str(entry), ""
        if name in REASONS and name not in FAILURE_REASONS:
            found.append(
                (
                    name,
                    summary or f"Raised by the protocol: {REASONS[name][0]}",
                    {"raised_by": "protocol"},
                )
            )
        else:
            found.append(
                (
                    FLAG_FOR_REVIEW,
                    summary or f"Raised by the protocol as '{name[:60]}'",
                    {"raised_by": "protocol", "raised_as": name[:60]},
                )
            )
    return found


def flags_for(metadata: Mapping[str, Any], injection_findings: Sequence[Any] = ()) -> list[Flag]:
    """Every reason this outcome needs a human, once each, most urgent first."""
    metadata = metadata or {}
    max_risk = metadata.get("max_risk", 0)
    flags: dict[str, Flag] = {}
    for reason, summary, details in _rule_flags(
        metadata, injection_findings or ()
    ) + _protocol_flags(metadata):
        if reason not in flags:
            flags[reason] = Flag(reason, priority_for(reason, max_risk), summary[:300], details)
    return sorted(flags.values(), key=lambda f: (-f.priority, list(REASONS).index(f.reason)))
