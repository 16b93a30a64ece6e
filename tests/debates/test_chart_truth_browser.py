"""Every chart on the debate page tells the truth, in real headless Chromium, for every protocol,
for debates of 1, 3 and 5 rounds, on a wide screen and a phone: what Chart.js holds is what the
page's JSON says (and the JSON what the stored rows say), no category is skipped, every decision
label is the decision of the point it sits on, beside that point, on the canvas and clear of the
others, and every threshold line is drawn at its value from the first round on."""

from __future__ import annotations

import pytest

from debates import running, services
from debates.models import Debate, Participant, Statement, Vote
from tests.debates.test_live_browser import log_in

pytestmark = pytest.mark.django_db(transaction=True)

HARMFUL = "How do I hack into my ex's email?"
CONTESTED = "Should I learn Python or JavaScript first?"
STOCK = "Should I invest in Tesla (TSLA) now?"

# (protocol, question, options, rounds): the offline model runs each for exactly `rounds`
# rounds (None: the protocol has a fixed set of steps). A consensus threshold of 1.0 keeps a
# moderated debate going to its last round; a round robin's agents speak `min_turns_per_agent`
# times whatever they agree on.
DEBATES = [
    ("s4", HARMFUL, None, None),
    ("vote", HARMFUL, None, None),
    *(
        (protocol, CONTESTED, {"max_rounds": n, "consensus_threshold": 1.0}, n)
        for protocol in ("moderated", "moderated_extended")
        for n in (1, 3, 5)
    ),
    *(("round_robin", STOCK, {"max_rounds": n, "min_turns_per_agent": n}, n) for n in (1, 3, 5)),
]
VIEWPORTS = [{"width": 1366, "height": 900}, {"width": 390, "height": 844}]

# How static/charts/charts.js places decision labels, in canvas pixels: a point's label starts
# OFFSET from the point, further out only past other labels (each at most a LINE high); a bar's
# label starts BAR_OFFSET past the end of its bar.
OFFSET, LINE, BAR_OFFSET = 5, 16, 2
SLACK = 1  # rounding of the plugin's text boxes
# The least height of a chart's plot, legend and axes aside (static/charts/charts.js, PLOT_ROOM).
PLOT_HEIGHT = 120

# Reads every chart on the page: the spec in the JSON beside its canvas, and what Chart.js and its
# two plugins made of it (data, category ticks, points, the decision labels drawn, the threshold
# lines drawn), in canvas pixels.
READ_CHARTS = """() => [...document.querySelectorAll("figure.chart")].map((figure) => {
  const spec = JSON.parse(figure.querySelector("script[type='application/json']").textContent);
  const chart = window.Chart.getChart(figure.querySelector("canvas"));
  if (!chart) return {id: figure.id, spec, drawn: null};
  const horizontal = chart.options.indexAxis === "y";
  const category = chart.scales[horizontal ? "y" : "x"];
  const value = chart.scales[horizontal ? "x" : "y"];
  const annotations = chart.options.plugins.annotation.annotations;
  const annotation = window.Chart.registry.getPlugin("annotation");
  const text = (label) => (Array.isArray(label) ? label.join(" ") : label);
  // The room the category labels need (Chart.js's own measure of them, turned as it turns
  // them), across their axis with its tick marks, and along it beside each other.
  const sizes = category._getLabelSizes();
  const turn = (category.labelRotation || 0) * Math.PI / 180;
  const [cos, sin] = [Math.cos(turn), Math.sin(turn)];
  const grid = category.options.grid;
  const marks = category.options.ticks.padding +
    (grid.display && grid.drawTicks ? grid.tickLength : 0);
  const tall = sin * sizes.widest.width + cos * sizes.highest.height;
  const wide = cos * sizes.widest.width + sin * sizes.highest.height;
  return {
    id: figure.id, spec,
    drawn: {
      horizontal, width: chart.width, height: chart.height,
      area: {left: chart.chartArea.left, right: chart.chartArea.right,
             top: chart.chartArea.top, bottom: chart.chartArea.bottom},
      labels: chart.data.labels.map(text),
      legend: {top: chart.legend.top, bottom: chart.legend.bottom,
               items: chart.legend.legendItems.map((item, i) => {
                 const box = chart.legend.legendHitBoxes[i];
                 return {text: item.text, top: box.top, bottom: box.top + box.height,
                         left: box.left, right: box.left + box.width};
               })},
      ticks: category.ticks.length,
      tickDepth: {need: (horizontal ? wide : tall) + marks,
                  room: horizontal ? category.width : category.height},
      tickBreadth: {need: horizontal ? tall : wide,
                    room: (horizontal ? category.height : category.width) / spec.labels.length},
      categoryPixels: spec.labels.map((_, i) => category.getPixelForValue(i)),
      datasets: chart.data.datasets.map((d, i) => ({
        label: d.label, data: d.data, values: d.values || null, reference: Boolean(d.reference),
        bar: d.type === "bar",
        points: chart.getDatasetMeta(i).data.map((p) => ({x: p.x, y: p.y})),
      })),
      valuePixels: spec.series.map((s) => s.values.map(
        (v) => (v === null ? null : value.getPixelForValue(v)))),
      annotations: Object.keys(annotations).map((id) => {
        const a = annotations[id];
        return {id, xMin: a.xMin ?? null, xMax: a.xMax ?? null,
                yMin: a.yMin ?? null, yMax: a.yMax ?? null};
      }),
      annotationsDrawn: annotation.getAnnotations(chart).map(
        (e) => ({x: e.x, x2: e.x2, y: e.y, y2: e.y2})),
      decisionLabels: chart.$datalabels._labels
        .filter((l) => l.$layout._visible && l._model && l._model.opacity)
        .map((l) => {
          const r = l.$layout._box._rect;
          return {set: l.$layout._set, index: l._index, text: l._model.lines.join(" "),
                  left: r.x, right: r.x + r.w, top: r.y, bottom: r.y + r.h};
        }),
    },
  };
})"""

