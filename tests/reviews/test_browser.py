"""An analyst works the queue in real headless Chromium: a split vote from login to override,
and a failed debate re-run through the worker."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from reviews.models import ReviewItem
from tests.factories import with_roles
from tests.reviews.conftest import PROVIDER_ERROR, SPLIT, failed_debate, run_offline


@pytest.mark.django_db(transaction=True)
def test_an_analyst_overrides_a_split_vote_in_the_browser(
    live_server, page, artifacts_dir, default_agents, django_user_model
):
    analyst = with_roles(
        django_user_model.objects.create_user("dana", password="a-long-passphrase", is_staff=True)
    )
    analyst.user_permissions.add(Permission.objects.get(codename="view_debate"))
    debate = run_offline(SPLIT)
    item = ReviewItem.objects.get(debate=debate, reason="split_vote")

    page.goto(f"{live_server.url}/accounts/login/?next=/reviews/")
    page.fill("#id_username", "dana")
    page.fill("#id_password", "a-long-passphrase")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/reviews/")
    row = page.locator(f'tr[data-item="{item.pk}"]')
    assert "Split vote" in row.inner_text()
    assert "1\xa0ACT, 1\xa0WARN, 1\xa0REFUSE" in row.inner_text()
    page.screenshot(path=str(artifacts_dir / "review-queue.png"))

    row.get_by_role("link", name=SPLIT).click()
    page.wait_for_url(f"{live_server.url}/reviews/{item.pk}/")
    assert page.locator("h1").inner_text() == (
        f"Review item #{item.pk}: Split vote, Low confidence"
    )
    page.get_by_role("button", name="Claim").click()
    assert f"You claimed review item #{item.pk}." in page.locator(".messages").inner_text()
    assert page.get_by_test_id("item-status").inner_text() == "Claimed (dana)"

    page.get_by_label("Override it with the decision below").check()
    page.select_option("#id_decision", "REFUSE")
    page.fill("#id_note", "A yes/no answer here reads as personal investment advice.")
    page.get_by_role("button", name="Resolve", exact=True).click()
    page.wait_for_url(f"{live_server.url}/reviews/")
    assert (
        "the decision is now REFUSE (the machine decided WARN)"
        in page.locator(".messages").inner_text()
    )
    assert page.locator(f'tr[data-item="{item.pk}"]').count() == 0  # gone from the open queue

    page.goto(f"{live_server.url}/reviews/{item.pk}/")
    assert page.get_by_test_id("item-status").inner_text() == "Resolved (dana)"
    decision = page.locator("dd", has=page.get_by_test_id("machine-decision")).first
    assert decision.inner_text() == "REFUSE reviewer override; machine decided WARN"
    page.screenshot(path=str(artifacts_dir / "review-override.png"), full_page=False)

    page.goto(f"{live_server.url}/admin/debates/debate/{debate.pk}/change/")
    assert "REFUSE (reviewer override; machine: WARN)" in page.locator("#content").inner_text()


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_an_analyst_reruns_a_failed_debate_and_watches_it_complete(
    live_server, page, artifacts_dir, celery_worker_process, default_agents, django_user_model
):
    with_roles(
        django_user_model.objects.create_user("dana", password="a-long-passphrase", is_staff=True)
    )
    debate = failed_debate()  # the provider rejected the key in round 2
    item = ReviewItem.objects.get(debate=debate)

    page.goto(f"{live_server.url}/accounts/login/?next=/reviews/%3Freason%3Ddebate_failed")
    page.fill("#id_username", "dana")
    page.fill("#id_password", "a-long-passphrase")
    page.click("button[type=submit]")
    row = page.locator(f'tr[data-item="{item.pk}"]')
    assert "Debate failed" in row.inner_text() and "none: the debate failed" in row.inner_text()
    row.get_by_role("link", name=SPLIT).click()
    page.wait_for_url(f"{live_server.url}/reviews/{item.pk}/")
    assert PROVIDER_ERROR in page.get_by_test_id("failure-error").inner_text()
    assert page.get_by_test_id("progress").inner_text().startswith("3 LLM calls answered")
    page.screenshot(path=str(artifacts_dir / "review-failed-debate.png"), full_page=False)

    page.fill("#id_rerun-note", "The provider key was renewed.")
    page.get_by_role("button", name="Re-run the debate").click()
    page.wait_for_url(f"{live_server.url}/reviews/")
    assert "it is queued again" in page.locator(".messages").inner_text()

    page.goto(f"{live_server.url}/debates/{debate.pk}/")
    page.locator("#decision").wait_for(timeout=30_000)  # the worker ran it
    assert page.locator("#decision-heading").inner_text() == "Decision: WARN"
    page.goto(f"{live_server.url}/reviews/{item.pk}/")
    assert page.get_by_test_id("item-status").inner_text() == "Resolved (dana)"
    assert "The provider key was renewed." in page.locator("#history").inner_text()
