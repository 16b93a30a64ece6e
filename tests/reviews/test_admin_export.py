"""Review items export as CSV from the admin: reason, status, verdict, who and when, and the
debate each is about; one query for the rows whatever their number."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse

from reviews import services
from reviews.exports import REVIEW_ITEM_COLUMNS
from reviews.models import ReviewItem
from tests.reviews.conftest import VETO, completed_debate, run_offline

CHANGELIST = reverse("admin:reviews_reviewitem_changelist")


def export(client, *, ids=(), select_across=False, query=""):
    # As the changelist's form posts it: the action, the ticked rows of the page and, with
    # "select all", select_across (the page's rows stay ticked).
    data = {
        "index": "0",
        "action": "export_review_items_csv",
        ACTION_CHECKBOX_NAME: [str(i) for i in ids],
    }
    if select_across:
        data["select_across"] = "1"
        data[ACTION_CHECKBOX_NAME] = [
            str(pk) for pk in ReviewItem.objects.values_list("pk", flat=True)[:1]
        ]
    return client.post(CHANGELIST + query, data)


def rows_of(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.content[:500]
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body, newline="")))


def test_review_items_download_with_verdicts_and_their_debate(
    admin_client, admin_user, default_agents
):
    debate = run_offline(VETO)
    item = ReviewItem.objects.get(debate=debate)
    services.review_claim(item_id=item.pk, user=admin_user)
    services.review_resolve(
        item_id=item.pk, user=admin_user, verdict="uphold", note="+ right call, clearly"
    )

    rows = rows_of(export(admin_client, ids=[item.pk]))

    assert len(rows) == 1
    row = rows[0]
    assert list(row) == [c.header for c in REVIEW_ITEM_COLUMNS]
    assert row["id"] == str(item.pk)
    assert row["reason"] == "safety_veto"
    assert row["status"] == "resolved" and row["verdict"] == "uphold"
    assert row["assignee"] == admin_user.username
    assert row["note"] == "'+ right call, clearly"  # would be a formula in a spreadsheet
    assert row["debate_id"] == str(debate.pk)
    assert row["debate_question"] == VETO
    assert row["debate_decision"] == "REFUSE"
    assert row["debate_protocol"] == "s4"
    assert row["closed_at"].startswith(str(item.created_at.year))


def _low_confidence_items(count: int) -> None:
    for i in range(count):
        ReviewItem.objects.create(
            debate=completed_debate(f"question {i}"),
            reason="low_confidence",
            priority=30,
            summary=f"s{i}",
        )


@pytest.mark.parametrize("count", [4, 40])
def test_select_all_honours_the_filters_in_bounded_queries(
    admin_client, django_assert_max_num_queries, count
):
    _low_confidence_items(count)
    first = ReviewItem.objects.order_by("id").first()
    first.status = ReviewItem.Status.DISMISSED
    first.note = "not needed"
    from django.utils import timezone

    first.closed_at = timezone.now()
    first.save(update_fields=["status", "note", "closed_at"])

    with django_assert_max_num_queries(9):
        rows = rows_of(export(admin_client, select_across=True, query="?status__exact=open"))

    assert len(rows) == count - 1
    assert {r["status"] for r in rows} == {"open"}
    assert {r["reason"] for r in rows} == {"low_confidence"}


def test_someone_without_the_view_permission_cannot_export(client, db):
    from tests.factories import StaffFactory

    _low_confidence_items(1)
    client.force_login(StaffFactory(roles=[]))
    response = export(client, ids=[ReviewItem.objects.get().pk])
    assert response.status_code == 403
    assert not hasattr(response, "streaming_content")