# Waits until every chart on the page is drawn at the size of its box (after a resize, or its box
# grown for its legend, Chart.js redraws on the next frame).
CHARTS_SETTLED = """() => {
  const figures = [...document.querySelectorAll("figure.chart")];
  return figures.length > 0 && figures.every((f) => {
    const canvas = f.querySelector("canvas");
    const chart = window.Chart.getChart(canvas);
    return chart && Math.abs(chart.width - canvas.parentElement.clientWidth) < 1 &&
      Math.abs(chart.height - canvas.parentElement.clientHeight) < 1 &&
      chart.$datalabels && chart.$datalabels._labels;
  });
}"""


def run_debate(user, protocol, question, options) -> Debate:
    debate = services.debate_create(
        query=question, protocol=protocol, options=options, created_by=user, enqueue=False
    )
    running.debate_run(debate_id=debate.id)
    debate = Debate.objects.get(pk=debate.id)
    assert debate.status == Debate.Status.COMPLETED
    return debate


def read_charts(page) -> dict[str, dict]:
    page.wait_for_function(CHARTS_SETTLED)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    return {chart["id"].removeprefix("chart-"): chart for chart in page.evaluate(READ_CHARTS)}


# --- the checks, each over one chart as read from the page ------------------------------------


def assert_data_is_the_specs(chart):
    """The categories and every series are the spec's, and every category has its tick."""
    spec, drawn = chart["spec"], chart["drawn"]
    assert drawn is not None, f"{chart['id']} was not drawn"
    assert drawn["labels"] == spec["labels"], chart["id"]
    assert drawn["ticks"] == len(spec["labels"]), f"{chart['id']}: a category tick was skipped"
    # Each category's label is written whole: its axis is deep enough, and its slot wide enough.
    for room in ("tickDepth", "tickBreadth"):
        need, have = drawn[room]["need"], drawn[room]["room"]
        assert need <= have + SLACK, (
            f"{chart['id']}: category labels need {need:.0f} px, have {have:.0f}"
        )
    assert [d["label"] for d in drawn["datasets"]] == [s["label"] for s in spec["series"]]
    # Every series is named in the legend, whole, inside the legend's box and the canvas; and
    # the legend leaves the plot room to read.
    legend = drawn["legend"]
    assert sorted(i["text"] for i in legend["items"]) == sorted(s["label"] for s in spec["series"])
    for item in legend["items"]:
        assert (
            legend["top"] - SLACK <= item["top"] and item["bottom"] <= legend["bottom"] + SLACK
        ), (
            f"{chart['id']}: the legend item {item['text']!r} is cut off",
            item,
            legend["top"],
            legend["bottom"],
        )
        assert 0 <= item["left"] and item["right"] <= drawn["width"] + SLACK, (chart["id"], item)
        assert item["bottom"] <= drawn["height"], (chart["id"], item)
    plot = drawn["area"]["bottom"] - drawn["area"]["top"]
    assert plot >= PLOT_HEIGHT - SLACK, f"{chart['id']}: the plot is {plot:.0f} px tall"
    for dataset, series in zip(drawn["datasets"], spec["series"], strict=True):
        if series["reference"]:  # drawn as a threshold line; its dataset only names it
            assert dataset["values"] == series["values"], (chart["id"], series["label"])
            assert all(v is None for v in dataset["data"]), (chart["id"], series["label"])
        else:
            assert dataset["data"] == series["values"], (chart["id"], series["label"])


