"""The call timeline in real headless Chromium, at 1366 and 390 px: each bar is drawn where the
call's stored start and end put it (read back from the page), calls of one step side by side;
a call opens to its prompt and raw reply; nothing spills out of the page with every call open."""

from __future__ import annotations

import pytest

from debates import running, services
from debates.models import Debate
from tests.debates.test_live_browser import log_in
from tests.test_layout_browser import MEASURE

pytestmark = pytest.mark.django_db(transaction=True)

# Where each bar is drawn, as a share of its track, with the times the row carries.
BARS = """() => [...document.querySelectorAll("details.tl-call")].map((row) => {
  const track = row.querySelector("svg.tl-track").getBoundingClientRect();
  const bar = row.querySelector("rect.tl-bar").getBoundingClientRect();
  return {id: row.id, start: row.dataset.start, end: row.dataset.end,
          left: (bar.left - track.left) / track.width,
          right: (bar.right - track.left) / track.width, trackWidth: track.width};
})"""


def test_each_bar_is_drawn_where_the_stored_times_put_it(
    live_server, browser, default_agents, django_user_model, settings, artifacts_dir
):
    settings.DEBATE_OFFLINE_LATENCY = 0.05
    admin = django_user_model.objects.create_superuser("tia", password="a-long-passphrase")
    debate = services.debate_create(
        query="Is Bitcoin a good investment?", created_by=admin, enqueue=False
    )
    running.debate_run(debate_id=debate.id)
    debate = Debate.objects.get(pk=debate.pk)
    calls = {f"call-{c.pk}": c for c in debate.llm_calls.all()}
    first = min(c.started_at for c in calls.values())
    span = (max(c.completed_at for c in calls.values()) - first).total_seconds()

    for width in (1366, 390):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, live_server.url, "tia")
        page.goto(f"{live_server.url}/debates/{debate.pk}/#timeline")
        drawn = page.evaluate(BARS)
        assert sorted(row["id"] for row in drawn) == sorted(calls)
        for row in drawn:
            call = calls[row["id"]]
            start = (call.started_at - first).total_seconds() / span
            end = (call.completed_at - first).total_seconds() / span
            # One pixel of the track either way; an instant call is drawn 0.4 % wide.
            pixel = 1.5 / row["trackWidth"]
            assert row["left"] == pytest.approx(start, abs=pixel), row
            assert row["right"] == pytest.approx(max(end, start + 0.004), abs=pixel), row
        analyses = [r for r in drawn if calls[r["id"]].step == "analysis"]
        assert max(r["left"] for r in analyses) < min(r["right"] for r in analyses)  # in parallel

        # A call opens to its prompt and its raw reply, loaded on demand.
        row = page.locator("details.tl-call").first
        row.locator("summary").click()
        row.locator("[data-testid=raw-reply]").wait_for()
        call = calls[row.get_attribute("id")]
        assert row.locator("[data-testid=raw-reply]").inner_text() == call.raw_reply
        assert row.locator("[data-testid=prompt-0]").inner_text() == call.prompt[0]["content"]
        page.locator("#timeline").screenshot(path=artifacts_dir / f"timeline-{width}.png")
        # Every call open at once: nothing wider than the page.
        page.evaluate(
            "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"
        )
        page.wait_for_function(
            "() => [...document.querySelectorAll('details.tl-call .tl-raw')]"
            ".every((s) => s.dataset.loaded === 'true')"
        )
        found = page.evaluate(MEASURE)
        assert found["overflow"] <= 0 and found["wide"] == [], found
        context.close()
