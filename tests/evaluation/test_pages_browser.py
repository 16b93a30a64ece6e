"""In real Chromium, with a real Celery worker: an Operator starts a run of the shipped set from
the evaluation page, the run's page follows it to the end by reloading itself, and the list,
the run and the comparison fit a laptop (1366 px) and a phone (390 px)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.roles import OPERATOR
from evaluation.models import EvaluationRun
from tests.debates.test_live_browser import log_in
from tests.evaluation.pages import Q, make_run
from tests.factories import UserFactory, with_roles

pytestmark = pytest.mark.django_db(transaction=True)

OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


@pytest.mark.e2e
def test_an_operator_starts_a_run_watches_it_finish_and_the_pages_fit(
    live_server, browser, celery_worker_process, default_agents, artifacts_dir
):
    with_roles(UserFactory(username="olga"), OPERATOR)
    earlier = make_run([Q("Is 4 an even number?", "ACT", "factual", "ACT", "ACT")])
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "olga")
    expect(page.locator('header.site a[href="/evaluation/"]')).to_have_count(1)
    page.goto(f"{live_server.url}/evaluation/")
    page.select_option("#id_set", "decisions_v1")
    page.select_option("#id_protocol", "vote")
    page.click("text=Start the run")
    run = EvaluationRun.objects.exclude(pk=earlier.pk).get()
    page.wait_for_url(f"{live_server.url}/evaluation/{run.id}/")
    assert page.locator("[data-testid=status]").inner_text() == "Running"
    # The page reloads itself until the run is done.
    expect(page.locator("[data-testid=status]")).to_have_text("Completed", timeout=180_000)
    run.refresh_from_db()
    debate = run.report["accuracy"]["debate"]
    shown = page.locator('tr[data-method="debate"] td .share').first
    assert shown.get_attribute("data-agreed") == str(debate["agreed"])
    assert shown.get_attribute("data-n") == str(debate["n"]) == "62"
    assert page.locator('[data-testid=progress] [data-finished="62"]').count() == 1

    pages = [
        "/evaluation/",
        f"/evaluation/{run.id}/",
        f"/evaluation/compare/?a={earlier.id}&b={run.id}",
    ]
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for path in pages:
            page.goto(f"{live_server.url}{path}")
            assert page.evaluate(OVERFLOW) <= 0, (path, width)
        page.screenshot(path=artifacts_dir / f"evaluation-compare-{width}.png", full_page=True)
    context.close()