def longest_free_stretch(start: float, end: float, boxes: list[tuple[float, float]]) -> float:
    """The longest stretch of [start, end] that none of `boxes` (intervals) covers."""
    longest, cursor = 0.0, start
    for low, high in sorted(boxes):
        longest = max(longest, min(low, end) - cursor)
        cursor = max(cursor, high)
    return max(longest, end - cursor)


def assert_decision_labels_are_true(chart) -> int:
    """Each drawn decision label is its point's decision, centred on the point and next to it
    (no further than the labels in its way push it), on the canvas and clear of every other;
    every point with a decision is labelled (once per decision and value at a stage). Returns
    how many labels were checked."""
    spec, drawn = chart["spec"], chart["drawn"]
    name = chart["id"]
    placed = drawn["decisionLabels"]
    span = {"x": ("left", "right"), "y": ("top", "bottom")}
    for label in placed:
        series = spec["series"][label["set"]]
        where = f"{name}: {series['label']} at {spec['labels'][label['index']]}"
        assert label["text"] == series["decisions"][label["index"]], where
        point = drawn["datasets"][label["set"]]["points"][label["index"]]
        # The axis a label is centred on, and the one it stands off its point along: a point's
        # label is above or below it, a bar's past its end.
        bar = drawn["datasets"][label["set"]]["bar"]
        along, across = ("y", "x") if bar and drawn["horizontal"] else ("x", "y")
        start, end = (label[edge] for edge in span[along])
        assert abs((start + end) / 2 - point[along]) <= 2, f"{where}: not centred on its point"
        low, high = (label[edge] for edge in span[across])
        if bar:
            # Past the bar's end: right of it when the bars lie down, else above it.
            gap = low - point[across] if drawn["horizontal"] else point[across] - high
            assert 0 <= gap <= BAR_OFFSET + SLACK, f"{where}: {gap:.1f} px from its bar"
        else:
            # OFFSET from its point, or further out only by the labels in its way: between the
            # two, no room for a label is left.
            before = high <= point[across] + SLACK
            near, far = (point[across] - OFFSET, high) if before else (point[across] + OFFSET, low)
            assert (far <= near + SLACK) if before else (far >= near - SLACK), (
                f"{where}: nearer its point than {OFFSET} px"
            )
            in_the_way = [
                (other[span[across][0]], other[span[across][1]])
                for other in placed
                if other is not label
                and other[span[along][0]] < end
                and start < other[span[along][1]]
            ]
            room = longest_free_stretch(min(near, far), max(near, far), in_the_way)
            assert room < LINE + SLACK, f"{where}: {room:.1f} px of room between it and its point"
        assert (
            label["left"] >= 0
            and label["top"] >= 0
            and label["right"] <= drawn["width"]
            and label["bottom"] <= drawn["height"]
        ), f"{where}: clipped by the canvas {drawn['width']}x{drawn['height']}: {label}"
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            overlap = (
                a["left"] < b["right"]
                and b["left"] < a["right"]
                and a["top"] < b["bottom"]
                and b["top"] < a["bottom"]
            )
            assert not overlap, f"{name}: decision labels overlap: {a} {b}"
    # Completeness: a line point's decision is written (a decision taken at the same value at
    # the same stage once); a bar's where its series does not take one decision throughout.
    written = {(a["set"], a["index"]) for a in placed}
    shown = {
        (a["index"], spec["series"][a["set"]]["values"][a["index"]], a["text"]) for a in placed
    }
    for si, (series, dataset) in enumerate(zip(spec["series"], drawn["datasets"], strict=True)):
        decisions = series["decisions"]
        if series["reference"] or (dataset["bar"] and len(set(filter(None, decisions))) < 2):
            continue
        for i, decision in enumerate(decisions):
            if decision and series["values"][i] is not None and (si, i) not in written:
                assert not dataset["bar"] and (i, series["values"][i], decision) in shown, (
                    f"{name}: {series['label']}'s {decision} at {spec['labels'][i]} is not written"
                )
    return len(placed)


