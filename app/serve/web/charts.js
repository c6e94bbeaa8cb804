// Line charts in plain SVG for the dashboard: one chart per panel, one colour per series key,
// one dash style per run, optional log y axis, markers and error bars.
"use strict";
window.XQ = window.XQ || {};

XQ.charts = (function () {
  const NS = "http://www.w3.org/2000/svg";
  const W = 460, H = 250, L = 52, R = 10, T = 24, B = 34;
  const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const DASHES = ["", "6 3", "2 3", "8 3 2 3"];

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function niceTicks(lo, hi, n) {
    if (!(hi > lo)) { hi = lo + 1; }
    const step0 = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
    const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= step0) || step0;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) out.push(+v.toPrecision(12));
    return out;
  }

  // Ticks of a log axis (lo, hi: log10 of the range): 1, 2, 5 times powers of ten, as log10.
  function logTicks(lo, hi) {
    const out = [];
    for (let k = Math.floor(lo); k <= Math.ceil(hi); k++)
      for (const m of [1, 2, 5]) {
        const t = Math.log10(m) + k;
        if (t >= lo - 1e-9 && t <= hi + 1e-9) out.push(t);
      }
    return out.length >= 2 ? out : niceTicks(lo, hi, 4);
  }

  function fmt(v) {
    const a = Math.abs(v);
    if (a >= 1e4) return +(v / 1000).toPrecision(3) + "k";
    return +v.toPrecision(4) + "";
  }

  // series: [{label, color (index), dash (index), points: [[x, y, err]...], markers}]
  // opts: {title, xlabel, logY, yMin, yMax, hline}
  function draw(container, series, opts) {
    container.innerHTML = "";
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, "data-series": series.filter((s) => s.points.length).length }, container);
    el("text", { class: "title", x: L, y: 15 }, svg).textContent = opts.title;
    const pts = series.flatMap((s) => s.points).filter((p) => isFinite(p[1]) && (!opts.logY || p[1] > 0));
    if (!pts.length) {
      el("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, svg).textContent = "no data yet";
      return svg;
    }
    const ty = (v) => (opts.logY ? Math.log10(v) : v);
    let x0 = Math.min(...pts.map((p) => p[0])), x1 = Math.max(...pts.map((p) => p[0]));
    let y0, y1;
    if (opts.logY) {
      y0 = Math.log10(Math.min(...pts.map((p) => p[1])));
      y1 = Math.log10(Math.max(...pts.map((p) => p[1])));
    } else {
      const err = (p) => (p[2] && isFinite(p[2]) ? p[2] : 0);
      y0 = Math.min(...pts.map((p) => p[1] - err(p)));
      y1 = Math.max(...pts.map((p) => p[1] + err(p)));
    }
    if (opts.yMin !== undefined) y0 = opts.yMin;
    if (opts.yMax !== undefined) y1 = opts.yMax;
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (y1 === y0) { y0 -= 0.5; y1 += 0.5; }
    const pad = (y1 - y0) * 0.05; y0 -= pad; y1 += pad;
    const X = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
    const Y = (y) => T + (1 - (ty(y) - y0) / (y1 - y0)) * (H - T - B);
    const Yt = (t) => T + (1 - (t - y0) / (y1 - y0)) * (H - T - B);
    for (const t of opts.logY ? logTicks(y0, y1) : niceTicks(y0, y1, 5)) {
      el("line", { class: "grid", x1: L, x2: W - R, y1: Yt(t), y2: Yt(t) }, svg);
      el("text", { x: L - 4, y: Yt(t) + 4, "text-anchor": "end" }, svg).textContent = fmt(opts.logY ? Math.pow(10, t) : t);
    }
    for (const t of niceTicks(x0, x1, 6)) {
      el("line", { class: "grid", x1: X(t), x2: X(t), y1: T, y2: H - B }, svg);
      el("text", { x: X(t), y: H - B + 14, "text-anchor": "middle" }, svg).textContent = fmt(t);
    }
    el("rect", { class: "axis", x: L, y: T, width: W - L - R, height: H - T - B, fill: "none" }, svg);
    el("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, svg).textContent = opts.xlabel || "training step";
    if (opts.hline !== undefined && ty(opts.hline) >= y0 && ty(opts.hline) <= y1)
      el("line", { x1: L, x2: W - R, y1: Y(opts.hline), y2: Y(opts.hline), stroke: "#888", "stroke-dasharray": "3 3" }, svg);
    const legend = [];
    for (const s of series) {
      const p = s.points.filter((q) => isFinite(q[1]) && (!opts.logY || q[1] > 0));
      if (!p.length) continue;
      const color = COLORS[s.color % COLORS.length];
      el("polyline", { class: "curve", fill: "none", stroke: color, "stroke-width": 1.6, "stroke-dasharray": DASHES[s.dash % DASHES.length],
                       points: p.map((q) => X(q[0]).toFixed(1) + "," + Y(q[1]).toFixed(1)).join(" "), "data-label": s.label }, svg);
      for (const q of p) {
        if (q[2] && isFinite(q[2]))
          el("line", { x1: X(q[0]), x2: X(q[0]), y1: Y(q[1] - q[2]), y2: Y(q[1] + q[2]), stroke: color }, svg);
        if (s.markers) el("circle", { cx: X(q[0]), cy: Y(q[1]), r: 2.5, fill: color }, svg);
      }
      if (!legend.some((l) => l.label === s.legend)) legend.push({ label: s.legend || s.label, color });
    }
    if (legend.length)
      el("rect", { x: W - R - 154, y: T + 1, width: 152, height: legend.length * 13 + 4, fill: "#fff", opacity: 0.8 }, svg);
    legend.forEach((l, i) => {
      const y = T + 10 + i * 13;
      el("line", { x1: W - R - 150, x2: W - R - 134, y1: y - 3, y2: y - 3, stroke: l.color, "stroke-width": 2 }, svg);
      el("text", { x: W - R - 130, y }, svg).textContent = l.label;
    });
    return svg;
  }

  return { draw };
})();
