"""Reads for the review queue and the review page."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q, QuerySet

from debates.models import Debate, LLMCall, Statement
from reviews.models import ReviewEvent, ReviewItem

STATUS_FILTERS = {
    "active": ReviewItem.ACTIVE,
    "open": (ReviewItem.Status.OPEN,),
    "claimed": (ReviewItem.Status.CLAIMED,),
    "resolved": (ReviewItem.Status.RESOLVED,),
    "dismissed": (ReviewItem.Status.DISMISSED,),
    "all": None,
}

# What a queue row shows of its debate (or contradiction); the rest (transcript, claims) is not
# loaded.
QUEUE_DEBATE_FIELDS = (
    "debate__id", "debate__query", "debate__protocol", "debate__status", "debate__decision",
    "debate__decision_override", "debate__consensus_type", "debate__metadata",
    "debate__review_status",
)
QUEUE_CONTRADICTION_FIELDS = (
    "contradiction__id", "contradiction__metric", "contradiction__severity",
    "contradiction__run_id",
)
QUEUE_RUN_FIELDS = (
    "contradiction_run__id", "contradiction_run__status", "contradiction_run__error",
    "contradiction_run__review_status", "contradiction_run__contradictions_found",
)


def queue_items(
    *, user, status: str = "active", reason: str = "", assignee: str = ""
) -> QuerySet[ReviewItem]:
    """The queue, most urgent first, then oldest first.

    `status`: a key of STATUS_FILTERS. `assignee`: "" (anyone), "me", "none" (unassigned) or
    a user id.
    """
    items = ReviewItem.objects.select_related(
        "debate", "contradiction", "contradiction_run", "assignee"
    ).only(
        "id", "reason", "status", "priority", "summary", "created_at", "claimed_at",
        "closed_at", "verdict", "decision_override", "assignee__id", "assignee__username",
        "assignee__first_name", "assignee__last_name", *QUEUE_DEBATE_FIELDS,
        *QUEUE_CONTRADICTION_FIELDS, *QUEUE_RUN_FIELDS,
    )
    statuses = STATUS_FILTERS.get(status, ReviewItem.ACTIVE)
    if statuses is not None:
        items = items.filter(status__in=statuses)
    if reason:
        items = items.filter(reason=reason)
    if assignee == "me":
        items = items.filter(assignee=user)
    elif assignee == "none":
        items = items.filter(assignee__isnull=True)
    elif assignee:
        items = items.filter(assignee_id=assignee)
    return items.order_by("-priority", "created_at", "id")


def reviewers() -> QuerySet:
    """Everyone who can hold a review item: staff, and anyone who ever held one."""
    holders = ReviewItem.objects.filter(assignee__isnull=False).values("assignee_id")
    return (
        get_user_model()
        .objects.filter(Q(is_staff=True) | Q(pk__in=holders))
        .order_by("username")
        .only("id", "username", "first_name", "last_name")
    )


def review_item_get(item_id) -> ReviewItem:
    return (
        ReviewItem.objects.select_related("assignee", "contradiction", "contradiction_run")
        .prefetch_related(
            Prefetch("events", queryset=ReviewEvent.objects.select_related("actor")),
        )
        .get(pk=item_id)
    )


def review_item_detail(item_id) -> ReviewItem:
    """One item with its debate (or contradiction, or failed run), its holder, its history (with
    who acted) and every item of the same debate (`item.debate.review_items`), in a fixed number
    of queries."""
    return (
        ReviewItem.objects.select_related("debate", "assignee", "contradiction__run",
                                          "contradiction_run")
        .prefetch_related(
            Prefetch("events", queryset=ReviewEvent.objects.select_related("actor")),
            Prefetch(
                "debate__review_items",
                queryset=ReviewItem.objects.order_by("-priority", "created_at", "id"),
            ),
        )
        .get(pk=item_id)
    )


def other_items_for_debate(item: ReviewItem) -> list[ReviewItem]:
    """The other items of the same debate, or of the same contradiction run (its
    contradictions' and its own failure's)."""
    if item.debate_id is not None:
        siblings = ReviewItem.objects.filter(debate_id=item.debate_id)
    else:
        run_id = item.contradiction_run_id or item.contradiction.run_id
        siblings = ReviewItem.objects.filter(
            Q(contradiction__run_id=run_id) | Q(contradiction_run_id=run_id)
        ).select_related("contradiction")
    return list(
        siblings.exclude(pk=item.pk).select_related("assignee").order_by("-priority", "created_at")
    )


@dataclass
class RoundView:
    number: int
    name: str
    statements: list = field(default_factory=list)
    challenges: list = field(default_factory=list)


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
        {"key": c.key, "round": c.round_number, "step": c.step, "raw": c.raw_response,
         "error": c.error}
        for c in debate.llm_calls.all()
        if c.parse_failed
    ]


def metadata_rows(metadata: dict) -> list[tuple[str, str]]:
    return [
        (key, value if isinstance(value, str) else json.dumps(value, indent=1, sort_keys=True))
        for key, value in sorted((metadata or {}).items())
    ]


def transcript_context(debate: Debate) -> dict[str, Any]:
    """What `reviews/_transcript.html` shows. `debate` from `debate_detail_queryset()`."""
    return {
        "debate": debate,
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