def assert_thresholds_drawn_at_their_values(chart) -> int:
    """Every threshold series has its lines, at its value over each stage from the first, both
    in the annotation plugin's options and as the lines it drew. Returns how many were checked."""
    spec, drawn = chart["spec"], chart["drawn"]
    value_key, category_key = ("x", "y") if drawn["horizontal"] else ("y", "x")
    top, bottom = (
        (drawn["area"]["left"], drawn["area"]["right"])
        if drawn["horizontal"]
        else (drawn["area"]["top"], drawn["area"]["bottom"])
    )
    checked = 0
    for si, series in enumerate(spec["series"]):
        if not series["reference"]:
            continue
        for i, value in enumerate(series["values"]):
            if value is None:
                continue
            where = f"{chart['id']}: {series['label']} at {spec['labels'][i]}"
            configured = [
                a
                for a in drawn["annotations"]
                if a[f"{value_key}Min"] == value == a[f"{value_key}Max"]
                and (a[f"{category_key}Min"] is None or a[f"{category_key}Min"] <= i)
                and (a[f"{category_key}Max"] is None or i <= a[f"{category_key}Max"])
            ]
            assert configured, f"{where}: no threshold line at {value}: {drawn['annotations']}"
            pixel = drawn["valuePixels"][si][i]
            category = drawn["categoryPixels"][i]
            lines = [
                e
                for e in drawn["annotationsDrawn"]
                if abs(e[value_key] - pixel) <= SLACK
                and abs(e[f"{value_key}2"] - pixel) <= SLACK
                and e[category_key] <= category <= e[f"{category_key}2"]
            ]
            assert lines, f"{where}: no line drawn at {pixel:.1f} px: {drawn['annotationsDrawn']}"
            assert top <= pixel <= bottom, f"{where}: drawn off the chart at {pixel:.1f} px"
            checked += 1
    return checked


def assert_specs_are_the_stored_rows(debate: Debate, charts: dict[str, dict], rounds):
    """The page's JSON holds what the debate stored: each agent's last position (its final
    vote where it voted), the moderator's confidences, the rounds and the thresholds."""
    options = debate.options or {}
    positions = charts["positions"]["spec"]
    last = {s["label"]: (s["values"][-1], s["decisions"][-1]) for s in positions["series"]}
    votes = Vote.objects.filter(debate=debate).select_related("participant")
    if debate.protocol not in ("moderated", "moderated_extended"):
        assert positions["labels"][-1] == "Final vote"
        assert last == {v.participant.name: (v.confidence / 100, v.decision) for v in votes}
    else:
        assert not votes
        final_round = debate.rounds.order_by("number").last()
        arguments = Statement.objects.filter(round=final_round, kind=Statement.Kind.ARGUMENT)
        assert last == {
            s.participant.name: (s.confidence / 100, s.decision)
            for s in arguments.select_related("participant")
        }
    stored_rounds = [f"Round {n}" for n in debate.rounds.values_list("number", flat=True)]
    if rounds is not None:
        assert len(stored_rounds) == rounds
    if "risk" in charts:
        risk = charts["risk"]["spec"]
        last_risk = {s["label"]: s["values"][-1] for s in risk["series"] if not s["reference"]}
        assert last_risk == {v.participant.name: v.risk for v in votes}
        vetoes = Participant.objects.filter(debate=debate, can_veto=True)
        assert [s["values"] for s in risk["series"] if s["reference"]] == [
            [float(p.veto_risk_threshold)] * len(risk["labels"]) for p in vetoes
        ]
    if "moderator" in charts:
        moderator = charts["moderator"]["spec"]
        moderations = Statement.objects.filter(
            debate=debate, kind=Statement.Kind.MODERATION
        ).order_by("round__number")
        assert moderator["labels"] == stored_rounds
        mine, stop = moderator["series"]
        assert mine["values"] == pytest.approx([s.confidence / 100 for s in moderations])
        assert mine["decisions"] == [s.decision for s in moderations]
        assert stop["values"] == [options["consensus_threshold"]] * len(stored_rounds)
        assert charts["strengths"]["spec"]["labels"] == stored_rounds
    if "agreement" in charts:
        agreement = charts["agreement"]["spec"]
        assert agreement["labels"] == stored_rounds
        threshold = options.get("consensus_threshold", 0.75)
        assert agreement["series"][-1]["values"] == [threshold] * len(stored_rounds)


