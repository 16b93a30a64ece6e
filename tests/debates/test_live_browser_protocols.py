"""A round-robin debate started from the form and watched in real headless Chromium while a real
worker runs it: the agents take their turns one at a time, on screen, without a reload."""

from __future__ import annotations

import re

import pytest

from debates.models import Debate
from tests.debates.test_live_browser import WATCH, log_in

pytestmark = pytest.mark.django_db(transaction=True)

# On top of WATCH: the most agents ever shown thinking at the same moment.
WATCH_TURNS = """() => {
  window.__mostThinking = 0;
  const record = () => {
    const now = document.querySelectorAll(".thinking").length;
    window.__mostThinking = Math.max(window.__mostThinking, now);
  };
  record();
  new MutationObserver(record).observe(document.body, { childList: true, subtree: true });
}"""


@pytest.mark.e2e
def test_a_round_robin_debate_is_watched_turn_by_turn_until_its_decision(
    live_server, page, celery_worker_process, default_agents, django_user_model, artifacts_dir
):
    django_user_model.objects.create_user("remy", password="a-long-passphrase")
    log_in(page, live_server.url, "remy")
    page.click("header.site >> text=New debate")
    page.fill("#id_question", "Should I invest in Tesla (TSLA) now?")
    page.select_option("#id_protocol", "round_robin")
    round_robin = page.locator('fieldset[data-protocol="round_robin"]')
    assert round_robin.is_visible()
    assert not page.locator('fieldset[data-protocol="moderated"]').is_visible()
    assert round_robin.locator("#id_round_robin-max_rounds").input_value() == "5"
    round_robin.locator("#id_round_robin-max_rounds").fill("4")
    page.click("button:has-text('Start the debate')")
    page.wait_for_url(re.compile(r"/debates/[0-9a-f-]{36}/$"))
    page.evaluate(WATCH)
    page.evaluate(WATCH_TURNS)
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))

    page.locator("#decision").wait_for(timeout=45_000)

    debate = Debate.objects.get()
    assert (debate.protocol, debate.options["max_rounds"]) == ("round_robin", 4)
    assert page.evaluate("window.__sameDocument") is True and navigations == []
    # Polling samples the page, so not every turn's moment of thought is seen; those seen
    # were always one agent alone (strictly one turn at a time).
    assert set(page.evaluate("window.__thinking")) <= {"valuation", "sentiment", "fundamental"}
    assert page.evaluate("window.__mostThinking") == 1
    rounds_seen = page.evaluate("window.__rounds")
    assert rounds_seen[-1] == 2 and rounds_seen == sorted(rounds_seen)

    rounds = page.locator("section.round")
    assert [rounds.nth(i).locator("h2").inner_text() for i in range(2)] == [
        "Round 1: Initial Analysis",
        "Round 2",
    ]
    assert [rounds.nth(i).locator(".agent-col").count() for i in range(2)] == [3, 3]
    assert [rounds.nth(i).locator(".kind-turn").count() for i in range(2)] == [3, 3]
    assert rounds.nth(1).locator(".badge-changed").count() == 2
    assert "reached on HOLD" in rounds.nth(1).locator(".round-check").inner_text()
    assert page.locator("#decision-heading").inner_text() == "Decision: HOLD"
    banner = page.locator("#decision").inner_text()
    assert "Valuation Agent 2, Sentiment Agent 2, Fundamental Agent 2" in banner
    assert "at most 4 rounds" in banner
    assert page.locator("#live-announcer").inner_text() == "Debate finished. Decision: HOLD."
    page.screenshot(path=artifacts_dir / "live-round-robin-finished.png", full_page=True)
