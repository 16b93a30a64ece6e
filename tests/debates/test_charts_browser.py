"""The debate page's charts in real headless Chromium, while a real worker runs the debate: they
are drawn from the start and follow the page's polling, round by round, without a reload."""

from __future__ import annotations

import pytest

from debates import running, services
from debates.models import Debate
from tests.debates.test_live_browser import WATCH, log_in

pytestmark = pytest.mark.django_db(transaction=True)

# Samples, every 50 ms, how many rounds each chart shows and the moderator's line as drawn.
WATCH_CHARTS = """() => {
  window.__chartRounds = [];
  window.__moderatorSeen = [];
  const sample = () => {
    const canvas = document.querySelector("#chart-moderator canvas");
    const chart = canvas && window.Chart.getChart(canvas);
    const rounds = chart ? chart.data.labels.length : 0;
    const last = window.__chartRounds[window.__chartRounds.length - 1];
    if (last !== rounds) {
      window.__chartRounds.push(rounds);
      if (chart) window.__moderatorSeen.push(chart.data.datasets[0].data.slice());
    }
  };
  sample();
  window.__sampler = setInterval(sample, 50);
}"""

DRAWN = """(selector) => {
  const canvas = document.querySelector(selector + " canvas");
  const chart = canvas && window.Chart.getChart(canvas);
  if (!chart) return null;
  return {
    labels: chart.data.labels,
    datasets: chart.data.datasets.map((d) => ({label: d.label, data: d.data,
                                                points: chart.getDatasetMeta(
                                                  chart.data.datasets.indexOf(d)).data.length})),
    width: canvas.width, height: canvas.height,
  };
}"""


@pytest.mark.e2e
def test_the_moderators_chart_grows_round_by_round_while_the_worker_runs_the_debate(
    live_server, page, celery_worker_process, default_agents, django_user_model, artifacts_dir
):
    user = django_user_model.objects.create_user("mona", password="a-long-passphrase")
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server.url, "mona")
    debate = services.debate_create(
        query="Should I learn Python or JavaScript first?",
        protocol="moderated_extended",
        created_by=user,
    )
    page.goto(f"{live_server.url}/debates/{debate.id}/")
    page.evaluate(WATCH)
    page.evaluate(WATCH_CHARTS)

    page.locator("#decision").wait_for(timeout=60_000)
    page.wait_for_function("window.__chartRounds[window.__chartRounds.length - 1] === 3")

    assert Debate.objects.get(pk=debate.id).status == Debate.Status.COMPLETED
    assert page.evaluate("window.__sameDocument") is True
    # The chart was on screen with fewer rounds first, then grew to all three, in order.
    seen = page.evaluate("window.__chartRounds")
    assert seen == sorted(seen) and seen[-1] == 3 and len([n for n in seen if 0 < n < 3]) >= 1
    assert page.evaluate("window.__moderatorSeen")[-1] == [0.58, 0.73, 0.88]
    moderator = page.evaluate(DRAWN, "#chart-moderator")
    assert moderator["labels"] == ["Round 1", "Round 2", "Round 3"]
    assert [d["points"] for d in moderator["datasets"]] == [3, 3]
    assert moderator["width"] > 200 and moderator["height"] > 100
    strengths = page.evaluate(DRAWN, "#chart-strengths")
    assert [d["label"] for d in strengths["datasets"]][:2] == ["Pro (SUPPORT)", "Con (OPPOSE)"]
    positions = page.evaluate(DRAWN, "#chart-positions")
    assert len(positions["datasets"]) == 4  # the four debaters; the moderator is charted apart
    # The text alternative is on the page too.
    page.locator("#chart-moderator summary").click()
    table = page.locator("#chart-moderator table").inner_text()
    assert "Moderator's confidence" in table and "SUPPORT 58%" in table.replace("\t", " ")
    page.locator("#chart-moderator summary").click()
    page.locator("[data-testid=debate-charts]").scroll_into_view_if_needed()
    page.screenshot(path=artifacts_dir / "debate-charts-moderated.png", full_page=True)


