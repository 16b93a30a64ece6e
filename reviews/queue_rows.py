"""The review queue page's rows, made once a page in Python rather than through the template
engine: a page shows up to 200 rows, and rendering each through the queue's template and its
subject's row template (an include, with filters and lookups per cell) was most of the page's
time. The subject makes its own cells (`ReviewSubject.queue_cells`). Every text is escaped
with `html.escape`, which is what Django's `escape` and the templates' autoescape call (without
their per-call lazy-string checks); `tests/reviews/test_queue_rows.py` checks that the rows are
the ones the templates gave."""

from __future__ import annotations

import html
from collections.abc import Iterable

from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.timesince import timesince

from api.links import row_links
from reviews.models import ReviewItem
from reviews.templatetags.review_text import headline, is_long

#: Each status's label, made once (`get_status_display` builds the choices again every call).
STATUS_LABELS = dict(ReviewItem.Status.choices)


def queue_rows(items: Iterable[ReviewItem]) -> list[SafeString]:
    """One `<tr>` per item, in order; `items` come from `reviews.selectors.queue_items`. Each
    row links to the item's review page (reversed once a page) and says how long ago it was
    raised (measured from one moment for the whole page)."""
    link = row_links("reviews:item")
    now = timezone.now()
    return [_row(item, link(item.pk), now) for item in items]


def _row(item: ReviewItem, link: str, now) -> SafeString:
    summary = item.summary
    title = f' title="{html.escape(summary)}"' if is_long(summary) else ""
    created = timezone.template_localtime(item.created_at).isoformat()
    assignee = item.assignee.get_username() if item.assignee is not None else ""
    since = timesince(item.created_at, now)
    status = item.status
    overdue = item.overdue_at is not None and status in ReviewItem.ACTIVE
    marked = ' class="overdue"' if overdue else ""
    return SafeString(
        f'<tr data-item="{item.pk}"{marked}>\n'
        f'      <td><a href="{html.escape(link)}">#{item.pk}</a></td>\n'
        f'      <td data-label="Reason">{html.escape(item.reasons_display)}<br>'
        f'<span class="summary"{title}>{html.escape(headline(summary))}</span></td>\n'
        f'      <td data-label="Priority">{item.priority}</td>\n'
        f'      <td data-label="Age" title="{created}">{html.escape(since)}</td>\n'
        f"      {_due(item, now, overdue)}\n"
        f"      {item.subject.queue_cells(item, link)}\n"
        f'      <td data-label="Assignee">{html.escape(assignee or "—")}</td>\n'
        f'      <td data-label="Status" class="status-{html.escape(status)}">'
        f"{html.escape(STATUS_LABELS.get(status, status))}</td>\n"
        "    </tr>"
    )


def _due(item: ReviewItem, now, overdue: bool) -> str:
    """The Due cell: how long until the deadline, or how long past it (an overdue item)."""
    if item.due_at is None or item.status not in ReviewItem.ACTIVE:
        return '<td data-label="Due">—</td>'
    at = timezone.template_localtime(item.due_at).isoformat()
    if overdue or item.due_at <= now:
        text = f"overdue {timesince(item.due_at, now)}"
        return f'<td data-label="Due" title="{at}" class="due-overdue">{html.escape(text)}</td>'
    return f'<td data-label="Due" title="{at}">in {html.escape(timesince(now, item.due_at))}</td>'
