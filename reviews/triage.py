"""Which outcomes need a human, and how urgently. Plain Python: no ORM, no settings.

`flags_for(metadata, injection_findings)` reads a completed debate's decision metadata (what
`debates.rules.decide` and the protocol recorded) and returns one `Flag` per reason to review:

============================  ==============================================================
reason                        raised when
============================  ==============================================================
``safety_veto``               ``veto_applied``: an agent with veto power vetoed (-> REFUSE)
``high_risk_dissent``         ``high_risk_outvoted``: a vote with risk above 75 disagreed
                              with the decision and was outvoted
``prompt_injection``          ``injection_suspected`` or the defense layer's findings
``parse_failure``             ``parse_failures``: a reply could not be parsed and became the
                              fail-safe REFUSE
``flag_for_review``           raised by a protocol (arbitration could not settle a point)
``split_vote``                ``consensus_type`` "split" (-> WARN) or "tie" (-> REFUSE)
``no_consensus``              raised by a protocol (no consensus within its rounds)
``uncertain``                 raised by a protocol (e.g. UNCERTAIN carried the debate)
``low_confidence``            ``low_confidence_warning``: average confidence below 60
``debate_failed``             the debate failed for good (`failure_flag`, not from metadata)
``run_failed``                a contradiction run failed for good (`failure_flag`)
============================  ==============================================================

Protocols raise reasons of their own through the metadata key ``review_reasons``: a list of
reason names, or of ``{"reason": name, "summary": text}``. A name this module does not know
becomes ``flag_for_review`` (the name is kept in the summary), so nothing a protocol raises
is lost.

Contradiction runs raise ``flag_for_review`` for each contradiction the consensus could not
settle (`contradiction_flag`), one item per contradiction. Priority: 60 + 10 for a high-severity
contradiction, + 5 for a medium one.

A debate or a contradiction run that fails for good (the sweeper gave up on it, its worker
died too often, the LLM failed permanently or after its retries, a time limit, a configuration
that cannot run) gets one ``debate_failed`` / ``run_failed`` item (`failure_flag`): its client
got an error instead of an answer, and only a person can re-run it, set the answer, or let it
go. These reasons are never taken from a protocol's ``review_reasons``.

Priority (higher is reviewed first) = the reason's base + one point per full 10 of the
debate's highest risk (``max_risk``, 0-100, so 0-10 points)::

    safety_veto 80, high_risk_dissent 80, prompt_injection 70, debate_failed 70,
    run_failed 70, parse_failure 60, flag_for_review 60, split_vote 50, no_consensus 50,
    uncertain 40, low_confidence 30

so a veto or an outvoted high-risk assessment (80-90) always comes before a split (50-60),
and among items of the same reason the riskier debate comes first. A failure comes after a
veto or an outvoted high risk (those answers may already be acted on; a failed debate gave no
answer to act on) and before every outcome whose machine decision stands meanwhile (a parse
failure's fail-safe REFUSE, a split's WARN ...): nothing stands for a failed debate. Its risk
is the highest risk its agents stated before it failed (0 when none did; a run has none). The
queue sorts by priority, then by age (oldest first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SAFETY_VETO = "safety_veto"
HIGH_RISK_DISSENT = "high_risk_dissent"
PROMPT_INJECTION = "prompt_injection"
PARSE_FAILURE = "parse_failure"
FLAG_FOR_REVIEW = "flag_for_review"
SPLIT_VOTE = "split_vote"
NO_CONSENSUS = "no_consensus"
UNCERTAIN = "uncertain"
LOW_CONFIDENCE = "low_confidence"
DEBATE_FAILED = "debate_failed"
RUN_FAILED = "run_failed"

# In priority order; the labels are what analysts read.
REASONS: dict[str, tuple[str, int]] = {
    SAFETY_VETO: ("Safety veto", 80),
    HIGH_RISK_DISSENT: ("High-risk dissent outvoted", 80),
    PROMPT_INJECTION: ("Suspected prompt injection", 70),
    DEBATE_FAILED: ("Debate failed", 70),
    RUN_FAILED: ("Contradiction run failed", 70),
    PARSE_FAILURE: ("Unparseable reply (fail-safe REFUSE)", 60),
    FLAG_FOR_REVIEW: ("Flagged for review", 60),
    SPLIT_VOTE: ("Split vote", 50),
    NO_CONSENSUS: ("No consensus", 50),
    UNCERTAIN: ("Uncertain outcome", 40),
    LOW_CONFIDENCE: ("Low confidence", 30),
}


# Raised only by `failure_flag`, for an unfinished subject: never by a completed outcome.
FAILURE_REASONS = (DEBATE_FAILED, RUN_FAILED)


@dataclass(frozen=True)
class Flag:
    reason: str
    priority: int
    summary: str
    details: dict[str, Any] = field(default_factory=dict)


def priority_for(reason: str, max_risk: Any) -> int:
    """The documented formula: the reason's base plus 0-10 points from the highest risk."""
    base = REASONS[reason][1]
    try:
        risk = min(max(float(max_risk), 0.0), 100.0)
    except (TypeError, ValueError):
        risk = 0.0
    return base + int(risk // 10)


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
        found.append((
            SAFETY_VETO,
            f"VETO by {agent}" + (f" (risk {_fmt(risk)})" if risk is not None else ""),
            {"veto_agent": metadata.get("veto_agent"), "veto_risk": risk},
        ))
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
        found.append((
            PROMPT_INJECTION,
            "Suspected prompt injection" + (f": {', '.join(kinds)}" if kinds else ""),
            {"kinds": kinds},
        ))
    failures = list(metadata.get("parse_failures") or [])
    if failures:
        noun = "reply" if len(failures) == 1 else "replies"
        found.append((
            PARSE_FAILURE,
            f"{len(failures)} {noun} could not be parsed (fail-safe REFUSE): "
            + ", ".join(failures),
            {"calls": failures},
        ))
    consensus = metadata.get("consensus_type")
    if consensus in ("split", "tie"):
        what = "Split vote" if consensus == "split" else "Tied vote (defaulted to REFUSE)"
        found.append((
            SPLIT_VOTE,
            f"{what}: {_breakdown(metadata)}",
            {"consensus_type": consensus, "vote_breakdown": metadata.get("vote_breakdown")},
        ))
    if metadata.get("low_confidence_warning"):
        avg = metadata.get("avg_confidence")
        found.append((
            LOW_CONFIDENCE,
            f"Average confidence {_fmt(avg)} is below 60",
            {"avg_confidence": avg},
        ))
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
            found.append((name, summary or f"Raised by the protocol: {REASONS[name][0]}",
                          {"raised_by": "protocol"}))
        else:
            found.append((
                FLAG_FOR_REVIEW,
                summary or f"Raised by the protocol as '{name[:60]}'",
                {"raised_by": "protocol", "raised_as": name[:60]},
            ))
    return found


def flags_for(metadata: Mapping[str, Any], injection_findings: Sequence[Any] = ()) -> list[Flag]:
    """Every reason this outcome needs a human, once each, most urgent first."""
    metadata = metadata or {}
    max_risk = metadata.get("max_risk", 0)
    flags: dict[str, Flag] = {}
    for reason, summary, details in _rule_flags(metadata, injection_findings or ()) + \
            _protocol_flags(metadata):
        if reason not in flags:
            flags[reason] = Flag(reason, priority_for(reason, max_risk), summary[:300], details)
    return sorted(flags.values(), key=lambda f: (-f.priority, list(REASONS).index(f.reason)))


SEVERITY_POINTS = {"high": 10, "medium": 5, "low": 0}


def contradiction_flag(*, metric: str, severity: str, reason: str, rules: Sequence[str] = ()
                       ) -> Flag:
    """The review item of a contradiction the consensus could not settle."""
    return Flag(
        FLAG_FOR_REVIEW,
        REASONS[FLAG_FOR_REVIEW][1] + SEVERITY_POINTS.get(severity, 0),
        f"Contradiction on {metric} ({severity}): {reason}"[:300],
        {"metric": metric, "severity": severity, "rules": list(rules), "why": reason},
    )


def failure_flag(*, reason: str, error: str, attempts: int, recoveries: int,
                 max_risk: Any = None) -> Flag:
    """The review item of a debate (``debate_failed``) or contradiction run (``run_failed``)
    that failed for good. `error` is the readable reason it was failed with; `max_risk` the
    highest risk its agents stated before it failed (None: none did)."""
    if reason not in FAILURE_REASONS:
        raise ValueError(f"{reason!r} is not a failure reason")
    details: dict[str, Any] = {"error": error, "attempts": attempts, "recoveries": recoveries}
    if max_risk is not None:
        details["max_risk"] = max_risk
    return Flag(
        reason,
        priority_for(reason, max_risk),
        (error.strip() or REASONS[reason][0])[:300],
        details,
    )
