"""The review items' admin list in real Chromium: at a laptop's 1366 px every column, the
Assignee's included, is on screen without scrolling sideways."""

from __future__ import annotations

import pytest

from reviews import services
from reviews.models import ReviewItem
from tests.factories import StaffFactory
from tests.reviews.conftest import SPLIT, VETO, run_offline

LONG = (
    "Should our company move its whole customer database to a new cloud provider this quarter, "
    "given the migration risk, the contract terms and the team's other commitments?"
)


@pytest.mark.django_db(transaction=True)
def test_every_column_of_the_review_items_list_fits_a_laptop_screen(
    live_server, browser, artifacts_dir, default_agents
):
    admin = StaffFactory(is_superuser=True, username="ada-lovelace-reviewer")
    for question in (SPLIT, VETO, LONG):
        run_offline(question)
    claimed = ReviewItem.objects.order_by("pk").first()
    services.review_claim(item_id=claimed.pk, user=admin)

    context = browser.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/admin/login/?next=/admin/reviews/reviewitem/")
        page.fill("#id_username", admin.username)
        page.fill("#id_password", "a-long-passphrase")
        page.click("input[type=submit]")
        page.wait_for_url(f"{live_server.url}/admin/reviews/reviewitem/")
        width = page.evaluate("window.innerWidth")
        # The list scrolls inside its own box: every column's right edge must be inside it.
        shown = page.locator("#changelist .results").bounding_box()
        header = page.locator("#result_list thead th.column-assignee").bounding_box()
        assert header is not None and shown is not None
        assert header["x"] + header["width"] <= shown["x"] + shown["width"] + 1, (header, shown)
        page.screenshot(path=str(artifacts_dir / "admin-review-items-1366.png"))
        scroll, client = page.evaluate(
            "(() => { const r = document.querySelector('#changelist .results');"
            " return [r.scrollWidth, r.clientWidth]; })()"
        )
        assert scroll <= client, (scroll, client)
        # No cell's text runs into its neighbour's.
        spilling = page.evaluate(
            "[...document.querySelectorAll('#result_list td, #result_list th')]"
            ".filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.className)"
        )
        assert spilling == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        row = page.locator(f'#result_list tbody tr:has(a[href$="/{claimed.pk}/change/"])')
        assert admin.username in row.locator("td.field-assignee").inner_text()
        page.screenshot(path=str(artifacts_dir / "admin-review-items-1366.png"))
    finally:
        context.close()
