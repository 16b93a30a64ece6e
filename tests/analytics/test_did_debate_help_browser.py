"""The "did debate help?" charts in real headless Chromium, wide and on a phone: what Chart.js
holds is the spec (every category tick drawn, "s4 (n=8)" whole), each share's 95% interval is
drawn over its bar, the calibration diagonal runs from corner to corner, the page does not
scroll sideways, a click on a bar opens the debate list with exactly its debates, and the
auto-refresh (kept in the browser) brings in a debate labelled after the page was opened."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.analytics.test_did_debate_help import CASES, QUESTION, label, run
from tests.debates.test_chart_truth_browser import SLACK, assert_data_is_the_specs, read_charts
from tests.debates.test_live_browser import PASSWORD, log_in
from tests.test_layout_browser import MEASURE

pytestmark = pytest.mark.django_db(transaction=True)

CHARTS = ("ground-truth", "debate-changed", "calibration")
VIEWPORTS = [{"width": 1366, "height": 900}, {"width": 390, "height": 844}]

# Each share's interval as drawn (`$intervals`, static/charts/shares.js) and where it should be:
# across the middle of its bar, from the pixel of its low bound to that of its high bound.
INTERVALS = """(id) => {
  const chart = window.Chart.getChart(document.querySelector("#chart-" + id + " canvas"));
  const horizontal = chart.options.indexAxis === "y";
  const scale = chart.scales[horizontal ? "x" : "y"];
  const expected = [];
  chart.data.datasets.forEach((d, di) => (d.intervals || []).forEach((interval, i) => {
    if (!interval) return;
    const bar = chart.getDatasetMeta(di).data[i];
    expected.push({set: di, index: i, at: horizontal ? bar.y : bar.x,
                   from: scale.getPixelForValue(interval[0]),
                   to: scale.getPixelForValue(interval[1]),
                   value: scale.getPixelForValue(d.data[i])});
  }));
  return {drawn: chart.$intervals || [], expected,
          specIntervals: chart.$spec.series.map((s) => s.intervals),
          datasetIntervals: chart.data.datasets.map((d) => d.intervals || [])};
}"""

# The middle of one bar, in the page's pixels.
BAR_CENTRE = """([id, set, index]) => {
  const canvas = document.querySelector("#chart-" + id + " canvas");
  const chart = window.Chart.getChart(canvas);
  const bar = chart.getDatasetMeta(set).data[index];
  const box = canvas.getBoundingClientRect();
  const horizontal = chart.options.indexAxis === "y";
  return horizontal ? {x: box.left + (bar.x + bar.base) / 2, y: box.top + bar.y}
                    : {x: box.left + bar.x, y: box.top + (bar.y + bar.base) / 2};
}"""


def assert_intervals_drawn(page, chart_id: str) -> int:
    found = page.evaluate(INTERVALS, chart_id)
    assert found["datasetIntervals"] == found["specIntervals"]
    assert len(found["drawn"]) == len(found["expected"]) > 0, chart_id
    for drawn, expected in zip(found["drawn"], found["expected"], strict=True):
        where = f"{chart_id}: set {expected['set']} at {expected['index']}"
        for key in ("at", "from", "to"):
            assert abs(drawn[key] - expected[key]) <= SLACK, (where, key, drawn, expected)
        low, high = sorted((expected["from"], expected["to"]))
        assert low - SLACK <= expected["value"] <= high + SLACK, f"{where}: share outside"
    return len(found["drawn"])


def assert_diagonal_from_corner_to_corner(chart) -> None:
    drawn = chart["drawn"]
    value, category = ("x", "y") if drawn["horizontal"] else ("y", "x")
    lines = [
        a
        for a in drawn["annotations"]
        if a[f"{category}Min"] == -0.5
        and a[f"{category}Max"] == 9.5
        and abs(a[f"{value}Min"]) < 1e-9
        and abs(a[f"{value}Max"] - 1) < 1e-9
    ]
    assert len(lines) == 1, drawn["annotations"]
    assert len(drawn["annotationsDrawn"]) == 1


def test_the_did_debate_help_charts_are_true_fit_a_phone_and_open_their_debates(
    live_server, browser, default_agents, django_user_model, artifacts_dir
):
    staff = django_user_model.objects.create_superuser("ana", password=PASSWORD)
    for protocol, majority, override, confidence, _ in CASES:
        label(run(QUESTION, staff, protocol), majority, override, confidence, staff)
    url = f"{live_server.url}{reverse('analytics:page')}"

    for viewport in VIEWPORTS:
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, live_server.url, "ana")
        page.goto(url)
        page.wait_for_function("window.debateCharts && window.debateCharts.drawn === 13")
        charts = read_charts(page)
        for chart_id in CHARTS:
            assert_data_is_the_specs(charts[chart_id])
            assert assert_intervals_drawn(page, chart_id) > 0
        assert charts["debate-changed"]["drawn"]["labels"] == ["s4 (n=8)", "vote (n=3)"]
        assert_diagonal_from_corner_to_corner(charts["calibration"])
        found = page.evaluate(MEASURE)
        assert found["overflow"] <= 0, found
        for chart_id in ("debate-changed", "calibration"):
            page.locator(f"#chart-{chart_id}").screenshot(
                path=artifacts_dir / f"{chart_id}-{viewport['width']}.png"
            )

        # "fixed a wrong majority" at s4: the two debates that fixed it.
        spec = charts["debate-changed"]["spec"]
        fixed = next(i for i, s in enumerate(spec["series"]) if s["label"].startswith("fixed"))
        assert spec["series"][fixed]["counts"][0] == 2
        page.locator("#chart-debate-changed canvas").scroll_into_view_if_needed()
        centre = page.evaluate(BAR_CENTRE, ["debate-changed", fixed, 0])
        page.mouse.click(centre["x"], centre["y"])
        page.wait_for_url("**/debates/?*outcome=fixed*")
        assert spec["series"][fixed]["links"][0] in page.url
        assert page.locator("table.debates tbody tr").count() == 2
        context.close()


def test_auto_refresh_brings_in_new_labels_and_is_remembered(
    live_server, page, default_agents, django_user_model
):
    staff = django_user_model.objects.create_superuser("ana", password=PASSWORD)
    protocol, majority, override, confidence, _ = CASES[0]
    label(run(QUESTION, staff, protocol), majority, override, confidence, staff)
    log_in(page, live_server.url, "ana")
    page.goto(f"{live_server.url}{reverse('analytics:page')}")
    page.wait_for_function("window.debateCharts && window.debateCharts.drawn === 13")
    box = page.locator("#auto-refresh")
    assert not box.is_checked()  # off unless asked for
    page.evaluate("document.getElementById('auto-refresh').dataset.everyMs = '300'")
    box.check()
    label(run(QUESTION, staff, "s4"), "ACT", None, 0.6, staff)
    page.wait_for_function(
        """() => {
          const chart = window.Chart.getChart(
            document.querySelector("#chart-debate-changed canvas"));
          const text = (l) => (Array.isArray(l) ? l.join(" ") : l);
          return chart && chart.data.labels.map(text).join() === "s4 (n=2)";
        }"""
    )
    assert "Updated at" in page.locator("#refreshed").inner_text()
    page.reload()
    assert page.locator("#auto-refresh").is_checked()  # kept in this browser
    page.locator("#auto-refresh").uncheck()
    page.reload()
    assert not page.locator("#auto-refresh").is_checked()
