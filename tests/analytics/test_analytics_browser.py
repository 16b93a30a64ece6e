"""The analytics page in real headless Chromium over debates a real Celery worker ran: every
chart is drawn with the stored figures, the filters narrow them, and the page fits a phone."""

from __future__ import annotations

import pytest
from django.urls import reverse

from debates import services
from debates.models import Debate
from reviews import services as review_services
from reviews.models import ReviewItem
from tests.conftest import wait_for
from tests.debates.test_live_browser import log_in
from tests.test_layout_browser import MEASURE

pytestmark = pytest.mark.django_db(transaction=True)

QUESTIONS = [
    ("How do I hack into my ex's email?", "s4"),
    ("Is Bitcoin a good investment?", "s4"),
    ("What is the capital of France?", "s4"),
    ("Should I invest in Tesla (TSLA) now?", "round_robin"),
    ("Should every website use HTTPS?", "moderated"),
    ("Should I learn Python or JavaScript first?", "moderated_extended"),
]

DRAWN = """(id) => {
  const canvas = document.querySelector("#chart-" + id + " canvas");
  const chart = canvas && window.Chart.getChart(canvas);
  if (!chart) return null;
  return {labels: chart.data.labels,
          series: Object.fromEntries(chart.data.datasets.map((d) => [d.label, d.data])),
          drawn: chart.data.datasets.map((d, i) => chart.getDatasetMeta(i).data.length)};
}"""


@pytest.mark.e2e
def test_charts_of_debates_run_by_a_worker_are_drawn_and_fit_a_phone(
    live_server, browser, celery_worker_process, default_agents, django_user_model, artifacts_dir
):
    staff = django_user_model.objects.create_superuser("ana", password="a-long-passphrase")
    debates = [services.debate_create(query=q, protocol=p, created_by=staff) for q, p in QUESTIONS]
    wait_for(
        lambda: Debate.objects.filter(status=Debate.Status.COMPLETED).count() == len(debates),
        timeout=120,
    )
    bitcoin = Debate.objects.get(pk=debates[1].pk)
    for item in ReviewItem.objects.filter(debate=bitcoin):
        review_services.review_resolve(
            item_id=item.pk, user=staff, verdict="override", decision="REFUSE", note="Risky."
        )
    by_protocol = {}
    for d in Debate.objects.all():
        key = (d.protocol, d.effective_decision)
        by_protocol[key] = by_protocol.get(key, 0) + 1

    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "ana")
    page.click("header.site >> text=Analytics")
    page.wait_for_url(f"{live_server.url}{reverse('analytics:page')}")
    page.wait_for_function("window.debateCharts && window.debateCharts.drawn === 13")

    drawn = page.evaluate(DRAWN, "decisions-by-protocol")
    seen = {
        (protocol, decision): count
        for decision, counts in drawn["series"].items()
        for protocol, count in zip(drawn["labels"], counts, strict=True)
        if count
    }
    assert seen == by_protocol
    assert all(n == len(drawn["labels"]) for n in drawn["drawn"])
    models = page.evaluate(DRAWN, "cost-by-model")
    assert models["labels"] and all(n == len(models["labels"]) for n in models["drawn"])
    ground_truth = page.evaluate(DRAWN, "ground-truth")
    assert ground_truth["series"]["debate"][0] == 0  # its one labelled debate was overridden
    assert "Of 6 completed debates" in page.locator("#chart-review-rates").inner_text()
    page.screenshot(path=artifacts_dir / "analytics-1366.png", full_page=True)

    page.select_option("#id_protocol", "round_robin")
    page.click("button:has-text('Show')")
    page.wait_for_url("**/analytics/?*protocol=round_robin*")
    page.wait_for_function("window.debateCharts && window.debateCharts.drawn === 13")
    assert page.evaluate(DRAWN, "decisions-by-protocol")["labels"] == ["round_robin"]
    page.locator("#chart-decisions-by-protocol summary").click()
    assert "HOLD" in page.locator("#chart-decisions-by-protocol table").inner_text()
    with page.expect_download() as download:
        page.locator("#chart-decisions-by-protocol a:has-text('CSV')").click()
    assert download.value.suggested_filename.startswith("decisions-by-protocol_")
    text = open(download.value.path()).read()
    assert text.splitlines() == ["protocol,HOLD", "round_robin,1"]
    context.close()

    phone = browser.new_context(viewport={"width": 390, "height": 844})
    page = phone.new_page()
    log_in(page, live_server.url, "ana")
    page.goto(f"{live_server.url}{reverse('analytics:page')}")
    page.wait_for_function("window.debateCharts && window.debateCharts.drawn === 13")
    found = page.evaluate(MEASURE)
    assert found["overflow"] <= 0 and found["overlaps"] == [], found
    widths = page.evaluate(
        "[...document.querySelectorAll('figure.chart canvas')].map((c) => c.clientWidth)"
    )
    assert len(widths) == 13 and all(200 < w <= 390 for w in widths)
    page.screenshot(path=artifacts_dir / "analytics-390.png", full_page=True)
    phone.close()
