// A game's value graph: every ply of a move list analysed (one query, analyzePlies), Red's
// expected score drawn along the game as the answers come in; a click jumps the board to that
// ply; the largest drops for the side that moved are listed as blunders.
"use strict";
window.XQ = window.XQ || {};

XQ.GameGraph = class {
  constructor(app) {
    this.app = app;
    this.job = null;
    this.scores = [];  // per ply: Red's expected score, or undefined
    this.moves = [];
    this.names = null;  // the moves' names in every notation, from the server (null: not yet)
    this.startFen = null;
    this.svg = document.getElementById("graph");
    document.getElementById("btn-graph").onclick = () => this.start();
    document.getElementById("btn-graph-stop").onclick = () => this.stop();
    this.svg.addEventListener("click", (ev) => this.click(ev));
  }

  stop() { if (this.job) this.job.cancel(); this.job = null; }

  start() {
    this.stop();
    const text = document.getElementById("game-moves").value.trim();
    this.startFen = this.app.startFen;
    this.moves = text ? text.split(/[\s,]+/).filter((m) => m) : this.app.moves.slice();
    this.scores = new Array(this.moves.length + 1);
    this.nameMoves();
    const visits = Math.max(1, parseInt(document.getElementById("graph-visits").value, 10) || 200);
    const plies = [...Array(this.moves.length + 1).keys()];
    const job = XQ.runAnalysis({ fen: this.startFen, moves: this.moves, analyzePlies: plies, maxVisits: visits,
                                 multiPV: 1, priority: -1, reportDuringSearchEvery: 3600 }, (a) => this.update(a), 400);
    this.job = job;
    job.done.catch((e) => this.app.showError("value graph: " + e.message));
    this.draw();
  }

  // A recorded game's own values (the self-play search's root value per move, for the mover:
  // win - loss, so (1 + v) / 2 is the mover's expected score), shown without analysing it.
  showRecord(startFen, moves, values, result) {
    this.stop();
    this.startFen = startFen;
    this.moves = moves.slice();
    this.scores = new Array(moves.length + 1);
    this.nameMoves();
    const redFirst = XQ.fenSide(startFen) === "red";
    values.forEach((v, i) => {
      if (typeof v !== "number") return;
      const redToMove = redFirst === (i % 2 === 0);
      this.scores[i] = redToMove ? (1 + v) / 2 : (1 - v) / 2;
    });
    if (result === "1-0" || result === "0-1" || result === "1/2-1/2")
      this.scores[moves.length] = result === "1-0" ? 1 : result === "0-1" ? 0 : 0.5;
    document.getElementById("game-moves").value = moves.join(" ");
    this.draw();
  }

  // The names of the graph's moves (for the blunder list), asked for once per game.
  nameMoves() {
    this.names = null;
    const fen = this.startFen, moves = this.moves;
    XQ.api.position(fen, moves).then((p) => {
      if (fen === this.startFen && moves === this.moves) { this.names = p.history; this.listBlunders(); }
    }).catch(() => {});  // an illegal line keeps its ICCS
  }

  update(a) {
    for (const k in a.responses) {
      const r = a.responses[k], ply = +k;
      if (r.isDuringSearch) continue;
      if (r.gameOver) {
        const res = r.gameOver.result;
        this.scores[ply] = res === "1-0" ? 1 : res === "0-1" ? 0 : 0.5;
      } else if (r.rootInfo) {
        this.scores[ply] = XQ.redScore(r.rootInfo.wdl, XQ.fenSide(r.fen));
      }
    }
    this.draw();
  }

  draw() {
    const svg = this.svg, W = 500, H = 160, L = 30, R = 8, T = 8, B = 18;
    svg.innerHTML = "";
    const NS = "http://www.w3.org/2000/svg";
    const el = (n, a) => { const e = document.createElementNS(NS, n); for (const k in a) e.setAttribute(k, a[k]); svg.appendChild(e); return e; };
    const n = Math.max(1, this.moves.length);
    const X = (i) => L + (i / n) * (W - L - R), Y = (s) => T + (1 - s) * (H - T - B);
    el("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "#fafafa", stroke: "#ccc" });
    el("line", { x1: L, x2: W - R, y1: Y(0.5), y2: Y(0.5), stroke: "#aaa", "stroke-dasharray": "3 3" });
    for (const s of [0, 0.5, 1]) { const t = el("text", { x: 2, y: Y(s) + 4, "font-size": 10 }); t.textContent = (s * 100) + "%"; }
    const pts = [];
    this.scores.forEach((s, i) => { if (s !== undefined) pts.push(X(i).toFixed(1) + "," + Y(s).toFixed(1)); });
    if (pts.length) el("polyline", { id: "graph-line", points: pts.join(" "), fill: "none", stroke: "#c62828", "stroke-width": 1.8 });
    const cur = this.app.moves.length;
    if (cur <= n) el("line", { x1: X(cur), x2: X(cur), y1: T, y2: H - B, stroke: "#1565c0" });
    const done = this.scores.filter((s) => s !== undefined).length;
    const t = el("text", { x: L + 4, y: H - 4, "font-size": 10 });
    t.textContent = this.moves.length ? `${done}/${this.moves.length + 1} plies analysed (Red's expected score)` : "";
    this.listBlunders();
  }

  listBlunders() {
    const out = [];
    for (let i = 0; i + 1 < this.scores.length; i++) {
      const a = this.scores[i], b = this.scores[i + 1];
      if (a === undefined || b === undefined) continue;
      const redMoved = (XQ.fenSide(this.startFen) === "red") === (i % 2 === 0);
      const drop = redMoved ? a - b : b - a;
      if (drop > 0.1) out.push({ ply: i, drop, move: this.moves[i], side: redMoved ? "Red" : "Black" });
    }
    out.sort((x, y) => y.drop - x.drop);
    const ol = document.getElementById("blunders"), kind = document.getElementById("notation").value;
    ol.innerHTML = "";
    for (const b of out.slice(0, 5)) {
      const li = document.createElement("li");
      const name = this.names && this.names[b.ply] ? this.names[b.ply][kind] : b.move;
      li.textContent = `move ${b.ply + 1} (${b.side}) ${name}: -${(100 * b.drop).toFixed(0)}%`;
      li.style.cursor = "pointer";
      li.onclick = () => this.app.loadGame(this.startFen, this.moves, b.ply);
      ol.appendChild(li);
    }
  }

  click(ev) {
    if (!this.moves.length) return;
    const rect = this.svg.getBoundingClientRect();
    const x = (ev.clientX - rect.left) / rect.width * 500;
    const ply = Math.max(0, Math.min(this.moves.length, Math.round((x - 30) / (500 - 38) * this.moves.length)));
    this.app.loadGame(this.startFen, this.moves, ply);
  }
};
