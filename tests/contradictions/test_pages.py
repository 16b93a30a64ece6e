"""The run's page, the start form, the review page of a contradiction item, and the admin."""

from __future__ import annotations

import json
import re
from unittest import mock

import pytest
from django.urls import reverse

from agents import gateway
from contradictions import running as contradiction_running
from contradictions import services
from contradictions.inputs import parse_payload
from contradictions.models import ContradictionRun, Finding, SourceAuthority
from reviews.models import ReviewItem
from tests.contradictions.conftest import SCENARIOS, ScriptedArbitrator, claim, report
from tests.factories import with_roles

pytestmark = pytest.mark.usefixtures("sources")

FLAGGED = [
    report(
        "LabourEconomist",
        0.8,
        claim(0.10, "GCC-STAT", "2024"),
        claim(3.0, "Ministry", "2024", metric="inflation"),
    ),
    report(
        "NationalStrategy",
        0.8,
        claim(0.12, "World Bank", "2024"),
        claim(3.5, "Ministry", "2024", metric="inflation", citation="<script>alert('x')</script>"),
    ),
]


def completed(data, user=None) -> ContradictionRun:
    run = services.contradiction_run_create(
        reports=parse_payload(data)["reports"], created_by=user, enqueue=False
    )
    with mock.patch.object(gateway, "acomplete", ScriptedArbitrator()):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    return run


def test_the_run_page_shows_each_contradiction_beside_its_resolution(client, user):
    run = completed(FLAGGED, user)
    client.force_login(user)
    text = client.get(reverse("contradictions:detail", args=[run.id])).content.decode()
    assert "2 contradictions" in text and "1 resolved" in text and "1 flagged for review" in text
    assert re.search(
        r'<dt>Result</dt><dd data-testid="debate-results">status complete, 2 found, 1 resolved, '
        r"1 flagged_for_review, latency_ms \d+<",
        text,
    )
    assert text.count('data-testid="contradiction"') == 2
    assert text.count('data-testid="resolution"') == 2
    assert "agent1_correct" in text and "arbitrator's choice" in text
    assert "GCC-STAT ranks above World Bank in source authority" in text
    assert "(rank 1)" in text and "2024-01-01 to 2024-12-31" in text
    assert "the arbitrator flagged it for review" in text
    assert "Adjusted reports" in text and "replaced" in text
    assert "&lt;script&gt;alert" in text and "<script>alert" not in text
    assert 'http-equiv="refresh"' not in text  # finished: no more refreshing


def test_a_run_in_progress_refreshes_itself(client, user):
    run = services.contradiction_run_create(
        reports=parse_payload(SCENARIOS["simple"])["reports"], created_by=user, enqueue=False
    )
    client.force_login(user)
    text = client.get(reverse("contradictions:detail", args=[run.id])).content.decode()
    assert "Queued" in text and 'http-equiv="refresh"' in text


def test_only_the_owner_and_staff_see_a_run(client, user, other_user, staff_user):
    run = completed(SCENARIOS["simple"], user)
    url = reverse("contradictions:detail", args=[run.id])
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(other_user)
    assert client.get(url).status_code == 404
    assert str(run.id)[:8] not in client.get(reverse("contradictions:list")).content.decode()
    client.force_login(staff_user)
    assert client.get(url).status_code == 200
    assert str(run.id)[:8] in client.get(reverse("contradictions:list")).content.decode()


def test_the_start_form_checks_the_reports_and_starts_a_run(client, user):
    client.force_login(user)
    url = reverse("contradictions:start")
    bad = client.post(url, {"reports": json.dumps([report("A", 3, claim("x", "S", "2024"))])})
    assert bad.status_code == 400
    text = bad.content.decode()
    assert "reports.0.confidence" in text and "reports.0.findings.0.value" in text
    assert client.post(url, {"reports": "[{"}).status_code == 400
    assert not ContradictionRun.objects.exists()
    with mock.patch("contradictions.tasks.run_contradictions.delay"):
        response = client.post(url, {"reports": json.dumps(SCENARIOS["simple"])})
    run = ContradictionRun.objects.get()
    assert response.status_code == 302 and response.url == f"/contradictions/{run.id}/"
    assert run.origin == "page" and run.created_by == user


def test_the_start_form_says_why_a_run_that_does_not_fit_a_limit_is_refused(client, user, settings):
    settings.BUDGET_DEBATE_MAX_TOKENS = 30_000
    settings.BUDGET_USER_DAILY_TOKENS = 20_000
    client.force_login(user)
    response = client.post(
        reverse("contradictions:start"), {"reports": json.dumps(SCENARIOS["simple"])}
    )
    assert response.status_code == 400
    text = re.sub(r"\s+", " ", response.content.decode())
    assert "Spending limit reached: your daily token limit (user_daily_tokens)" in text
    assert "30,000" in text
    assert not ContradictionRun.objects.exists()


# --- the review queue ---------------------------------------------------------------------------


@pytest.fixture
def item(user) -> ReviewItem:
    run = completed(FLAGGED, user)
    return ReviewItem.objects.get(contradiction__run=run)


