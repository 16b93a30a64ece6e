"""The schedule form and the review items' override action in the admin, in real Chromium."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.models import ReviewItem
from tests.reviews.conftest import SPLIT, run_offline
from tests.test_csp_browser import RECORD_VIOLATIONS
from tests.test_layout_browser import MEASURE

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-passphrase"


@pytest.mark.parametrize("width", [390, 1366])
def test_the_schedule_form_shows_the_chosen_protocols_inputs_only(
    live_server, browser, django_user_model, default_agents, width
):
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.add_init_script(RECORD_VIOLATIONS)
    base = live_server.url
    add = reverse("admin:schedules_debateschedule_add")
    page.goto(f"{base}/admin/login/?next={add}")
    page.fill("#id_username", "root")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}{add}")
    moderated = page.locator("fieldset.protocol-moderated")
    page.select_option("#id_protocol", "s4")
    assert not moderated.is_visible()
    assert page.locator("#id_s4-model").is_visible()
    page.select_option("#id_protocol", "moderated")
    assert moderated.is_visible() and not page.locator("#id_s4-model").is_visible()
    assert page.get_by_label("max_rounds").first.input_value() == "2"  # the default, shown
    assert page.evaluate("window.__csp") == []
    if width == 1366:
        assert page.evaluate(MEASURE)["overflow"] <= 0
    context.close()


def test_an_analyst_overrides_from_the_admin_list_in_chromium(
    live_server, page, django_user_model, default_agents
):
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    item = ReviewItem.objects.get(debate=run_offline(SPLIT))
    page.add_init_script(RECORD_VIOLATIONS)
    base = live_server.url
    changelist = reverse("admin:reviews_reviewitem_changelist")
    page.goto(f"{base}/admin/login/?next={changelist}")
    page.fill("#id_username", "root")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}{changelist}")
    page.check(f'input[name=_selected_action][value="{item.pk}"]')
    page.select_option("select[name=action]", "resolve_override")
    page.click("button[name=index]")
    page.select_option("#id_decision", "REFUSE")
    page.fill("#id_note", "Reads as personal investment advice.")
    page.click("input[name=apply]")
    assert "Set the decision REFUSE on 1 item(s)." in page.locator(".messagelist").inner_text()
    item.refresh_from_db()
    assert (item.verdict, item.decision_override) == ("override", "REFUSE")
    assert page.evaluate("window.__csp") == []
