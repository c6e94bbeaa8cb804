// The SVG board: pieces from a FEN's placement field, the last move, selection and targets,
// analysis arrows and a heat map. It knows no rules: the legal moves come from the server
// (XQ.Board.setPosition), and a click only ever picks one of them (onMove).
"use strict";
window.XQ = window.XQ || {};

XQ.Board = (function () {
  const NS = "http://www.w3.org/2000/svg";
  const C = 50, M = 50; // cell size and margin (viewBox 500 x 550)
  const GLYPH = { K: "帅", A: "仕", B: "相", E: "相", N: "马", H: "马", R: "车", C: "炮", P: "兵",
                  k: "将", a: "士", b: "象", e: "象", n: "马", h: "马", r: "车", c: "炮", p: "卒" };
  const FILES = "abcdefghi";

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // {"a0": "R", ...} from a FEN (rank 9 first).
  function placement(fen) {
    const rows = fen.trim().split(/\s+/)[0].split("/");
    const out = {};
    rows.forEach((row, i) => {
      const rank = 9 - i;
      let file = 0;
      for (const ch of row) {
        if (ch >= "1" && ch <= "9") file += +ch;
        else { out[FILES[file] + rank] = ch; file++; }
      }
    });
    return out;
  }

  class Board {
    constructor(svg, onMove) {
      this.svg = svg;
      this.onMove = onMove;
      this.flipped = false;
      this.pieces = {};
      this.legal = [];
      this.side = "red";
      this.selected = null;
      this.lastMove = null;
      this.interactive = true;
      this.drawGrid();
      this.heatLayer = el("g", { id: "heat-layer" }, svg);
      this.markLayer = el("g", {}, svg);
      this.pieceLayer = el("g", {}, svg);
      this.arrowLayer = el("g", { id: "arrow-layer" }, svg);
      this.hitLayer = el("g", {}, svg);
      for (let f = 0; f < 9; f++)
        for (let r = 0; r < 10; r++) {
          const sq = FILES[f] + r;
          const hit = el("rect", { class: "sq-hit", width: C, height: C, "data-square": sq }, this.hitLayer);
          hit.addEventListener("click", () => this.click(sq));
        }
      this.placeHits();
      // Drag and drop: a press on a square that has a legal move and a release on one of its
      // targets plays it (a press and release on one square is a click, handled above).
      this.dragFrom = null;
      svg.addEventListener("pointerdown", (e) => {
        const sq = this.squareAt(e);
        this.dragFrom = this.interactive && sq && this.legal.some((m) => m.startsWith(sq)) ? sq : null;
      });
      svg.addEventListener("pointerup", (e) => {
        const from = this.dragFrom, to = this.squareAt(e);
        this.dragFrom = null;
        if (!from || !to || from === to || !this.interactive || !this.legal.includes(from + to)) return;
        this.selected = null;
        this.redraw();
        this.onMove(from + to);
      });
    }

    // The square under a pointer event, or null.
    squareAt(e) {
      const hit = document.elementFromPoint(e.clientX, e.clientY);
      return hit && hit.classList && hit.classList.contains("sq-hit") ? hit.getAttribute("data-square") : null;
    }

    xy(sq) {
      const f = FILES.indexOf(sq[0]), r = +sq[1];
      return this.flipped ? [M + (8 - f) * C, M + r * C] : [M + f * C, M + (9 - r) * C];
    }

    placeHits() {
      for (const hit of this.hitLayer.children) {
        const [x, y] = this.xy(hit.getAttribute("data-square"));
        hit.setAttribute("x", x - C / 2);
        hit.setAttribute("y", y - C / 2);
      }
    }

    drawGrid() {
      const g = el("g", { stroke: "#5a3b1e", "stroke-width": 1.2, fill: "none" }, this.svg);
      el("rect", { x: 8, y: 8, width: 484, height: 534, fill: "#e9c98f", stroke: "#5a3b1e", "stroke-width": 3 }, g);
      const X = (f) => M + f * C, Y = (r) => M + r * C;
      for (let r = 0; r < 10; r++) el("line", { x1: X(0), y1: Y(r), x2: X(8), y2: Y(r) }, g);
      for (let f = 0; f < 9; f++) {
        if (f === 0 || f === 8) { el("line", { x1: X(f), y1: Y(0), x2: X(f), y2: Y(9) }, g); continue; }
        el("line", { x1: X(f), y1: Y(0), x2: X(f), y2: Y(4) }, g);
        el("line", { x1: X(f), y1: Y(5), x2: X(f), y2: Y(9) }, g);
      }
      for (const [a, b] of [[0, 2], [7, 9]]) {
        el("line", { x1: X(3), y1: Y(a), x2: X(5), y2: Y(b) }, g);
        el("line", { x1: X(5), y1: Y(a), x2: X(3), y2: Y(b) }, g);
      }
      const river = el("text", { x: 250, y: Y(4.5), "text-anchor": "middle", "dominant-baseline": "central",
        fill: "#5a3b1e", stroke: "none", "font-size": 22 }, g);
      river.textContent = "楚 河          漢 界";
      this.coordLayer = el("g", { fill: "#5a3b1e", "font-size": 11, "text-anchor": "middle" }, this.svg);
    }

    drawCoords() {
      this.coordLayer.innerHTML = "";
      for (let f = 0; f < 9; f++) {
        const [x] = this.xy(FILES[f] + 0);
        el("text", { x, y: 545 - 4 }, this.coordLayer).textContent = FILES[f];
      }
      for (let r = 0; r < 10; r++) {
        const [, y] = this.xy("a" + r);
        el("text", { x: 20, y: y + 4 }, this.coordLayer).textContent = r;
      }
    }

    // pos: the server's position JSON.
    setPosition(pos) {
      this.pieces = placement(pos.fen);
      this.legal = pos.legal.map((m) => m.iccs);
      this.side = pos.sideToMove;
      const h = pos.history;
      this.lastMove = h.length ? h[h.length - 1].iccs : null;
      this.selected = null;
      this.redraw();
    }

    setFlipped(f) { this.flipped = f; this.placeHits(); this.redraw(); }

    redraw() {
      this.drawCoords();
      this.pieceLayer.innerHTML = "";
      this.markLayer.innerHTML = "";
      if (this.lastMove)
        for (const sq of [this.lastMove.slice(0, 2), this.lastMove.slice(2)]) {
          const [x, y] = this.xy(sq);
          el("rect", { class: "lastmove", x: x - 22, y: y - 22, width: 44, height: 44, rx: 6 }, this.markLayer);
        }
      for (const sq in this.pieces) {
        const ch = this.pieces[sq];
        const red = ch === ch.toUpperCase();
        const [x, y] = this.xy(sq);
        const g = el("g", { class: "piece " + (red ? "red" : "black") + (sq === this.selected ? " selected" : ""),
                            "data-square": sq, "data-piece": ch }, this.pieceLayer);
        el("circle", { cx: x, cy: y, r: 21 }, g);
        el("text", { x, y }, g).textContent = GLYPH[ch] || ch;
      }
      if (this.selected)
        for (const m of this.legal)
          if (m.startsWith(this.selected)) {
            const [x, y] = this.xy(m.slice(2));
            el("circle", { class: "target", cx: x, cy: y, r: 7, "data-move": m }, this.markLayer);
          }
    }

    click(sq) {
      if (!this.interactive) return;
      if (this.selected && this.legal.includes(this.selected + sq)) {
        const m = this.selected + sq;
        this.selected = null;
        this.redraw();
        this.onMove(m);
        return;
      }
      const own = this.legal.some((m) => m.startsWith(sq));
      this.selected = own && this.selected !== sq ? sq : null;
      this.redraw();
    }

    // moves: [{move, visits, share (0..1), label}], best first.
    // moves: [{move, share (0..1, the width), label (visits), wdl (per mille, optional)}].
    setArrows(moves) {
      this.arrowLayer.innerHTML = "";
      moves.forEach((m, i) => {
        const [x1, y1] = this.xy(m.move.slice(0, 2)), [x2, y2] = this.xy(m.move.slice(2));
        const color = i === 0 ? "#1565c0" : i === 1 ? "#2e7d32" : "#6a1b9a";
        const w = 3 + 9 * Math.max(0.05, m.share);
        const g = el("g", { class: "arrow", "data-move": m.move, opacity: i === 0 ? 0.9 : 0.65 }, this.arrowLayer);
        const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1, ux = dx / len, uy = dy / len;
        const hx = x2 - ux * 14, hy = y2 - uy * 14;
        el("line", { x1, y1, x2: hx, y2: hy, stroke: color, "stroke-width": w, "stroke-linecap": "round" }, g);
        el("polygon", { fill: color, points: [x2, y2, hx - uy * (w + 5), hy + ux * (w + 5), hx + uy * (w + 5), hy - ux * (w + 5)].join(" ") }, g);
        el("circle", { cx: x2 - ux * 24, cy: y2 - uy * 24, r: 13, fill: color }, g);
        el("text", { class: "arrow-label", x: x2 - ux * 24, y: y2 - uy * 24 }, g).textContent = m.label;
        if (m.wdl) {  // the mover's win/draw/loss in percent, under the visits, and in full on hover
          const pct = m.wdl.map((x) => (x / 10).toFixed(0));
          el("text", { class: "arrow-wdl", x: x2 - ux * 24, y: y2 - uy * 24 + 21 }, g).textContent = pct.join("/");
          el("title", {}, g).textContent = m.move + ": " + m.label + " visits, win/draw/loss " + pct.join("/") + " %";
        }
      });
    }

    // cells: {square: weight 0..1} drawn as tinted squares.
    setHeat(cells) {
      this.heatLayer.innerHTML = "";
      for (const sq in cells) {
        if (cells[sq] < 0.02) continue;
        const [x, y] = this.xy(sq);
        el("rect", { class: "heat", x: x - C / 2 + 2, y: y - C / 2 + 2, width: C - 4, height: C - 4, rx: 6,
                     fill: "#ff5722", opacity: (0.05 + 0.6 * cells[sq]).toFixed(3), "data-square": sq }, this.heatLayer);
      }
    }

    clearAnalysis() { this.setArrows([]); this.setHeat({}); }
  }

  return Board;
})();
