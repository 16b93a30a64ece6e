"""The review queue's rows (`reviews.queue_rows`, each subject's `queue_cells`) and the decision
shown on the review pages (`decision_html`) are made in Python: they say what the templates they
replaced said, with the same escaping. The templates are kept here, as they were, to compare."""

from __future__ import annotations

import re

import pytest
from django import template
from django.template import Context, Engine
from django.urls import reverse

from debates.models import Debate
from debates.reviewing.pages import decision_html
from debates.reviewing.triage import vote_counts
from reviews import selectors
from reviews.queue_rows import queue_rows
from tests.reviews.conftest import items_of_every_kind

QUEUE = reverse("reviews:queue")

# The queue's row and the subjects' row templates before they were made in Python (with the Due
# cell added since: these items have no deadline).
OLD_TEMPLATES = {
    "row.html": """{% load review_text %}
    <tr data-item="{{ item.pk }}">
      <td><a href="{{ item.review_url }}">#{{ item.pk }}</a></td>
      <td data-label="Reason">{{ item.reasons_display }}<br><span class="summary"{% if item.summary|is_long %} title="{{ item.summary }}"{% endif %}>{{ item.summary|headline }}</span></td>
      <td data-label="Priority">{{ item.priority }}</td>
      <td data-label="Age" title="{{ item.created_at|date:'c' }}">{{ item.created_at|timesince }}</td>
      <td data-label="Due">—</td>
      {% include row_template %}
      <td data-label="Assignee">{{ item.assignee.get_username|default:"—" }}</td>
      <td data-label="Status" class="status-{{ item.status }}">{{ item.get_status_display }}</td>
    </tr>""",  # noqa: E501
    "debate": """{% load old_rows %}{% with debate=item.debate %}
<td><a href="{{ item.review_url }}">{{ debate.query|truncatechars:120 }}</a></td>
<td data-label="Decision">{% include "decision.html" %}</td>
<td data-label="Votes">{% for decision, count in debate.metadata|vote_breakdown %}{{ count }}&nbsp;{{ decision }}{% if not forloop.last %}, {% endif %}{% endfor %}</td>
{% endwith %}""",  # noqa: E501
    "decision.html": """{% if debate.is_overridden %}<span class="decision-{{ debate.effective_decision }}" data-testid="effective-decision">{{ debate.effective_decision }}</span> <span class="override">{% if debate.decision %}reviewer override; machine decided <span class="decision-{{ debate.decision }}" data-testid="machine-decision">{{ debate.decision }}</span>{% else %}set by a reviewer; the debate {{ debate.get_status_display|lower }} without a decision{% endif %}</span>{% elif debate.status == "failed" %}<span data-testid="effective-decision">none: the debate failed</span>{% else %}<span class="decision-{{ debate.decision }}" data-testid="effective-decision">{{ debate.decision|default:"(none yet)" }}</span>{% endif %}""",  # noqa: E501
    "contradiction": """
<td><a href="{{ item.review_url }}">Contradiction: {{ item.contradiction.metric|truncatechars:100 }}</a></td>
<td data-label="Decision">{{ item.contradiction.get_severity_display }} severity</td>
<td data-label="Votes">—</td>
""",  # noqa: E501
    "contradiction_run": """
<td><a href="{{ item.review_url }}">Contradiction run {{ item.contradiction_run_id|stringformat:"s"|slice:":8" }}</a></td>
<td data-label="Decision">{{ item.contradiction_run.get_status_display|lower }}</td>
<td data-label="Votes">—</td>
""",  # noqa: E501
}

register = template.Library()  # the old templates' `vote_breakdown` filter (library "old_rows")


@register.filter
def vote_breakdown(metadata):
    return vote_counts(metadata or {})


OLD = Engine(
    loaders=[("django.template.loaders.locmem.Loader", OLD_TEMPLATES)],
    libraries={
        "review_text": "reviews.templatetags.review_text",
        "old_rows": "tests.reviews.test_queue_rows",
    },
)


def _old_row(item) -> str:
    item.review_url = reverse("reviews:item", args=[item.pk])
    context = Context({"item": item, "row_template": item.subject.name})
    return OLD.get_template("row.html").render(context)


def _tags_only(html: str) -> str:
    """The markup without the whitespace between tags (the includes added line breaks)."""
    return re.sub(r">\s+<", "><", html).strip()


@pytest.fixture
def items(staff):
    items_of_every_kind(holder=staff)
    return list(selectors.queue_items(user=staff, status="all"))


def test_each_row_says_what_the_templates_said(items):
    assert {item.subject.name for item in items} == {"debate", "contradiction", "contradiction_run"}
    rows = queue_rows(items)
    assert len(rows) == len(items) == 6
    for item, row in zip(items, rows, strict=True):
        assert _tags_only(row) == _tags_only(_old_row(item)), item.subject.name


def test_rows_escape_every_stored_text(items):
    page = "".join(queue_rows(items))
    assert "Is &lt;b&gt;this&lt;/b&gt; &amp; &quot;that&quot; safe?" in page
    assert "1&nbsp;&lt;odd&gt;" in page
    assert 'title="Vetoed' not in page  # short: no title
    assert 'title="First line of a &lt;long&gt; error\nTraceback' in page
    assert "Revenue &lt;2024&gt; &amp; margin" in page
    assert "<b>" not in page and "<long>" not in page


def test_the_decision_says_what_its_template_said(db):
    overridden = Debate(status="completed", decision="ACT", decision_override="<REFUSE>")
    debates = [
        overridden,
        Debate(status="failed", decision="", decision_override="WARN"),
        Debate(status="failed"),
        Debate(status="running"),
        Debate(status="completed", decision="WARN", decision_override="WARN"),
    ]
    for debate in debates:
        old = OLD.get_template("decision.html").render(Context({"debate": debate}))
        assert decision_html(debate) == old
    assert "&lt;REFUSE&gt;" in decision_html(overridden)


def test_the_queue_page_shows_every_kind_of_row_in_a_fixed_number_of_queries(
    client, staff, items, django_assert_num_queries
):
    client.force_login(staff)
    client.get(QUEUE, {"status": "all"})  # the session's first read
    # session, user, the user's permissions (2), reviewers for the filter, your duty (and the
    # open items assigned to you), the table's size (estimated, then counted: a small table),
    # the page's items with their subjects and holders: none per row
    with django_assert_num_queries(9):
        response = client.get(QUEUE, {"status": "all"})
    page = response.content.decode()
    for row in queue_rows(items):
        assert _tags_only(row) in _tags_only(page)
    assert page.count("<tr data-item=") == 6
