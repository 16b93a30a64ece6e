// Shares on a chart (static/charts/charts.js draws the chart): a bar that is k of n carries its
// 95% interval, drawn over the bar as a line with a cap at each end, and may carry a link to the
// debates it counts, opened by a click on the bar (the table under the chart links the same, for
// the keyboard). Loaded before charts.js by the pages whose charts have shares.
(() => {
  "use strict";
  const CAP = 4;
  const COLOUR = "#333";

  // What was drawn is kept on the chart (`$intervals`, in canvas pixels) for the browser tests.
  const plugin = {
    id: "intervalBars",
    afterDatasetsDraw(chart) {
      const horizontal = chart.options.indexAxis === "y";
      const scale = chart.scales[horizontal ? "x" : "y"];
      const ctx = chart.ctx;
      const drawn = [];
      ctx.save();
      ctx.strokeStyle = COLOUR;
      ctx.lineWidth = 1.5;
      chart.data.datasets.forEach((ds, di) => {
        if (!ds.intervals || !ds.intervals.length || !chart.isDatasetVisible(di)) return;
        chart.getDatasetMeta(di).data.forEach((bar, i) => {
          const interval = ds.intervals[i];
          if (!interval) return;
          const at = horizontal ? bar.y : bar.x;
          const [from, to] = interval.map((v) => scale.getPixelForValue(v));
          const cap = Math.min(CAP, (horizontal ? bar.height : bar.width) / 2);
          const point = (value, across) => (horizontal ? [value, across] : [across, value]);
          ctx.beginPath();
          ctx.moveTo(...point(from, at));
          ctx.lineTo(...point(to, at));
          for (const end of [from, to]) {
            ctx.moveTo(...point(end, at - cap));
            ctx.lineTo(...point(end, at + cap));
          }
          ctx.stroke();
          drawn.push({ set: di, index: i, at, from, to });
        });
      });
      ctx.restore();
      chart.$intervals = drawn;
    },
  };

  // The link of the bar under the pointer ("" for none).
  function linkAt(chart, event) {
    const hit = chart.getElementsAtEventForMode(event, "nearest", { intersect: true }, false)[0];
    if (!hit) return "";
    return (chart.data.datasets[hit.datasetIndex].links || [])[hit.index] || "";
  }

  function percent(value) {
    return Math.round(value * 100) + "%";
  }

  window.ChartShares = {
    plugin,
    follow(chart, event) {
      const link = linkAt(chart, event);
      if (link) window.location.assign(link);
    },
    hover(chart, event) {
      chart.canvas.style.cursor = linkAt(chart, event) ? "pointer" : "";
    },
    // " (3 of 12; 95% interval 9% to 53%)" for a share, as the table says it.
    note(ds, i) {
      const n = (ds.totals || [])[i];
      if (!n) return "";
      const interval = (ds.intervals || [])[i];
      return ` (${ds.counts[i]} of ${n}` +
        (interval ? `; 95% interval ${percent(interval[0])} to ${percent(interval[1])})` : ")");
    },
    footer(items) {
      return items.some((i) => (i.dataset.links || [])[i.dataIndex])
        ? "Click the bar to list its debates" : "";
    },
  };
})();
