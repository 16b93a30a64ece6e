"""An analyst works the queue from the keyboard in real Chromium: the shortcuts listed on the
page move through the queue, claim, uphold and override; "Resolve and next" goes on to the next
item; a split vote with low confidence is one item; a failed item's long provider error is one
line until opened; no shortcut breaks the Content-Security-Policy."""

from __future__ import annotations

import pytest

from reviews.models import ReviewItem
from tests.factories import with_roles
from tests.reviews.conftest import SPLIT, VETO, failed_debate, run_offline
from tests.test_csp_browser import RECORD_VIOLATIONS

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-passphrase"


def _login(page, base: str, next_url: str = "/reviews/") -> None:
    page.goto(f"{base}/accounts/login/?next={next_url}")
    page.fill("#id_username", "dana")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}{next_url}")


@pytest.fixture
def analyst(django_user_model):
    return with_roles(
        django_user_model.objects.create_user("dana", password=PASSWORD, is_staff=True)
    )


def test_the_queue_is_worked_from_the_keyboard(live_server, page, analyst, default_agents):
    veto = ReviewItem.objects.get(debate=run_offline(VETO))
    split = ReviewItem.objects.get(debate=run_offline(SPLIT))
    second = ReviewItem.objects.get(debate=run_offline(SPLIT))
    assert split.reasons == ["split_vote", "low_confidence"]
    page.add_init_script(RECORD_VIOLATIONS)
    base = live_server.url
    _login(page, base)

    # the queue: one row per debate, both reasons on the split's; j/k select, Enter opens
    assert page.locator("tr[data-item]").count() == 3
    row = page.locator(f'tr[data-item="{split.pk}"]')
    assert "Split vote, Low confidence" in row.inner_text()
    shortcuts = page.locator("#shortcuts").inner_text()
    assert "next / previous item in the list" in shortcuts
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    assert page.locator("tr.selected").get_attribute("data-item") == str(split.pk)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/reviews/{split.pk}/")

    # the item: its two reasons, the shortcuts listed, j/k to the neighbours in the queue
    assert page.locator("h1").inner_text() == (
        f"Review item #{split.pk}: Split vote, Low confidence"
    )
    assert "Average confidence" in page.get_by_test_id("reasons").inner_text()
    listed = page.locator("#shortcuts").inner_text()
    for text in ("claim this item", "uphold", "override", "next / previous item in the queue"):
        assert text in listed
    page.keyboard.press("k")
    page.wait_for_url(f"{base}/reviews/{veto.pk}/")
    page.keyboard.press("j")
    page.wait_for_url(f"{base}/reviews/{split.pk}/")

    # c claims; o chooses override and puts the cursor on the labelled decision select
    page.keyboard.press("c")
    page.wait_for_url(f"{base}/reviews/{split.pk}/")
    assert page.get_by_test_id("item-status").inner_text() == "Claimed (dana)"
    page.keyboard.press("o")
    assert page.get_by_label("Override it with the decision below").is_checked()
    select = page.get_by_label("Decision if you override")
    assert select.evaluate("el => el === document.activeElement")
    select.select_option("REFUSE")
    # u switches to uphold and puts the cursor in the note; Ctrl+Enter sends the form
    page.keyboard.press("Escape")
    page.keyboard.press("u")
    assert page.get_by_label("Uphold the machine's decision").is_checked()
    page.keyboard.type("WARN with its caveats is right.")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(f"{base}/reviews/")
    assert "upheld the machine's WARN" in page.locator(".messages").inner_text()
    split.refresh_from_db()
    assert (split.status, split.verdict, split.note) == (
        "resolved",
        "uphold",
        "WARN with its caveats is right.",
    )

    # "Resolve and next": the veto is resolved and the next item in the queue opens
    page.goto(f"{base}/reviews/{veto.pk}/")
    page.get_by_label("Uphold the machine's decision").check()
    page.fill("#id_note", "The request is clearly harmful.")
    page.get_by_role("button", name="Resolve and next").click()
    page.wait_for_url(f"{base}/reviews/{second.pk}/")
    assert "upheld the machine's REFUSE" in page.locator(".messages").inner_text()
    assert page.evaluate("window.__csp") == []


