"""What the review queue is about: the subjects higher apps register, and how it reaches them.

The queue knows no debate and no contradiction. An app whose outcomes need a human registers a
`ReviewSubject` for each kind of thing an item can be about (from its `AppConfig.ready`); the
subject owns one of `ReviewItem`'s subject keys (its `name`) and says how to lock what an item
is about, which verdicts it takes and what they do, how to re-run it, how its review status is
kept, and how its pages and API show it. `reviews` calls these methods and imports no subject
app, at module level or inside functions.

Items are grouped for locking and for their review status: a debate's items by the debate, a
contradiction's and a failed run's items by the run (`group`, a lookup from `ReviewItem`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Q

if TYPE_CHECKING:
    from reviews.models import ReviewItem


@dataclass(frozen=True)
class Resolution:
    """What a verdict did to its subject: what the item records (`decision_override`, the
    event's `data`), what the group's row gets beside its review status (`changes`) and what
    the verdict amounts to (`outcome`, for agreement between reviewers)."""

    data: dict[str, Any]
    decision_override: str = ""
    changes: dict[str, Any] = field(default_factory=dict)
    #: What the verdict amounts to, comparable across reviewers (a debate's decision in
    #: effect: the override, or the machine's upheld; a contradiction's kept choice).
    outcome: str = ""


@dataclass(frozen=True)
class Guard:
    """A verdict given only deliberately: overriding a safety veto to ACT. `seen` names what the
    vetoing agent saw (who vetoed, at what risk, and why), which the reviewer confirms having
    read; the queue also wants the item claimed by them and a note (`reviews.services`)."""

    seen: str


@dataclass(frozen=True)
class Judged:
    """What the machine said about an item's subject, to compare reviewers' verdicts with
    (`reviews.agreement`): the protocol, the machine's decision, and each agent role's final
    vote (in the verdicts' terms: a debate's VETO is REFUSE)."""

    protocol: str
    machine: str
    agents: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Submission:
    """A verdict posted on a review page: the bound form, where its errors go, the service
    call that applies it once the form is valid, and the message on success."""

    form: Any
    form_name: str
    perform: Any  # (user, stage: the review the page was showing) -> ReviewItem
    success: Any  # (ReviewItem) -> str


class ReviewSubject:
    """One kind of thing a review item is about. Subclasses set the attributes and override
    what their items support; the defaults refuse."""

    #: The `ReviewItem` foreign key this subject owns ("debate", "contradiction", ...).
    name: str = ""
    #: What the pages call it ("debate", "contradiction run").
    noun: str = ""
    #: The lookup from `ReviewItem` to the id of the row its actions lock (its group).
    group: str = ""
    #: Verdicts its items take; `refusals` says what to do instead for the others.
    verdicts: tuple[str, ...] = ()
    refusals: dict[str, dict[str, str]] = {}
    #: What the queue loads with each item: related names and fields (`QuerySet.only`).
    queue_related: tuple[str, ...] = ()
    queue_fields: tuple[str, ...] = ()
    #: What an item's page and API detail load with it: related names (`select_related`),
    #: and what the group's other items load with them.
    detail_related: tuple[str, ...] = ()
    sibling_related: tuple[str, ...] = ()
    #: What the admin's search looks in (lookups from `ReviewItem`).
    search_fields: tuple[str, ...] = ()

    def detail_prefetch(self) -> list:
        """Prefetches of an item's API detail (e.g. its group's items, for `siblings`)."""
        return []

    # --- the group -----------------------------------------------------------------------

    def group_items(self, group_id) -> Q:
        """Every item of the group (its review status is computed from them)."""
        return Q(**{self.group: group_id})

    def group_of(self, item: ReviewItem):
        """The group id of an item loaded with its subject (no query beyond that)."""
        return getattr(item, f"{self.name}_id")

    def lock(self, group_id) -> Any:
        """Lock the group's row (before the item, always), and return it."""
        raise NotImplementedError

    def set_review_status(self, group_id, status: str, **changes) -> None:
        """Store the group's review status (a `reviews.models.ReviewStatus`)."""
        raise NotImplementedError

    def closed(self, group_id, items: list[ReviewItem]) -> None:
        """Told after items of the group were resolved, dismissed or closed at their deadline
        (e.g. to notify)."""

    def overdue(self, group_id, items: list[ReviewItem]) -> None:
        """Told, inside the transaction that marks them, that items of the group went past
        their deadline (e.g. to notify)."""

    def fallback(self, *, locked, item: ReviewItem, fallback: str) -> Resolution:
        """What closing an item at its deadline with `fallback` ("machine" or "WARN") does to
        the subject. By default the machine's outcome stands (a subject without WARN keeps
        it too)."""
        return Resolution(data={"fallback": fallback})

    # --- verdicts --------------------------------------------------------------------------

    def refusal(self, verdict: str) -> dict[str, str] | None:
        if verdict in self.verdicts:
            return None
        return self.refusals.get(verdict) or {"verdict": f"This item takes no '{verdict}'."}

    def guard(self, *, locked, item: ReviewItem, user, verdict: str, value: str) -> Guard | None:
        """The confirmation this verdict needs (None: none). Raise `PermissionDenied` when
        `user` may not give it at all."""
        return None

    def resolve(
        self, *, locked, item: ReviewItem, user, verdict: str, value: str, note: str
    ) -> Resolution:
        """Apply a verdict this subject takes (`value`: the decision, or the choice). Raise
        `ValidationError` and change nothing when `value` does not fit."""
        raise NotImplementedError

    def judged(self, item_ids: list) -> dict[Any, Judged]:
        """What the machine said about the subjects of these items (id -> `Judged`), in a fixed
        number of queries; items it cannot say anything for are left out."""
        return {}

    def dismissed(self, *, item: ReviewItem, user, note: str) -> None:
        """Told while an item is dismissed, inside its transaction."""

    def rerun(self, *, locked, item: ReviewItem, user, note: str, model: str | None = None) -> None:
        """Queue the failed subject again (its failure items are closed by it); `model`, when
        given, replaces the model it ran with (a bad model is a common cause of failure)."""
        raise NotImplementedError

    # --- pages, admin, API -------------------------------------------------------------------

    def page(
        self, request, item: ReviewItem, flags: dict[str, bool], forms: dict
    ) -> tuple[str, dict[str, Any]]:
        """The review page: its template and context (beyond item, others, events, flags)."""
        raise NotImplementedError

    def queue_cells(self, item: ReviewItem, link: str) -> str:
        """The queue's question, decision and votes cells (three `<td>`, HTML with every text
        escaped) of an item loaded by the queue (`queue_related`, `queue_fields`); `link`: the
        item's review page. Made in Python, like the rest of the row (`reviews.queue_rows`)."""
        raise NotImplementedError

    def submission(self, request, item: ReviewItem) -> Submission | str:
        """The verdict posted on the page, or a message saying none can be set here."""
        raise NotImplementedError

    def siblings(self, item: ReviewItem) -> list[ReviewItem] | None:
        """The group's other items if they were loaded with `item`, else None."""
        return None

    def describe(self, item: ReviewItem) -> str:
        """A line naming what the item is about (admin lists)."""
        return ""

    def admin_question(self, item: ReviewItem) -> str:
        return ""

    def admin_machine_decision(self, item: ReviewItem) -> str:
        return "-"

    def decisions(self, item: ReviewItem) -> tuple[str, ...]:
        """The decisions an override may set on this item (none: it takes no override)."""
        return ()

    def admin_effective_decision(self, item: ReviewItem) -> str:
        return "-"

    def admin_link(self, item: ReviewItem) -> str:
        return ""

    def admin_detail(self, item: ReviewItem) -> str:
        """HTML shown in the admin under the item (escaped by the templates that make it)."""
        return ""

    def api_field(self, *, detail: bool):
        """The serializer field the API shows this subject in (null for other items)."""
        raise NotImplementedError


_SUBJECTS: dict[str, ReviewSubject] = {}


def register(subject: ReviewSubject) -> ReviewSubject:
    """Called by a subject app's `AppConfig.ready`. Registering a name again replaces it."""
    _SUBJECTS[subject.name] = subject
    return subject


def all_subjects() -> list[ReviewSubject]:
    """In the order they were registered (the installed apps' order)."""
    return list(_SUBJECTS.values())


def named(name: str) -> ReviewSubject:
    return _SUBJECTS[name]


def of(item: ReviewItem) -> ReviewSubject:
    """The subject an item is about (no query: reads the item's subject keys)."""
    for subject in _SUBJECTS.values():
        if getattr(item, f"{subject.name}_id", None) is not None:
            return subject
    raise LookupError(f"Review item #{item.pk} is about nothing this service knows.")
