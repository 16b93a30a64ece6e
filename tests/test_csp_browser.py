"""The Content-Security-Policy holds on every main page in real Chromium: no violation."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from contradictions import running as contradiction_running
from contradictions import services as contradiction_services
from contradictions.inputs import parse_payload
from debates import running, services
from debates.models import Debate
from reviews.models import ReviewItem
from tests.contradictions.conftest import SCENARIOS

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-passphrase"

# Installed before any page script runs: every violation the browser reports is kept.
RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ` +
                    `${e.sourceFile}:${e.lineNumber}`);
});
"""


def test_the_main_pages_raise_no_csp_violation_in_chromium(
    live_server, page, default_agents, django_user_model
):
    admin = django_user_model.objects.create_superuser("root", password=PASSWORD)
    finished = services.debate_create(
        query="Is Bitcoin a good investment?", created_by=admin, enqueue=False
    )
    running.debate_run(debate_id=finished.id)
    waiting = services.debate_create(query="Is it raining?", created_by=admin, enqueue=False)
    item = ReviewItem.objects.filter(debate=finished).first()
    assert item is not None  # a split vote goes to review
    run = contradiction_services.contradiction_run_create(
        reports=parse_payload(SCENARIOS["simple"])["reports"], created_by=admin, enqueue=False
    )
    contradiction_running.contradiction_run_execute(run_id=run.id)
    safety = default_agents[-1]

    console_errors: list[str] = []
    page.on("console", lambda msg: msg.type == "error" and console_errors.append(msg.text))
    page.add_init_script(RECORD_VIOLATIONS)

    base = live_server.url
    page.goto(f"{base}{reverse('login')}")
    header = page.request.get(f"{base}{reverse('login')}").headers["content-security-policy"]
    assert "script-src 'self' 'nonce-" in header and "frame-ancestors 'none'" in header
    page.fill("#id_username", "root")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/debates/")

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
        reverse("admin:index"),
        reverse("admin:agents_agent_add"),
        reverse("admin:agents_agent_change", args=[safety.pk]),
        reverse("admin:debates_debate_change", args=[finished.id]),
        reverse("admin:audit_auditentry_changelist"),
        "/api/v1/debates/",
        "/api/docs/",
    ]
    seen = {}
    for url in urls:
        page.goto(f"{base}{url}")
        page.wait_for_load_state("networkidle")
        seen[url] = page.evaluate("window.__csp")

    # The scripts that must run did run: the protocol options follow the select, the API docs
    # render, the agent's slug is filled from its name, the debate page's Print button works.
    page.goto(f"{base}{reverse('debates:start')}")
    page.select_option("#id_protocol", "round_robin")
    assert page.locator("fieldset.protocol-options[data-protocol=s4]").is_hidden()
    page.goto(f"{base}/api/docs/")
    page.wait_for_selector(".swagger-ui .info .title")
    page.goto(f"{base}{reverse('admin:agents_agent_add')}")
    page.locator("#id_name").press_sequentially("Devil Advocate")
    assert page.input_value("#id_slug") == "devil-advocate"
    page.goto(f"{base}{reverse('debates:detail', args=[finished.id])}")
    page.evaluate("window.print = () => { window.__printed = true; }")
    page.click("button[data-print]")
    assert page.evaluate("window.__printed") is True
    assert Debate.objects.get(pk=waiting.id).status == Debate.Status.QUEUED
    # The charts are drawn (Chart.js and the page's chart script run under the policy).
    page.goto(f"{base}{reverse('debates:detail', args=[finished.id])}")
    page.wait_for_function("window.debateCharts && window.debateCharts.drawn >= 2")
    page.goto(f"{base}{reverse('analytics:page')}")
    page.wait_for_function("window.debateCharts && window.debateCharts.drawn >= 11")
    seen["charts drawn"] = page.evaluate("window.__csp")

    violations = {url: found for url, found in seen.items() if found}
    assert violations == {}, json.dumps(violations, indent=1)
    csp_console = [text for text in console_errors if "Content Security Policy" in text]
    assert csp_console == []
