"""`{% admin_result_list %}` (the debate and review item changelists) gives exactly the rows
Django's `{% result_list %}` gives: every column kind those changelists show (choices, a
foreign key with and without a value, booleans, dates, decimals, display callables, links with
the list's filters, the action checkbox)."""

from __future__ import annotations

import pytest
from django.contrib.admin.templatetags import admin_list
from django.urls import reverse

from accounts.templatetags import admin_rows
from debates.models import Debate
from reviews.models import ReviewItem
from tests.factories import CompletedDebateFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored():
    owner = UserFactory(username="ana <b>")
    plain = CompletedDebateFactory(query="Plain & <simple>?", created_by=owner, cost_usd=1.25)
    overridden = CompletedDebateFactory(
        query="Overridden?",
        decision="ACT",
        decision_override="REFUSE",
        consensus_type="split",
        review_status="resolved",
        injection_findings=[{"pattern": "ignore previous"}],
        created_by=None,
    )
    failed = Debate.objects.create(query="Failed?", status="failed", error="boom")
    ReviewItem.objects.create(debate=plain, reason="split_vote", reasons=["split_vote"])
    ReviewItem.objects.create(
        debate=overridden,
        reason="safety_veto",
        reasons=["safety_veto", "low_confidence"],
        status="claimed",
        assignee=owner,
        priority=90,
    )
    ReviewItem.objects.create(debate=failed, reason="debate_failed", reasons=[], summary="x")
    return owner


def _both(response) -> tuple[list[str], list[str]]:
    cl = response.context["cl"]
    django_rows = ["".join(row) for row in admin_list.result_list(cl)["results"]]
    ours = admin_rows.rows(cl)
    assert ours is not None  # these changelists are covered, not handed back to Django
    return django_rows, ["".join(row) for row in ours]


@pytest.mark.parametrize(
    ("changelist", "params"),
    [
        ("admin:debates_debate_changelist", {}),
        ("admin:debates_debate_changelist", {"status__exact": "completed", "o": "-13"}),
        ("admin:debates_debate_changelist", {"q": "overridden"}),
        ("admin:reviews_reviewitem_changelist", {}),
        ("admin:reviews_reviewitem_changelist", {"status__exact": "claimed"}),
    ],
)
def test_the_rows_are_the_ones_django_renders(admin_client, stored, changelist, params):
    response = admin_client.get(reverse(changelist), params)
    assert response.status_code == 200
    assert "admin/change_list_fast_rows.html" in [t.name for t in response.templates]
    django_rows, ours = _both(response)
    assert django_rows and ours == django_rows
    page = response.content.decode()
    for row in ours:
        assert f"<tr>{row}</tr>" in page


def test_the_page_shows_links_with_the_filters_icons_and_escaped_text(admin_client, stored):
    response = admin_client.get(
        reverse("admin:debates_debate_changelist"), {"status__exact": "completed"}
    )
    page = response.content.decode()
    debate = Debate.objects.get(query="Overridden?")
    change = reverse("admin:debates_debate_change", args=[debate.pk])
    assert f'href="{change}?_changelist_filters=status__exact%3Dcompleted"' in page
    assert 'alt="True"' in page and 'alt="False"' in page  # the injection column
    assert "Plain &amp; &lt;simple&gt;?" in page and "ana &lt;b&gt;" in page
    assert "REFUSE (reviewer override; machine: ACT)" in page
    assert f'value="{debate.pk}" class="action-select"' in page
    assert 'class="field-cost_usd">1.25' in page


def test_a_changelist_it_does_not_cover_is_left_to_django(admin_client, stored):
    response = admin_client.get(reverse("admin:debates_debate_changelist"), {"_popup": "1"})
    assert response.status_code == 200
    assert admin_rows.rows(response.context["cl"]) is None
