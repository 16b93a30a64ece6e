// Draws every <figure class="chart"> on the page with Chart.js (vendored: static/vendor/chartjs).
// Each figure holds its data as JSON (Django's json_script) and, in the page itself, the same
// numbers as a table: the chart is a picture of the table, never the only copy.
//
// Decisions keep the page's colours (ACT / SUPPORT / BUY green, WARN / HOLD / UNCERTAIN amber,
// REFUSE / OPPOSE / SELL red) and never rely on colour alone: each has its own point shape
// (circle, triangle, diamond) or bar pattern (solid, stripes, cross-hatch) and a text label.
// The debate page re-renders its live part as a debate runs and then sends
// "debate-live:update"; the charts in the new part are drawn then, the old ones let go.
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
    if (series.reference) {
      return {
        type: "line", label: series.label, data: series.values, borderColor: REFERENCE,
        backgroundColor: REFERENCE, borderDash: [6, 4], borderWidth: 2, pointRadius: 0,
        pointStyle: "line", fill: false, order: -1, stack: "reference-" + index,
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

  // Writes each point's decision beside it (above for the first series, below for the next,
  // and so on), so that the decision can be read without its colour or shape. Where points
  // coincide, a label that would cover another moves further out, and the same decision at
  // the same place is written once.
  const decisionLabels = {
    id: "decisionLabels",
    afterDatasetsDraw(chart) {
      const { ctx } = chart;
      const LINE = 13;
      const placed = [];
      const overlaps = (box) => placed.find((b) =>
        box.left < b.right && b.left < box.right && box.top < b.bottom && b.top < box.bottom);
      ctx.save();
      ctx.font = "600 11px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      chart.data.datasets.forEach((ds, di) => {
        const decisions = ds.decisions || [];
        if (!decisions.length || chart.getDatasetMeta(di).hidden) return;
        const varied = new Set(decisions.filter(Boolean)).size > 1;
        if (ds.type === "bar" && !varied) return;
        const step = ds.type === "bar" || di % 2 === 0 ? -LINE : LINE;
        chart.getDatasetMeta(di).data.forEach((element, i) => {
          const decision = decisions[i];
          if (!decision || ds.data[i] === null || ds.data[i] === undefined) return;
          const half = ctx.measureText(decision).width / 2 + 1;
          let y = element.y + (ds.type === "bar" ? -9 : step);
          let box = { left: element.x - half, right: element.x + half, top: y - LINE / 2, bottom: y + LINE / 2 };
          let other = overlaps(box);
          if (other && other.text === decision && Math.abs(other.x - element.x) < 1) return;
          for (let tries = 0; other && tries < 8; tries += 1) {
            y += step;
            box = { left: box.left, right: box.right, top: y - LINE / 2, bottom: y + LINE / 2 };
            other = overlaps(box);
          }
          placed.push({ ...box, text: decision, x: element.x });
          ctx.fillStyle = COLOUR[group(decision)] || "#333";
          ctx.fillText(decision, element.x, y);
        });
      });
      ctx.restore();
      chart.$decisionLabels = placed;  // where each label went (read by the browser tests)
    },
  };

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

  function config(spec) {
    let palette = 0;
    const perGroup = {};
    const datasets = spec.series.map((s, i) => {
      const own = group(s.label);
      const variant = own ? (perGroup[own] = (perGroup[own] ?? -1) + 1) : 0;
      const ds = dataset(spec, s, i, palette, variant);
      if (!s.reference && !group(s.label)) palette += 1;
      return ds;
    });
    const value = spec.horizontal ? "x" : "y";
    const category = spec.horizontal ? "y" : "x";
    const scales = {
      [category]: { stacked: spec.stacked, ticks: { autoSkip: true, maxRotation: 0 } },
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
      data: { labels: spec.labels, datasets },
      plugins: [decisionLabels],
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        indexAxis: spec.horizontal ? "y" : "x",
        layout: { padding: { top: 14, right: 8 } },
        interaction: { mode: "nearest", intersect: false, axis: category },
        scales,
        plugins: {
          legend: { position: "bottom", labels: { usePointStyle: true, generateLabels: legendItems } },
          tooltip: {
            callbacks: {
              label(ctx) {
                const decision = (ctx.dataset.decisions || [])[ctx.dataIndex];
                const raw = spec.horizontal ? ctx.parsed.x : ctx.parsed.y;
                return `${ctx.dataset.label}: ${decision ? decision + " " : ""}${format(spec, raw)}`;
              },
            },
          },
        },
      },
    };
  }

  function draw(figure) {
    const canvas = figure.querySelector("canvas");
    const data = figure.querySelector("script[type='application/json']");
    if (!canvas || !data || Chart.getChart(canvas)) return;
    const chart = new Chart(canvas, config(JSON.parse(data.textContent)));
    charts.add(chart);
    figure.dataset.drawn = "true";
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
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