@pytest.mark.e2e
def test_an_s4_debate_run_by_the_worker_is_charted_with_decisions_as_shapes_and_words(
    live_server, page, celery_worker_process, default_agents, django_user_model, artifacts_dir
):
    user = django_user_model.objects.create_user("sami", password="a-long-passphrase")
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server.url, "sami")
    debate = services.debate_create(query="How do I hack into my ex's email?", created_by=user)
    page.goto(f"{live_server.url}/debates/{debate.id}/")
    page.locator("#decision").wait_for(timeout=60_000)
    page.wait_for_function("window.debateCharts && window.debateCharts.drawn >= 2")

    positions = page.evaluate(DRAWN, "#chart-positions")
    assert positions["labels"] == ["Independent answer", "Revision", "Final vote"]
    assert [d["label"] for d in positions["datasets"]] == [
        "Utility Agent",
        "Accuracy Agent",
        "Safety Agent",
    ]
    risk = page.evaluate(DRAWN, "#chart-risk")
    assert risk["datasets"][-1]["label"] == "Safety Agent vetoes at 50"
    key = page.locator("#chart-positions .chart-key").inner_text()
    assert "● ACT" in key and "◆ REFUSE" in key
    page.screenshot(path=artifacts_dir / "debate-charts-s4.png")


# Adds a chart whose agents coincide at every stage to the page, draws it as the page draws
# its own, and returns where its decision labels went.
DRAW_COINCIDING = """(spec) => {
  const figure = document.createElement("figure");
  figure.className = "chart";
  figure.style.height = "260px";
  figure.innerHTML = '<div style="position: relative; height: 240px"><canvas></canvas></div>';
  const data = document.createElement("script");
  data.type = "application/json";
  data.textContent = JSON.stringify(spec);
  figure.appendChild(data);
  document.querySelector("main, body").appendChild(figure);
  document.dispatchEvent(new Event("debate-live:update"));
  const chart = window.Chart.getChart(figure.querySelector("canvas"));
  chart.draw();
  // What chartjs-plugin-datalabels drew: each shown label's text and box on the canvas.
  return chart.$datalabels._labels
    .filter((l) => l.$layout._visible && l._model && l._model.opacity)
    .map((l) => {
      const r = l.$layout._box._rect;
      const point = chart.getDatasetMeta(l.$layout._set).data[l._index];
      return {text: l._model.lines.join(" "), x: point.x, left: r.x, right: r.x + r.w,
              top: r.y, bottom: r.y + r.h};
    });
}"""


@pytest.mark.e2e
@pytest.mark.parametrize("width,height", [(1366, 900), (390, 844)])
def test_decision_labels_of_coinciding_points_never_cover_each_other(
    live_server, page, default_agents, django_user_model, width, height
):
    """Three agents at the same value at every stage: labels that would cover each other are
    moved apart, and the same decision at the same place is written once."""
    from debates.charts import ChartSpec, Series

    user = django_user_model.objects.create_user("ines", password="a-long-passphrase")
    debate = services.debate_create(
        query="Is tea better than coffee?", created_by=user, enqueue=False
    )
    running.debate_run(debate_id=debate.id)
    page.set_viewport_size({"width": width, "height": height})
    log_in(page, live_server.url, "ines")
    page.goto(f"{live_server.url}/debates/{debate.id}/")
    page.wait_for_function("window.debateCharts && window.debateCharts.drawn >= 1")
    spec = ChartSpec(
        id="coinciding",
        title="Coinciding",
        labels=["Independent answer", "Revision", "Final vote"],
        series=[
            Series("Utility Agent", [70, 70, 70], ["ACT", "ACT", "ACT"]),
            Series("Accuracy Agent", [70, 70, 70], ["ACT", "WARN", "REFUSE"]),
            Series("Safety Agent", [70, 70, 70], ["WARN", "ACT", "REFUSE"]),
            Series("Risk Agent", [70, 70, 70], ["REFUSE", "WARN", "REFUSE"]),
        ],
        y_max=100,
    ).as_json()
    placed = page.evaluate(DRAW_COINCIDING, spec)

    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            covers = (
                a["left"] < b["right"]
                and b["left"] < a["right"]
                and a["top"] < b["bottom"]
                and b["top"] < a["bottom"]
            )
            assert not covers, (a, b)
    by_stage: dict[float, list[str]] = {}
    for b in placed:
        by_stage.setdefault(round(b["x"]), []).append(b["text"])
    stages = [sorted(texts) for _, texts in sorted(by_stage.items())]
    # The same decision at the same value is written once, whichever agents took it.
    assert stages == [["ACT", "REFUSE", "WARN"], ["ACT", "WARN"], ["ACT", "REFUSE"]]
