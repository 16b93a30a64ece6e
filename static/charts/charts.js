// Draws every <figure class="chart"> on the page with Chart.js (vendored: static/vendor/chartjs).
// Each figure holds its data as JSON (Django's json_script) and, in the page itself, the same
// numbers as a table: the chart is a picture of the table, never the only copy.
//
// Decisions keep the page's colours (ACT / SUPPORT / BUY green, WARN / HOLD / UNCERTAIN amber,
// REFUSE / OPPOSE / SELL red) and never rely on colour alone: each has its own point shape
// (circle, triangle, diamond) or bar pattern (solid, stripes, cross-hatch) and a text label.
// A bar that is a share (k of n) carries its 95% interval, drawn as an error bar, and may carry
// a link to the debates it counts: a click on the bar opens it (the table links the same).
// The debate page re-renders its live part as a debate runs and then sends
// "debate-live:update" (the analytics page "charts:update" when it refreshes its charts); the
// charts in the new part are drawn then, the old ones let go.
(() => {
  "use strict";
  if (typeof window.Chart === "undefined") return;
  const Chart = window.Chart;

  const GROUP = {
    ACT: "act", SUPPORT: "act", BUY: "act",
    WARN: "warn", HOLD: "warn", UNCERTAIN: "warn", NEUTRAL: "warn", NO_CONSENSUS: "warn",
    ABSTAIN: "warn", tie: "warn",
    REFUSE: "refuse", OPPOSE: "refuse", SELL: "refuse", VETO: "veto",
  };
  const COLOUR = { act: "#0a6b2b", warn: "#8a5a00", refuse: "#b00020", veto: "#b00020" };
  const SHAPE = { act: "circle", warn: "triangle", refuse: "rectRot", veto: "crossRot" };
  // Lines that are not decisions (agents, models, protocols): dark, distinct hues, each with
  // its own dash so that they stay apart in grey too.
  const PALETTE = ["#0b57d0", "#6a3d9a", "#00796b", "#5d4037", "#c2185b", "#37474f", "#e65100",
                   "#1b5e20"];
  const DASHES = [[], [7, 4], [2, 3], [10, 4, 2, 4]];
  const REFERENCE = "#333";

  // Shares' intervals and links (static/charts/shares.js), on the pages that load it.
  const Shares = window.ChartShares || null;
  const charts = new Set();
  window.debateCharts = { drawn: 0 };

  function group(decision) {
    return GROUP[decision] || "";
  }

  // A bar's fill by its decision group: solid (go), stripes (caution), cross-hatch (stop);
  // a second decision of the same group (SUPPORT beside ACT) gets dots, a third rings.
  function pattern(colour, kind, variant = 0) {
    if ((kind === "act" || !kind) && !variant) return colour;
    const tile = document.createElement("canvas");
    tile.width = tile.height = 8;
    const ctx = tile.getContext("2d");
    ctx.fillStyle = colour;
    ctx.globalAlpha = variant ? 0.25 : 0.35;
    ctx.fillRect(0, 0, 8, 8);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = colour;
    ctx.lineWidth = 2;
    ctx.beginPath();
    if (variant === 1) {
      ctx.arc(4, 4, 2, 0, 2 * Math.PI);
      ctx.fill();
    } else if (variant >= 2) {
      ctx.arc(4, 4, 2.5, 0, 2 * Math.PI);
    } else {
      ctx.moveTo(0, 8);
      ctx.lineTo(8, 0);
      if (kind === "refuse" || kind === "veto") {
        ctx.moveTo(0, 0);
        ctx.lineTo(8, 8);
      }
    }
    ctx.stroke();
    return ctx.createPattern(tile, "repeat");
  }

  function format(spec, value) {
    if (value === null || value === undefined) return "–";
    if (spec.percent) return Math.round(value * 100) + "%";
    return String(Math.round(value * 10000) / 10000);
  }

  function dataset(spec, series, index, paletteIndex, variant) {
    const kind = series.kind || spec.kind;
    const decisions = series.decisions || [];
    if (series.reference) {  // drawn as annotations (`thresholds`); here for the legend
      return {
        type: "line", label: series.label, data: series.values.map(() => null), reference: true,
        values: series.values, borderColor: REFERENCE, backgroundColor: REFERENCE,
        borderDash: [6, 4], borderWidth: 2, pointRadius: 0, pointStyle: "line", fill: false,
        order: -1, stack: "reference-" + index,
      };
    }
    const own = group(series.label);
    const colour = own ? COLOUR[own] : PALETTE[paletteIndex % PALETTE.length];
    if (kind === "bar") {
      const fills = decisions.length
        ? decisions.map((d) => pattern(COLOUR[group(d)] || colour, group(d)))
        : pattern(colour, own, variant);
      const borders = decisions.length ? decisions.map((d) => COLOUR[group(d)] || colour) : colour;
      return {
        type: "bar", label: series.label, data: series.values, backgroundColor: fills,
        borderColor: borders, borderWidth: 1.5, decisions,
        intervals: series.intervals || [], links: series.links || [],
        counts: series.counts || [], totals: series.totals || [],
      };
    }
    return {
      type: "line", label: series.label, data: series.values, decisions,
      borderColor: colour, backgroundColor: colour,
      borderDash: own ? [] : DASHES[paletteIndex % DASHES.length], borderWidth: 2,
      pointRadius: decisions.length ? 6 : 3, pointHoverRadius: 8,
      pointStyle: decisions.length ? decisions.map((d) => SHAPE[group(d)] || "circle") : "circle",
      pointBackgroundColor: decisions.length ? decisions.map((d) => COLOUR[group(d)] || colour) : colour,
      // A VETO's cross is all outline: draw outlines in the decision's colour, thick enough.
      pointBorderColor: decisions.length ? decisions.map((d) => COLOUR[group(d)] || colour) : colour,
      pointBorderWidth: decisions.length ? decisions.map((d) => (group(d) === "veto" ? 3 : 1)) : 1,
      spanGaps: true, fill: false, tension: 0,
    };
  }

  // Each point's decision is written beside the point by chartjs-plugin-datalabels (vendored),
  // so the decision can be read without its colour or shape. Labels are placed in the chart's
  // own pixels each time it is laid out (a resize moves points apart or together): stage by
  // stage, from the highest value down, each goes OFFSET above or below its point, or further
  // out past the labels already there, whichever is nearer while it stays on the canvas; the
  // same decision at the same value at one stage is written once.
  const LABEL_FONT = { weight: 600, size: 11 };
  const LABEL_PADDING = 1;
  const LINE = 16;  // a label's height (11 px type, its line height and padding) and a little air
  const OFFSET = 5;
  function labelPlaces(chart, spec) {
    const places = new Map();  // "dataset:index" -> {show, align, offset}
    const horizontal = chart.options.indexAxis === "y";
    const valueScale = chart.scales[horizontal ? "x" : "y"];
    const categoryScale = chart.scales[horizontal ? "y" : "x"];
    const context = chart.ctx;
    context.save();
    context.font = Chart.helpers.toFont(LABEL_FONT).string;
    const taken = [];  // the boxes of the labels placed so far
    const clear = (box) => box.top >= 0 && box.bottom <= chart.height &&
      !taken.some((t) => t.left < box.right && box.left < t.right &&
                         t.top < box.bottom && box.top < t.bottom);
    spec.labels.forEach((_, i) => {
      const points = [];
      spec.series.forEach((s, di) => {
        const decision = (s.decisions || [])[i];
        const value = s.values[i];
        if (!s.reference && decision && value !== null && value !== undefined) {
          points.push({ di, value, decision });
        }
      });
      points.sort((a, b) => b.value - a.value || a.di - b.di);
      const written = [];
      for (const p of points) {
        if (written.some((w) => w.decision === p.decision && w.value === p.value)) {
          places.set(p.di + ":" + i, { show: false });
          continue;
        }
        const at = { [horizontal ? "x" : "y"]: valueScale.getPixelForValue(p.value),
                     [horizontal ? "y" : "x"]: categoryScale.getPixelForValue(i) };
        const half = context.measureText(p.decision).width / 2 + LABEL_PADDING;
        const box = (up, offset) => {
          const top = up ? at.y - offset - LINE : at.y + offset;
          return { left: at.x - half, right: at.x + half, top, bottom: top + LINE };
        };
        let best = null;
        for (const up of [true, false]) {
          let offset = OFFSET;
          let candidate = box(up, offset);
          while (candidate.top >= 0 && candidate.bottom <= chart.height && !clear(candidate)) {
            // Past the labels in the way, a pixel clear of them.
            const inTheWay = taken.filter((t) => t.left < candidate.right && candidate.left < t.right &&
                                                 t.top < candidate.bottom && candidate.top < t.bottom);
            offset = 1 + (up ? at.y - Math.min(...inTheWay.map((t) => t.top))
                             : Math.max(...inTheWay.map((t) => t.bottom)) - at.y);
            candidate = box(up, offset);
          }
          if (clear(candidate) && (!best || offset < best.offset)) {
            best = { up, offset, box: candidate };
          }
        }
        // Nowhere clear (a crowded chart): beside its point all the same.
        best = best || { up: true, offset: OFFSET, box: box(true, OFFSET) };
        taken.push(best.box);
        places.set(p.di + ":" + i, { show: true, align: best.up ? "top" : "bottom", offset: best.offset });
        written.push(p);
      }
    });
    context.restore();
    return places;
  }

  function datalabels(spec) {
    // Worked out again whenever the chart is laid out at another size.
    let key = null;
    let places = new Map();
    const place = (ctx) => {
      const chart = ctx.chart;
      const area = chart.chartArea;
      const now = [chart.width, chart.height, area.left, area.top, area.right, area.bottom,
                   chart.options.indexAxis].join(",");
      if (now !== key) {
        key = now;
        places = labelPlaces(chart, spec);
      }
      return places.get(ctx.datasetIndex + ":" + ctx.dataIndex) || { show: false };
    };
    return {
      display: (ctx) => {
        const ds = ctx.dataset;
        if (ds.type === "bar") {
          const decisions = ds.decisions || [];
          return Boolean(decisions[ctx.dataIndex]) && ds.data[ctx.dataIndex] !== null &&
            new Set(decisions.filter(Boolean)).size > 1;
        }
        return place(ctx).show;
      },
      formatter: (_, ctx) => (ctx.dataset.decisions || [])[ctx.dataIndex] || "",
      color: (ctx) => COLOUR[group((ctx.dataset.decisions || [])[ctx.dataIndex])] || "#333",
      font: LABEL_FONT,
      anchor: (ctx) => (ctx.dataset.type === "bar" ? "end" : "center"),
      align: (ctx) => (ctx.dataset.type === "bar" ? (spec.horizontal ? "right" : "top") : place(ctx).align),
      offset: (ctx) => (ctx.dataset.type === "bar" ? 2 : place(ctx).offset),
      clip: false,
      padding: LABEL_PADDING,
    };
  }

  // Threshold lines (series marked `reference`) are drawn by chartjs-plugin-annotation from the
  // first stage on: one line across the chart for a constant threshold, else a short line over
  // each stage. An empty dataset keeps their entry in the legend.
  function thresholds(spec) {
    const annotations = {};
    spec.series.forEach((s, si) => {
      if (!s.reference) return;
      const values = s.values.filter((v) => v !== null && v !== undefined);
      if (!values.length) return;
      const value = spec.horizontal ? "x" : "y";
      const category = spec.horizontal ? "y" : "x";
      const line = { type: "line", borderColor: REFERENCE, borderWidth: 2, borderDash: [6, 4],
                     drawTime: "afterDatasetsDraw" };
      if (s.straight && s.values.length > 1) {
        // One line through every value, from the near edge of the first category to the far
        // edge of the last (half a step beyond each end value).
        const last = s.values.length - 1;
        const step = (s.values[last] - s.values[0]) / last;
        annotations["reference-" + si] = {
          ...line, [category + "Min"]: -0.5, [category + "Max"]: last + 0.5,
          [value + "Min"]: s.values[0] - step / 2, [value + "Max"]: s.values[last] + step / 2,
        };
      } else if (values.every((v) => v === values[0])) {
        annotations["reference-" + si] = { ...line, [value + "Min"]: values[0], [value + "Max"]: values[0] };
      } else {
        s.values.forEach((v, i) => {
          if (v === null || v === undefined) return;
          annotations[`reference-${si}-${i}`] = {
            ...line, [value + "Min"]: v, [value + "Max"]: v,
            [category + "Min"]: i - 0.45, [category + "Max"]: i + 0.45,
          };
        });
      }
    });
    return annotations;
  }

  // A legend item draws its series as it is drawn: a line with the series' dash (its points'
  // shapes are the decisions, which the key under the chart names), or a patch of its bars.
  function legendItems(chart) {
    const items = Chart.defaults.plugins.legend.labels.generateLabels(chart);
    for (const item of items) {
      const ds = chart.data.datasets[item.datasetIndex];
      const fill = Array.isArray(ds.backgroundColor) ? ds.backgroundColor[0] : ds.backgroundColor;
      const stroke = Array.isArray(ds.borderColor) ? ds.borderColor[0] : ds.borderColor;
      if (ds.type === "line") {
        Object.assign(item, { pointStyle: "line", strokeStyle: stroke, fillStyle: stroke,
                              lineWidth: 3, lineDash: ds.borderDash || [] });
      } else {
        Object.assign(item, { pointStyle: "rect", fillStyle: fill, strokeStyle: stroke,
                              lineWidth: 1 });
      }
    }
    return items;
  }

  // Category labels are never skipped: long ones wrap onto lines of whole words; when even
  // then the categories would not fit across the chart, it is drawn on its side (categories
  // down the page, as tall as they need).
  const FONT = 11;
  function wrap(label, width) {
    const words = String(label).split(" ");
    const lines = [];
    for (const word of words) {
      const last = lines[lines.length - 1];
      if (last !== undefined && (last + " " + word).length * FONT * 0.55 <= width) {
        lines[lines.length - 1] = last + " " + word;
      } else {
        lines.push(word);
      }
    }
    return lines.length > 1 ? lines : lines[0];
  }

  function layout(spec, boxWidth) {
    const width = Math.max(boxWidth - 70, 100);
    const n = Math.max(spec.labels.length, 1);
    const length = (text) => String(text).length * FONT * 0.6;
    const longest = Math.max(...spec.labels.map(length), 1);
    const longestWord = Math.max(...spec.labels.flatMap((l) => String(l).split(" ").map(length)), 1);
    // Across: each category needs its label's width, or a line's height once turned on end.
    const across = !spec.horizontal && n * (FONT + 4) <= width;
    // Labels wrap at spaces: they are turned on end only when a word is wider than its category.
    const turned = across && longestWord > width / n - 6;
    return { horizontal: !across, turned, slot: width / n, rows: n, depth: turned ? longest : 0 };
  }

  function categoryLabels(spec, shape) {
    return spec.labels.map((l) => (shape.turned || shape.horizontal ? l : wrap(l, shape.slot - 6)));
  }

  // The canvas box: a row per category when the chart lies on its side; else the height the page
  // gives it (charts.css), and the length of its category labels besides once they are turned on
  // end, so that they never eat the plot.
  function size(box, shape) {
    box.style.removeProperty("height");
    if (shape.horizontal) {
      box.classList.add("chart-canvas-tall");
      box.dataset.rows = String(shape.rows);
      box.style.setProperty("height", Math.max(240, shape.rows * 24 + 90) + "px");
    } else if (shape.turned) {
      box.style.setProperty("height", box.clientHeight + Math.ceil(shape.depth) + "px");
    }
  }

  // The plot keeps at least PLOT_ROOM px of height: a legend of many rows (every series named,
  // never cut: Chart.js would stop it at half the chart's height) or category labels turned on
  // end make the canvas box taller instead of squeezing the plot. Chart.js redraws at the new
  // height when it sees its box grow.
  const PLOT_ROOM = 140;
  const plotRoom = {
    id: "plotRoom",
    afterLayout(chart) {
      const short = PLOT_ROOM - (chart.chartArea.bottom - chart.chartArea.top);
      if (short >= 1) {
        const box = chart.canvas.parentElement;
        box.style.setProperty("height", box.clientHeight + Math.ceil(short) + "px");
      }
    },
  };

  // A resized chart (a window made narrower, a phone turned) wraps or turns its category labels
  // again for its new width, and takes the height its new width needs; one lying on its side
  // stays so.
  function refit(chart, spec) {
    const before = chart.$shape;
    if (!before || before.horizontal) return;
    const shape = layout(spec, chart.canvas.parentElement.clientWidth);
    if (shape.horizontal) return;
    if (shape.turned === before.turned && Math.abs(shape.slot - before.slot) < 1) return;
    chart.$shape = shape;
    chart.data.labels = categoryLabels(spec, shape);
    Object.assign(chart.config.options.scales.x.ticks, { maxRotation: shape.turned ? 90 : 0,
                                                          minRotation: shape.turned ? 90 : 0 });
    size(chart.canvas.parentElement, shape);
  }

  function config(spec, canvas) {
    const shape = layout(spec, canvas.parentElement.clientWidth);
    const horizontal = shape.horizontal;
    let palette = 0;
    const perGroup = {};
    const datasets = spec.series.map((s, i) => {
      const own = group(s.label);
      const variant = own ? (perGroup[own] = (perGroup[own] ?? -1) + 1) : 0;
      const ds = dataset({ ...spec, horizontal }, s, i, palette, variant);
      if (!s.reference && !group(s.label)) palette += 1;
      return ds;
    });
    const value = horizontal ? "x" : "y";
    const category = horizontal ? "y" : "x";
    const labels = categoryLabels(spec, shape);
    const scales = {
      [category]: {
        stacked: spec.stacked, offset: true,
        ticks: { autoSkip: false, maxRotation: shape.turned ? 90 : 0,
                 minRotation: shape.turned ? 90 : 0, font: { size: FONT } },
      },
      [value]: {
        stacked: spec.stacked, beginAtZero: true, grace: spec.y_max ? 0 : "8%",
        title: { display: Boolean(spec.y_title), text: spec.y_title },
        ticks: { callback: (v) => format(spec, v) },
      },
    };
    if (spec.y_max !== null && spec.y_max !== undefined) {
      scales[value].max = spec.y_max;
      scales[value].min = 0;
    }
    return {
      type: spec.kind === "bar" ? "bar" : "line",
      data: { labels, datasets },
      plugins: [Shares && Shares.plugin, window.ChartDataLabels, plotRoom].filter(Boolean),
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        onResize: (chart) => refit(chart, spec),
        onClick: (event, _, chart) => Shares && Shares.follow(chart, event),
        onHover: (event, _, chart) => Shares && Shares.hover(chart, event),
        indexAxis: horizontal ? "y" : "x",
        layout: { padding: { top: 18, right: horizontal ? 70 : 12, left: 4, bottom: 4 } },
        interaction: { mode: "nearest", intersect: false, axis: category },
        scales,
        plugins: {
          datalabels: datalabels({ ...spec, horizontal }),
          annotation: { annotations: thresholds({ ...spec, horizontal }) },
          legend: { position: "bottom", maxHeight: 100000,
                    labels: { usePointStyle: true, generateLabels: legendItems } },
          tooltip: {
            callbacks: {
              label(ctx) {
                const decision = (ctx.dataset.decisions || [])[ctx.dataIndex];
                const raw = horizontal ? ctx.parsed.x : ctx.parsed.y;
                return `${ctx.dataset.label}: ${decision ? decision + " " : ""}${format(spec, raw)}` +
                  (Shares ? Shares.note(ctx.dataset, ctx.dataIndex) : "");
              },
              footer: (items) => (Shares ? Shares.footer(items) : ""),
            },
          },
        },
      },
      shape,
    };
  }

  function draw(figure) {
    const canvas = figure.querySelector("canvas");
    const data = figure.querySelector("script[type='application/json']");
    if (!canvas || !data || Chart.getChart(canvas)) return;
    const spec = JSON.parse(data.textContent);
    const settings = config(spec, canvas);
    size(canvas.parentElement, settings.shape);
    const chart = new Chart(canvas, settings);
    chart.$spec = spec;  // what it was drawn from (read by the browser tests)
    chart.$shape = settings.shape;
    charts.add(chart);
    figure.dataset.drawn = "true";
    figure.dataset.orientation = settings.shape.horizontal ? "horizontal" : "vertical";
    window.debateCharts.drawn += 1;
  }

  function drawAll() {
    for (const chart of [...charts]) {
      if (!chart.canvas.isConnected) {
        chart.destroy();
        charts.delete(chart);
      }
    }
    document.querySelectorAll("figure.chart").forEach(draw);
  }

  document.addEventListener("debate-live:update", drawAll);
  document.addEventListener("charts:update", drawAll);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
