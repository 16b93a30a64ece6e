"""The review queue's reasons, how urgent each is, and the `Flag` subjects raise. Plain Python:
no ORM, no settings. Which outcome raises which reason is the subject's own
(`debates.reviewing.triage` for a debate's metadata, `contradictions.reviewing.items` for a
contradiction the consensus could not settle); only the failure flag is written here.

============================  ==============================================================
reason                        raised when
============================  ==============================================================
``safety_veto``               ``veto_applied``: an agent with veto power vetoed (-> REFUSE)
``high_risk_dissent``         ``high_risk_outvoted``: a vote with risk above 75 disagreed
                              with the decision and was outvoted
``prompt_injection``          ``injection_suspected`` or the defense layer's findings
``injection_in_reply``        ``injection_in_replies``: a model's reply held what the defense
                              layer flags as prompt injection (withheld from its peers)
``parse_failure``             ``parse_failures``: a reply could not be parsed and became the
                              fail-safe REFUSE
``flag_for_review``           raised by a protocol (arbitration could not settle a point)
``split_vote``                ``consensus_type`` "split" (-> WARN) or "tie" (-> REFUSE)
``no_consensus``              raised by a protocol (no consensus within its rounds)
``uncertain``                 raised by a protocol (e.g. UNCERTAIN carried the debate)
``low_confidence``            ``low_confidence_warning``: average confidence below 60
``debate_failed``             the debate failed for good (`failure_flag`, not from metadata)
``run_failed``                a contradiction run failed for good (`failure_flag`)
``budget_exceeded``           a debate or contradiction run stopped at a spending limit
                              (`failure_flag`): what it paid for is kept; re-run it once the
                              limit resets (or is raised) and it resumes from there
============================  ==============================================================

Protocols raise reasons of their own through the metadata key ``review_reasons``; a name the
queue does not know becomes ``flag_for_review`` (see `debates.reviewing.triage`).

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

    safety_veto 80, high_risk_dissent 80, injection_in_reply 75, prompt_injection 70,
    debate_failed 70,
    run_failed 70, budget_exceeded 70,
    parse_failure 60, flag_for_review 60, split_vote 50, no_consensus 50,
    uncertain 40, low_confidence 30

so a veto or an outvoted high-risk assessment (80-90) always comes before a split (50-60),
a model that turned on its peers mid-debate (its decision stands meanwhile) before an injection
attempt in the question (which every agent saw flagged as data),
and among items of the same reason the riskier debate comes first. A failure comes after a
veto or an outvoted high risk (those answers may already be acted on; a failed debate gave no
answer to act on) and before every outcome whose machine decision stands meanwhile (a parse
failure's fail-safe REFUSE, a split's WARN ...): nothing stands for a failed debate. Its risk
is the highest risk its agents stated before it failed (0 when none did; a run has none). The
queue sorts by priority, then by age (oldest first).

One subject's outcome is one item, whatever number of reasons it raised (`joined`): a split
vote with low confidence is a single item listing both, led by the most urgent reason, with the
highest of their priorities. A failure (``debate_failed``, ``run_failed``) stays an item of its
own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SAFETY_VETO = "safety_veto"
HIGH_RISK_DISSENT = "high_risk_dissent"
PROMPT_INJECTION = "prompt_injection"
INJECTION_IN_REPLY = "injection_in_reply"
PARSE_FAILURE = "parse_failure"
FLAG_FOR_REVIEW = "flag_for_review"
SPLIT_VOTE = "split_vote"
NO_CONSENSUS = "no_consensus"
UNCERTAIN = "uncertain"
LOW_CONFIDENCE = "low_confidence"
DEBATE_FAILED = "debate_failed"
RUN_FAILED = "run_failed"
BUDGET_EXCEEDED = "budget_exceeded"

# In priority order; the labels are what analysts read.
REASONS: dict[str, tuple[str, int]] = {
    SAFETY_VETO: ("Safety veto", 80),
    HIGH_RISK_DISSENT: ("High-risk dissent outvoted", 80),
    INJECTION_IN_REPLY: ("Prompt injection in a model's reply", 75),
    PROMPT_INJECTION: ("Suspected prompt injection", 70),
    DEBATE_FAILED: ("Debate failed", 70),
    RUN_FAILED: ("Contradiction run failed", 70),
    BUDGET_EXCEEDED: ("Stopped at a spending limit", 70),
    PARSE_FAILURE: ("Unparseable reply (fail-safe REFUSE)", 60),
    FLAG_FOR_REVIEW: ("Flagged for review", 60),
    SPLIT_VOTE: ("Split vote", 50),
    NO_CONSENSUS: ("No consensus", 50),
    UNCERTAIN: ("Uncertain outcome", 40),
    LOW_CONFIDENCE: ("Low confidence", 30),
}


# Raised only by `failure_flag`, for an unfinished subject: never by a completed outcome.
FAILURE_REASONS = (DEBATE_FAILED, RUN_FAILED, BUDGET_EXCEEDED)


@dataclass(frozen=True)
class Flag:
    reason: str
    priority: int
    summary: str
    details: dict[str, Any] = field(default_factory=dict)
    #: Every reason, most urgent first, when the flag joins several (`joined`); else (reason,).
    reasons: tuple[str, ...] = ()

    @property
    def all_reasons(self) -> tuple[str, ...]:
        return self.reasons or (self.reason,)


def joined(flags: list[Flag]) -> Flag:
    """One flag for every reason one subject raised: a debate with a split vote and low
    confidence is one item to review, not two. The most urgent reason leads and its priority
    is the item's (the highest); the summary lists every reason's; `details` keeps the lead's
    details, with each reason's summary and details under ``summaries`` and ``by_reason``.
    A flag already joined (an open item's) joins again without losing any of its reasons."""
    if not flags:
        raise ValueError("nothing to join")
    parts: dict[str, tuple[int, str, dict[str, Any]]] = {}
    for flag in flags:
        summaries = flag.details.get("summaries") or {flag.reason: flag.summary}
        by_reason = flag.details.get("by_reason") or {flag.reason: flag.details}
        for reason in flag.all_reasons:
            parts.setdefault(
                reason, (flag.priority, summaries.get(reason, ""), by_reason.get(reason) or {})
            )
    order = sorted(parts, key=lambda r: (-parts[r][0], list(REASONS).index(r)))
    lead = order[0]
    if len(order) == 1:
        return Flag(lead, parts[lead][0], parts[lead][1][:300], parts[lead][2], (lead,))
    return Flag(
        reason=lead,
        priority=parts[lead][0],
        summary=" · ".join(parts[r][1] for r in order if parts[r][1])[:300],
        details={
            **parts[lead][2],
            "summaries": {r: parts[r][1] for r in order},
            "by_reason": {r: parts[r][2] for r in order},
        },
        reasons=tuple(order),
    )


def priority_for(reason: str, max_risk: Any) -> int:
    """The documented formula: the reason's base plus 0-10 points from the highest risk."""
    base = REASONS[reason][1]
    try:
        risk = min(max(float(max_risk), 0.0), 100.0)
    except (TypeError, ValueError):
        risk = 0.0
    return base + int(risk // 10)


def failure_flag(
    *, reason: str, error: str, attempts: int, recoveries: int, max_risk: Any = None
) -> Flag:
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


#: What may close an item whose deadline passed (settings: REVIEW_DEADLINE_FALLBACKS).
FALLBACK_MACHINE = "machine"
FALLBACK_WARN = "WARN"
FALLBACKS = (FALLBACK_MACHINE, FALLBACK_WARN)


def deadline_hours(reasons, hours: dict[str, Any]) -> float | None:
    """The deadline (hours after it was raised) of an item raised for `reasons`: the shortest
    of theirs in `hours` (reason -> hours); None when none of them has one."""
    found = [float(hours[r]) for r in reasons if hours.get(r) is not None]
    return min(found) if found else None