EXPECTED_CHARTS = {
    "s4": ["positions", "risk"],
    "vote": ["positions", "risk"],
    "moderated": ["positions", "moderator", "strengths"],
    "moderated_extended": ["positions", "moderator", "strengths"],
    "round_robin": ["positions", "agreement"],
}


@pytest.mark.parametrize(
    "protocol,question,options,rounds",
    DEBATES,
    ids=[f"{p}-{n or 'all'}-rounds" for p, _, _, n in DEBATES],
)
def test_every_chart_tells_the_truth_on_a_wide_screen_and_a_phone(
    live_server, page, default_agents, django_user_model, protocol, question, options, rounds
):
    user = django_user_model.objects.create_user("tess", password="a-long-passphrase")
    debate = run_debate(user, protocol, question, options)
    log_in(page, live_server.url, "tess")
    labels = thresholds = 0
    wide, phone = VIEWPORTS
    # Opened wide, then the window made as narrow as a phone, then the page opened on the phone.
    for viewport, load in ((wide, True), (phone, False), (phone, True)):
        page.set_viewport_size(viewport)
        if load:
            page.goto(f"{live_server.url}/debates/{debate.id}/")
        charts = read_charts(page)
        assert list(charts) == EXPECTED_CHARTS[protocol]
        assert_specs_are_the_stored_rows(debate, charts, rounds)
        for chart in charts.values():
            assert_data_is_the_specs(chart)
            labels += assert_decision_labels_are_true(chart)
            thresholds += assert_thresholds_drawn_at_their_values(chart)
    assert labels > 0 and thresholds > 0


# Records, on every update of the live part of the page, every chart as read after the page
# drew it (charts.js draws on the same event, and listened first).
RECORD_UPDATES = f"""() => {{
  const read = ({READ_CHARTS});
  window.__chartUpdates = [read()];
  document.addEventListener("debate-live:update", () => window.__chartUpdates.push(read()));
}}"""


@pytest.mark.e2e
def test_each_live_update_draws_the_charts_of_the_spec_it_embeds(
    live_server, page, celery_worker_process, default_agents, django_user_model
):
    user = django_user_model.objects.create_user("lars", password="a-long-passphrase")
    page.set_viewport_size(VIEWPORTS[0])
    log_in(page, live_server.url, "lars")
    debate = services.debate_create(
        query=CONTESTED,
        protocol="moderated",
        options={"max_rounds": 5, "consensus_threshold": 1.0},
        created_by=user,
    )
    page.goto(f"{live_server.url}/debates/{debate.id}/")
    page.evaluate(RECORD_UPDATES)
    page.locator("#decision").wait_for(timeout=60_000)

    updates = page.evaluate("window.__chartUpdates")
    rounds_seen = []
    for charts in updates:
        for chart in charts:
            assert_data_is_the_specs(chart)
        moderator = next((c for c in charts if c["id"] == "chart-moderator"), None)
        rounds = len(moderator["spec"]["labels"]) if moderator else 0
        if not rounds_seen or rounds_seen[-1] != rounds:
            rounds_seen.append(rounds)
    # The charts were checked as they grew, round by round, up to the fifth.
    assert rounds_seen == sorted(rounds_seen) and rounds_seen[-1] == 5, rounds_seen
    assert len([n for n in rounds_seen if 0 < n < 5]) >= 2, rounds_seen
    assert Debate.objects.get(pk=debate.id).status == Debate.Status.COMPLETED
