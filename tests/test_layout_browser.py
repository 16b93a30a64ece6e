"""Every main page fits a phone (390 px) and a laptop (1366 px) in real Chromium: nothing is
wider than the window, and no two boxes (fields, buttons, forms, panels) are drawn on top of
each other."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from contradictions import running as contradiction_running
from contradictions import services as contradiction_services
from contradictions.inputs import parse_payload
from debates import running, services
from reviews.models import ReviewItem
from tests.contradictions.conftest import SCENARIOS
from tests.reviews.conftest import failed_debate

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-passphrase"
WIDTHS = (390, 1024, 1366, 1920)

# Returns what breaks the layout: the page's width beyond the window, and every pair of visible
# boxes that overlap (neither inside the other) by more than a pixel each way.
MEASURE = """
() => {
  const overflow = document.documentElement.scrollWidth - window.innerWidth;
  const selector = "button, input:not([type=hidden]), select, textarea, .actions > form, " +
                   ".panel, fieldset, table, h1, h2, h3, .filters label, nav";
  const boxes = [...document.querySelectorAll(selector)].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
  });
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
                       (el.name ? "[name=" + el.name + "]" : "") +
                       (el.className && typeof el.className === "string" ?
                        "." + el.className.trim().split(/\\s+/).join(".") : "");
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.contains(b) || b.contains(a)) continue;
      const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 1) overlaps.push(name(a) + " / " + name(b));
    }
  }
  const wide = [...document.querySelectorAll("body *")].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > window.innerWidth + 1;
  }).slice(0, 5).map(name);
  return {overflow, overlaps, wide};
}
"""


def test_every_main_page_fits_phone_and_laptop_widths(
    live_server, browser, default_agents, django_user_model, artifacts_dir
):
    admin = django_user_model.objects.create_superuser("root", password=PASSWORD)
    finished = services.debate_create(
        query="Is Bitcoin a good investment?", created_by=admin, enqueue=False
    )
    running.debate_run(debate_id=finished.id)
    waiting = services.debate_create(query="Is it raining?", created_by=admin, enqueue=False)
    item = ReviewItem.objects.filter(debate=finished).first()
    assert item is not None  # a split vote goes to review
    failed = ReviewItem.objects.get(debate=failed_debate())
    run = contradiction_services.contradiction_run_create(
        reports=parse_payload(SCENARIOS["simple"])["reports"], created_by=admin, enqueue=False
    )
    contradiction_running.contradiction_run_execute(run_id=run.id)

    urls = [
        reverse("debates:list"),
        reverse("debates:start"),
        reverse("debates:detail", args=[finished.id]),
        reverse("debates:detail", args=[waiting.id]),
        reverse("analytics:page"),
        reverse("contradictions:list"),
        reverse("contradictions:start"),
        reverse("contradictions:detail", args=[run.id]),
        reverse("reviews:queue"),
        reverse("reviews:item", args=[item.pk]),
        reverse("reviews:item", args=[failed.pk]),
        reverse("accounts:tokens"),
        reverse("login"),
    ]
    problems = {}
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"{live_server.url}{reverse('login')}")
        page.fill("#id_username", "root")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/debates/")
        for url in urls:
            page.goto(f"{live_server.url}{url}")  # waits for "load": styles, scripts, images
            # Every page is drawn by then (charts from data in the page; a live page's first
            # poll comes later and, for a debate that does not run, changes nothing); fonts
            # may still swap in, so wait for them (not for 500 ms of network quiet, per page).
            page.evaluate("document.fonts.ready.then(() => true)")
            found = page.evaluate(MEASURE)
            if found["overflow"] > 0 or found["overlaps"]:
                problems[f"{width} {url}"] = found
                page.screenshot(
                    path=str(artifacts_dir / f"layout-{width}-{len(problems)}.png"), full_page=True
                )
        context.close()
    assert problems == {}, json.dumps(problems, indent=1)
