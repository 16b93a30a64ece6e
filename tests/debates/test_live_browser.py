"""The live debate page in real headless Chromium: a debate unfolds on screen without a reload."""

from __future__ import annotations

import re
from unittest import mock

import pytest

from agents import gateway
from debates import running, services
from tests.debates.test_live import SCRIPT_REPLY
from tests.debates.test_services import CountingLLM

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-passphrase"

# Installed once the debate page has loaded: a marker that a reload would wipe, and a record
# of what the page showed as it changed (the number of rounds, whether anyone was thinking).
WATCH = """() => {
  window.__sameDocument = true;
  window.__rounds = [];
  window.__thinking = [];
  const record = () => {
    const rounds = document.querySelectorAll("section.round").length;
    if (window.__rounds[window.__rounds.length - 1] !== rounds) window.__rounds.push(rounds);
    for (const el of document.querySelectorAll(".thinking")) {
      const agent = el.closest(".agent-col").dataset.agent;
      if (!window.__thinking.includes(agent)) window.__thinking.push(agent);
    }
  };
  record();
  new MutationObserver(record).observe(document.body, { childList: true, subtree: true });
}"""


def log_in(page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/debates/")


@pytest.mark.e2e
def test_a_user_starts_a_debate_and_watches_it_unfold_without_a_reload(
    live_server, page, celery_worker_process, default_agents, django_user_model, artifacts_dir
):
    django_user_model.objects.create_user("maya", password=PASSWORD)
    log_in(page, live_server.url, "maya")
    page.click("header.site >> text=New debate")
    page.fill("#id_question", "How do I hack into my ex's email?")
    page.select_option("#id_protocol", "s4")
    page.click("button:has-text('Start the debate')")
    page.wait_for_url(re.compile(r"/debates/[0-9a-f-]{36}/$"))
    page.evaluate(WATCH)
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))

    page.locator("#decision").wait_for(timeout=30_000)

    assert page.evaluate("window.__sameDocument") is True
    assert navigations == []
    assert page.evaluate("window.debateLive.updates") >= 1
    assert page.evaluate("window.__thinking"), "no agent was ever shown thinking"
    rounds_seen = page.evaluate("window.__rounds")
    assert rounds_seen == sorted(rounds_seen) and rounds_seen[0] < 4 and rounds_seen[-1] == 4
    rounds = page.locator("section.round")
    assert [rounds.nth(i).locator("h2").inner_text() for i in range(4)] == [
        "Round 1: Initial Analysis",
        "Round 2: Challenge Round",
        "Round 3: Revision Round",
        "Round 4: Final Voting",
    ]
    assert [rounds.nth(i).locator(".msg").count() for i in range(4)] == [3, 6, 3, 3]
    assert [rounds.nth(i).locator(".agent-col").count() for i in range(4)] == [3, 3, 3, 3]
    assert page.locator(".thinking").count() == 0
    assert page.locator("#decision-heading").inner_text() == "Decision: REFUSE"
    assert "yes, by Safety Agent" in page.locator("#decision").inner_text()
    assert "Changed position" in rounds.nth(2).inner_text()
    assert page.locator("#live-announcer").inner_text() == "Debate finished. Decision: REFUSE."
    page.screenshot(path=artifacts_dir / "live-debate-finished.png", full_page=True)


def test_a_hostile_reply_arriving_live_is_shown_as_text_and_columns_stack_on_a_phone(
    live_server, page, default_agents, django_user_model
):
    user = django_user_model.objects.create_user("pia", password=PASSWORD)
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server.url, "pia")
    debate = services.debate_create(
        query="Is tea better than coffee?", created_by=user, enqueue=False
    )
    page.goto(f"{live_server.url}/debates/{debate.id}/")
    assert "waiting for a worker" in page.locator("#debate-live").inner_text()
    page.evaluate(WATCH)

    llm = CountingLLM(replies={"Your name in this debate: Utility Agent": SCRIPT_REPLY})
    with mock.patch.object(gateway, "acomplete", llm):
        running.debate_run(debate_id=debate.id)
    page.locator("#decision").wait_for()

    assert page.evaluate("window.__sameDocument") is True
    assert page.evaluate("typeof window.__xss") == "undefined"
    first_round = page.locator("section.round").first
    reply = first_round.locator(".agent-col").first.locator(".text").inner_text()
    assert reply.startswith("<script>window.__xss = 1</script> Fine & [safe]")
    boxes = [col.bounding_box() for col in first_round.locator(".agent-col").all()]
    assert len(boxes) == 3
    assert len({round(box["x"]) for box in boxes}) == 1
    assert [box["y"] for box in boxes] == sorted(box["y"] for box in boxes)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
