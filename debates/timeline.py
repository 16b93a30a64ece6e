"""A debate's model calls as a timeline: one row per call, placed by when it was sent and when
it answered (or failed), so calls made at the same time show side by side. No queries: it reads
the calls and participants the debate page already loaded (`selectors.debate_detail_queryset`).

Each bar's position is in percent of the span from the first call's start to the last call's
end (or now, while a call is in flight): `left` and `width`, which the page draws as they are
(tests read the bars back from the page and compare them with the stored times).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.utils import timezone

from debates.models import LLMCall, Participant

#: The narrowest bar drawn, in percent of the span, so that an instant call stays visible.
MIN_WIDTH = 0.4


@dataclass(frozen=True)
class CallRow:
    call: LLMCall
    agent: str
    target: str  # the agent a challenge is addressed to ("" for other calls)
    start: dt.datetime
    end: dt.datetime
    in_flight: bool
    at: float  # seconds from the timeline's start
    until: float
    left: float  # percent of the span
    width: float

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()

    @property
    def retries(self) -> int:
        return max(self.call.attempts - 1, 0)

    @property
    def screening(self) -> str:
        """What the reply screening found: "flagged: <kinds>", "clean", or "" before a reply."""
        if self.call.status != LLMCall.Status.DONE:
            return ""
        kinds = sorted({f.get("kind", "?") for f in self.call.injection_findings or []})
        return f"flagged: {', '.join(kinds)}" if kinds else "clean"

    @property
    def label(self) -> str:
        to = f" → {self.target}" if self.target else ""
        return f"{self.agent} · {self.call.step}{to} · round {self.call.round_number}"


@dataclass(frozen=True)
class Timeline:
    rows: list[CallRow]
    start: dt.datetime | None
    end: dt.datetime | None

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds() if self.start and self.end else 0.0

    @property
    def cost_usd(self) -> Decimal:
        return sum((r.call.cost_usd for r in self.rows), Decimal(0))

    @property
    def most_at_once(self) -> int:
        """The most calls in flight at the same moment."""
        edges = sorted(
            [(r.start, 1) for r in self.rows] + [(r.end, -1) for r in self.rows],
            key=lambda e: (e[0], e[1]),
        )
        most = now = 0
        for _, step in edges:
            now += step
            most = max(most, now)
        return most


def _start(call: LLMCall) -> dt.datetime:
    return call.started_at or call.created_at


def call_timeline(
    calls: list[LLMCall], participants: list[Participant], *, now: dt.datetime | None = None
) -> Timeline:
    """The calls as timeline rows, in the order they were sent (then by key). A challenge's
    call names the agent it is addressed to after ">" in its key (``r2:utility>accuracy``)."""
    if not calls:
        return Timeline(rows=[], start=None, end=None)
    now = now or timezone.now()
    names = {p.pk: p.name for p in participants}
    by_slug = {p.slug: p.name for p in participants}
    spans = []
    for call in calls:
        start = _start(call)
        in_flight = call.status == LLMCall.Status.PENDING
        end = call.completed_at if not in_flight and call.completed_at else None
        if end is None:
            # In flight (or finished before the end was kept): up to now, or its latency.
            end = now if in_flight else start + dt.timedelta(milliseconds=call.latency_ms)
        spans.append((call, start, max(end, start), in_flight))
    first = min(s for _, s, _, _ in spans)
    last = max(e for _, _, e, _ in spans)
    total = (last - first).total_seconds() or 1.0
    rows = []
    for call, start, end, in_flight in sorted(spans, key=lambda s: (s[1], s[0].key)):
        width = max((end - start).total_seconds() / total * 100, MIN_WIDTH)
        left = min((start - first).total_seconds() / total * 100, 100 - width)
        rows.append(
            CallRow(
                call=call,
                agent=names.get(call.participant_id, "?"),
                target=by_slug.get(call.key.rpartition(">")[2], "") if ">" in call.key else "",
                start=start,
                end=end,
                in_flight=in_flight,
                at=(start - first).total_seconds(),
                until=(end - first).total_seconds(),
                left=round(left, 3),
                width=round(width, 3),
            )
        )
    return Timeline(rows=rows, start=first, end=last)
