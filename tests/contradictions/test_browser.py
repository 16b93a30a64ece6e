"""A run's page and its review hand-off in real headless Chromium."""

from __future__ import annotations

from unittest import mock

import pytest

from agents import gateway
from contradictions import running as contradiction_running
from contradictions import services
from contradictions.inputs import parse_payload
from reviews.models import ReviewItem
from tests.contradictions.conftest import ScriptedArbitrator, claim, report
from tests.factories import with_roles

REPORTS = [
    report(
        "LabourEconomist",
        0.8,
        claim(0.10, "GCC-STAT", "Q1-2024"),
        claim(3.0, "Ministry", "2024", metric="inflation"),
    ),
    report(
        "NationalStrategy",
        0.8,
        claim(0.12, "World Bank", "2024"),
        claim(3.5, "Ministry", "2024", metric="inflation"),
    ),
]


@pytest.mark.django_db(transaction=True)
def test_an_analyst_reads_a_run_side_by_side_and_keeps_a_value(
    live_server, page, artifacts_dir, sources, django_user_model
):
    with_roles(
        django_user_model.objects.create_user("dana", password="a-long-passphrase", is_staff=True)
    )
    run = services.contradiction_run_create(
        reports=parse_payload(REPORTS)["reports"], enqueue=False
    )
    with mock.patch.object(gateway, "acomplete", ScriptedArbitrator()):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    item = ReviewItem.objects.get(contradiction__run=run)

    page.goto(f"{live_server.url}/accounts/login/?next=/contradictions/{run.id}/")
    page.fill("#id_username", "dana")
    page.fill("#id_password", "a-long-passphrase")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/contradictions/{run.id}/")
    assert "1 resolved" in page.get_by_test_id("run-status").inner_text()
    cases = page.get_by_test_id("contradiction")
    assert cases.count() == 2
    first = cases.nth(0)
    claims_box = first.get_by_test_id("claim").first.bounding_box()
    resolution_box = first.get_by_test_id("resolution").bounding_box()
    assert resolution_box["x"] > claims_box["x"]  # beside, not below
    assert abs(resolution_box["y"] - claims_box["y"]) < 80
    assert first.get_by_test_id("verdict").inner_text() == "both_valid"
    assert "ranges 0.1-0.12%" in page.get_by_test_id("narrative").inner_text()
    page.screenshot(path=str(artifacts_dir / "contradiction-run.png"), full_page=True)

    cases.nth(1).get_by_role("link", name=f"Review item #{item.pk}").click()
    page.wait_for_url(f"{live_server.url}/reviews/{item.pk}/")
    page.get_by_label("Keep 3.5% (NationalStrategy; Ministry, 2024)").check()
    page.fill("#id_keep-note", "The later release revised it to 3.5.")
    page.get_by_role("button", name="Keep this value", exact=True).click()
    page.wait_for_url(f"{live_server.url}/reviews/")
    assert "kept NationalStrategy's value" in page.locator(".messages").inner_text()

    page.goto(f"{live_server.url}/contradictions/{run.id}/")
    second = page.get_by_test_id("contradiction").nth(1)
    assert "kept by review" in second.inner_text()
    assert "The later release revised it to 3.5." in second.inner_text()
    page.screenshot(path=str(artifacts_dir / "contradiction-reviewed.png"), full_page=True)