def test_typing_a_shortcut_letter_in_a_note_does_nothing_else(
    live_server, page, analyst, default_agents
):
    item = ReviewItem.objects.get(debate=run_offline(SPLIT))
    base = live_server.url
    _login(page, base, f"/reviews/{item.pk}/")
    page.click("#id_note")
    page.keyboard.type("just a quick comment")
    assert page.url == f"{base}/reviews/{item.pk}/"
    assert page.locator("#id_note").input_value() == "just a quick comment"
    item.refresh_from_db()
    assert item.status == "open"  # the "c" typed did not claim it


def test_a_failed_items_long_error_is_one_line_with_the_details_on_demand(
    live_server, page, analyst, default_agents
):
    item = ReviewItem.objects.get(debate=failed_debate())
    long_error = "litellm.AuthenticationError: the key was rejected " + "x" * 400 + "\nTraceback:"
    ReviewItem.objects.filter(pk=item.pk).update(
        summary=long_error[:300], details={**item.details, "error": long_error}
    )
    base = live_server.url
    _login(page, base)
    row = page.locator(f'tr[data-item="{item.pk}"]')
    assert len(row.locator(".summary").inner_text()) <= 160
    page.goto(f"{base}/reviews/{item.pk}/")
    error = page.get_by_test_id("failure-error")
    summary = error.locator("summary")
    assert summary.inner_text().startswith("litellm.AuthenticationError: the key was rejected")
    assert summary.inner_text().endswith("…")
    assert not error.locator("pre").is_visible()
    summary.click()
    assert error.locator("pre").is_visible()
    assert "Traceback:" in error.locator("pre").inner_text()


def test_no_keyboard_sequence_overrides_a_safety_veto(live_server, page, analyst):
    """The path that used to override a veto in one go (j, Enter, o, ArrowDown, Tab, a note,
    Ctrl+Enter) now stops at a separate confirmation step; Ctrl+Enter does not send that step,
    and its checkbox must be ticked."""
    from debates.models import Debate
    from tests.reviews.conftest import vetoed_item

    item = vetoed_item()
    base = live_server.url
    _login(page, base)

    def keyboard_override():
        page.keyboard.press("o")
        page.keyboard.press("ArrowDown")  # ACT, the first decision offered
        assert page.get_by_label("Decision if you override").input_value() == "ACT"
        page.keyboard.press("Tab")
        page.keyboard.type("Looks fine to me")
        page.keyboard.press("Control+Enter")
        page.wait_for_url(f"{base}/reviews/{item.pk}/resolve/")

    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/reviews/{item.pk}/")
    keyboard_override()
    confirm = page.locator("#veto-confirm")
    assert "Safety Agent vetoed this debate at risk 90" in confirm.inner_text()
    assert confirm.get_by_test_id("veto-claim-first").is_visible()
    item.refresh_from_db()
    assert (item.status, item.verdict) == ("open", "")

    # claimed, the same keys reach the confirmation step and stop there
    page.goto(f"{base}/reviews/{item.pk}/")
    page.keyboard.press("c")
    page.get_by_test_id("item-status").filter(has_text="Claimed (dana)").wait_for()
    keyboard_override()
    form = page.locator("#veto-confirm-form")
    assert form.is_visible()
    page.locator("#veto-confirm-note").focus()
    page.keyboard.press("Control+Enter")
    page.keyboard.press("Tab")  # the checkbox: Enter does not tick it
    page.keyboard.press("Enter")
    item.refresh_from_db()
    debate = Debate.objects.get(pk=item.debate_id)
    assert (item.status, item.verdict, debate.effective_decision) == ("claimed", "", "REFUSE")

    # ticked and sent with its own button: the override takes effect
    page.locator("#veto-confirm-box").check()
    page.get_by_role("button", name="Override the veto to ACT").click()
    page.wait_for_url(f"{base}/reviews/")
    assert "takes effect once a second reviewer" not in page.locator(".messages").inner_text()
    item.refresh_from_db()
    debate.refresh_from_db()
    # in effect, and back in the queue for its second review
    assert (item.status, item.stage, debate.effective_decision) == ("open", "second", "ACT")