def test_contradiction_items_sit_in_the_queue_beside_debate_items(client, staff_user, item):
    from debates.reviewing.items import review_items_for_debate
    from tests.reviews.conftest import completed_debate

    review_items_for_debate(
        debate=completed_debate(
            "Is it?",
            decision="WARN",
            metadata={
                "consensus_type": "split",
                "vote_breakdown": {"ACT": 1, "WARN": 1, "REFUSE": 1},
            },
        )
    )
    client.force_login(staff_user)
    text = client.get(reverse("reviews:queue")).content.decode()
    assert "Contradiction: inflation" in text and "Medium severity" in text
    assert "Is it?" in text


def test_the_review_page_shows_the_claims_beside_the_resolution_and_the_values_to_keep(
    client, staff_user, item
):
    client.force_login(staff_user)
    text = client.get(reverse("reviews:item", args=[item.pk])).content.decode()
    assert 'data-testid="resolution"' in text and "Nothing in the data separates" in text
    finding = Finding.objects.get(
        run=item.contradiction.run, metric="inflation", report__agent_name="NationalStrategy"
    )
    assert f'value="finding:{finding.pk}"' in text
    assert "Keep 3.5% (NationalStrategy; Ministry, 2024)" in text
    assert 'value="use_both"' in text


def test_picking_a_value_on_the_review_page_resolves_and_adjusts_the_reports(
    client, staff_user, item
):
    client.force_login(staff_user)
    finding = Finding.objects.get(
        run=item.contradiction.run, metric="inflation", report__agent_name="NationalStrategy"
    )
    url = reverse("reviews:resolve", args=[item.pk])
    missing = client.post(url, {"keep-choice": f"finding:{finding.pk}", "keep-note": ""})
    assert missing.status_code == 400 and "A note is required" in missing.content.decode()
    response = client.post(
        url, {"keep-choice": f"finding:{finding.pk}", "keep-note": "Later survey."}
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.status, item.verdict) == ("resolved", "keep")
    page = client.get(reverse("contradictions:detail", args=[item.contradiction.run_id]))
    text = page.content.decode()
    assert "kept NationalStrategy&#x27;s value" in text and "Later survey." in text
    history = client.get(reverse("reviews:item", args=[item.pk])).content.decode()
    assert "kept 3.5% (Ministry, 2024)" in history


def test_a_second_analyst_is_told_someone_got_there_first(
    client, staff_user, item, django_user_model
):
    from reviews.services import review_claim

    other = with_roles(
        django_user_model.objects.create_user("bob", password="pw-bob-long", is_staff=True)
    )
    review_claim(item_id=item.pk, user=other)
    client.force_login(staff_user)
    response = client.post(
        reverse("reviews:resolve", args=[item.pk]), {"keep-choice": "use_both", "keep-note": "both"}
    )
    assert response.status_code == 409 and "claimed by bob" in response.content.decode()
    item.refresh_from_db()
    assert item.status == "claimed"


def test_non_staff_cannot_work_contradiction_items(client, user, item):
    client.force_login(user)
    assert client.get(reverse("reviews:item", args=[item.pk])).status_code == 403


# --- the admin ----------------------------------------------------------------------------------


def test_the_admin_starts_a_run_from_pasted_reports(admin_client):
    url = reverse("admin:contradictions_contradictionrun_add")
    assert "Start a contradiction run" in admin_client.get(url).content.decode()
    bad = admin_client.post(url, {"reports": json.dumps({"reports": []})})
    assert bad.status_code == 400 and "at least one report" in bad.content.decode()
    with mock.patch("contradictions.tasks.run_contradictions.delay"):
        response = admin_client.post(url, {"reports": json.dumps(SCENARIOS["multi_way"])})
    run = ContradictionRun.objects.get()
    assert response.status_code == 302 and run.origin == "admin"
    assert run.reports.count() == 3


def test_the_admin_shows_a_run_side_by_side_and_its_review_items(admin_client, item):
    run = item.contradiction.run
    text = admin_client.get(
        reverse("admin:contradictions_contradictionrun_change", args=[run.id])
    ).content.decode()
    assert "Contradictions and resolutions" in text and 'data-testid="resolution"' in text
    assert "Arbitration calls (raw output)" in text
    items = admin_client.get(reverse("admin:reviews_reviewitem_changelist")).content.decode()
    assert "Contradiction: inflation" in items
    change = admin_client.get(
        reverse("admin:reviews_reviewitem_change", args=[item.pk])
    ).content.decode()
    assert 'data-testid="resolution"' in change and "Contradiction run" in change


def test_the_source_ranking_is_edited_in_the_admin_and_used_by_the_next_run(admin_client):
    url = reverse("admin:contradictions_sourceauthority_changelist")
    rows = list(SourceAuthority.objects.order_by("rank"))
    data = {"form-TOTAL_FORMS": "2", "form-INITIAL_FORMS": "2", "_save": "Save"}
    for i, row in enumerate(rows):  # World Bank first now
        data |= {
            f"form-{i}-id": row.pk,
            f"form-{i}-rank": 2 if row.name == "GCC-STAT" else 1,
            f"form-{i}-is_active": "on",
        }
    assert admin_client.post(url, data).status_code == 302
    run = completed(SCENARIOS["source_conflict"])
    [row] = run.contradictions.all()
    assert row.resolution.chosen_finding.source == "World Bank"
    assert run.authority[0]["name"] == "World Bank"
