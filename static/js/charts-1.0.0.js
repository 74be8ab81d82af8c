// Draw every <figure class="chart"> from its JSON spec (built by app/charts.py) with Chart.js.
// The spec is a data block in the page, so no inline script is needed under the CSP.
(function () {
  "use strict";

  var PALETTE = ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280", "#718096", "#b7791f"];

  function colour(i, alpha) {
    var hex = PALETTE[i % PALETTE.length];
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + alpha + ")";
  }

  var LABEL_CHARS = 30; // a category label is cut with "…" past this (whole in the tooltip)
  var ALL_LABELS = 60; // up to this many category labels, every one is written

  function values(spec) {
    var out = [];
    spec.series.forEach(function (s) {
      s.data.forEach(function (p) {
        var v = p && typeof p === "object" ? p.y : p;
        if (typeof v === "number") out.push(v);
      });
    });
    return out;
  }

  // Counts are whole numbers: an axis over them has no "0.5" tick. A category axis writes
  // every label (none skipped), a long one cut, and a logarithmic axis writes 1, 2, 5 × 10^k.
  function axis(a, stacked, whole, labels) {
    var ticks = {};
    if (a.scale === "linear" && whole) ticks.precision = 0;
    if (a.scale === "logarithmic") {
      ticks.callback = function (v) {
        var lead = v / Math.pow(10, Math.floor(Math.log10(v)));
        return [1, 2, 5].indexOf(Math.round(lead)) >= 0 && Math.abs(lead - Math.round(lead)) < 1e-9
          ? Number(v).toLocaleString("en")
          : "";
      };
    }
    if (a.scale === "category" && labels) {
      ticks.autoSkip = labels.length > ALL_LABELS;
      ticks.maxRotation = 60;
      ticks.callback = function (v) {
        var text = String(this.getLabelForValue(v));
        return text.length > LABEL_CHARS ? text.slice(0, LABEL_CHARS - 1) + "…" : text;
      };
    }
    return {
      type: a.scale,
      title: { display: !!a.title, text: a.title },
      beginAtZero: a.scale === "linear",
      stacked: !!stacked,
      ticks: ticks,
    };
  }

  function pointLabel(context) {
    var raw = context.raw;
    var name = raw && typeof raw === "object" && raw.label ? raw.label + ": " : "";
    var series = context.dataset.label ? context.dataset.label + " " : "";
    if (raw && typeof raw === "object") {
      return series + name + "(" + raw.x + ", " + raw.y + ")";
    }
    return series + context.formattedValue;
  }

  function draw(figure) {
    var node = figure.querySelector("script.chart-spec");
    var canvas = figure.querySelector("canvas");
    if (!node || !canvas || typeof window.Chart === "undefined") {
      return;
    }
    var spec = JSON.parse(node.textContent);
    var datasets = spec.series.map(function (s, i) {
      return {
        label: s.label,
        data: s.data,
        backgroundColor: colour(i, spec.type === "bar" ? 0.7 : 0.5),
        borderColor: colour(i, 1),
        borderWidth: spec.type === "bar" ? 1 : 2,
        pointRadius: spec.type === "line" ? 2 : 4,
        spanGaps: false,
      };
    });
    var chart = new window.Chart(canvas, {
      type: spec.type,
      data: { labels: spec.labels, datasets: datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        parsing: spec.x.scale === "category" ? undefined : { xAxisKey: "x", yAxisKey: "y" },
        plugins: {
          title: { display: false },
          legend: { display: datasets.length > 1 },
          tooltip: { callbacks: { label: pointLabel } },
        },
        scales: {
          x: axis(spec.x, spec.stacked, false, spec.labels),
          y: axis(spec.y, spec.stacked, values(spec).every(Number.isInteger), null),
        },
      },
    });
    figure.chart = chart;
    figure.setAttribute("data-chart-ready", String(datasets.length));
  }

  function drawAll() {
    Array.prototype.forEach.call(document.querySelectorAll("figure.chart"), draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
