// Live analysis of the shown position: one analysis at a time on the server, restarted when
// the position changes, polled while it runs; its top moves drawn as arrows with visits and
// W/D/L, the policy or visits as a heat map, the evaluation bar, the table of moves and a
// steppable principal variation. Also the net's move for play against it (XQ.netMove).
"use strict";
window.XQ = window.XQ || {};

XQ.sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Runs one analysis to its end, calling onUpdate(pollAnswer) after each poll; resolves to the
// last answer. cancel() stops it on the server.
XQ.runAnalysis = function (query, onUpdate, pollMs) {
  let id = null, cancelled = false;
  const done = (async () => {
    const started = await XQ.api.startAnalysis(query);
    id = started.id;
    if (cancelled) { XQ.api.stopAnalysis(id).catch(() => {}); }
    for (;;) {
      await XQ.sleep(pollMs || 250);
      const a = await XQ.api.pollAnalysis(id);
      if (onUpdate) onUpdate(a);
      if (a.done) return a;
    }
  })();
  return {
    done,
    cancel() {
      cancelled = true;
      if (id) XQ.api.stopAnalysis(id).catch(() => {});
    },
  };
};

XQ.Analysis = class {
  constructor(app) {
    this.app = app;
    this.running = false;
    this.job = null;
    this.last = null;       // the newest response for the shown position
    this.pvMove = null;     // the table row whose PV is stepped
    this.pvStep = 0;
    this.pvNamed = new Map();  // PV (ICCS, space-separated) -> its moves' names, for the shown position
    this.pvNaming = null;      // the PV whose names are being asked for (one request at a time)
    this.$ = (id) => document.getElementById(id);
    this.$("btn-analyse").onclick = () => this.toggle();
    this.$("heat").onchange = () => this.draw();
    this.$("pv-back").onclick = () => this.stepPv(-1);
    this.$("pv-fwd").onclick = () => this.stepPv(1);
    this.$("pv-play").onclick = () => this.playPv();
  }

  toggle() {
    this.running = !this.running;
    this.$("btn-analyse").textContent = this.running ? "Stop analysis" : "Start analysis";
    if (this.running) this.positionChanged();
    else this.stop();
  }

  stop() {
    if (this.job) this.job.cancel();
    this.job = null;
  }

  // The board shows a new position: forget the old analysis, start one when running.
  positionChanged() {
    this.stop();
    this.last = null;
    this.pvMove = null;
    this.pvStep = 0;
    this.pvNamed = new Map();
    this.pvNaming = null;
    this.draw();
    const pos = this.app.pos;
    if (!this.running || !pos) return;
    if (pos.result !== "*") { this.$("analysis-status").textContent = "game over: " + pos.termination; return; }
    const visits = Math.max(1, parseInt(this.$("visits").value, 10) || 1000);
    const query = { fen: this.app.startFen, moves: this.app.moves.slice(), maxVisits: visits, multiPV: 10,
                    includePolicy: true, reportDuringSearchEvery: 0.3 };
    const seconds = parseFloat(this.$("seconds").value);
    if (seconds > 0) query.maxTime = seconds;
    const job = XQ.runAnalysis(query, (a) => {
      if (job !== this.job) return;
      const r = a.responses[String(query.moves.length)];
      if (r) { this.last = r; this.draw(); }
    });
    this.job = job;
    this.$("analysis-status").textContent = "searching...";
    job.done.then(() => { if (job === this.job) this.job = null; this.draw(); })
      .catch((e) => { if (job === this.job) { this.job = null; this.$("analysis-status").textContent = "analysis: " + e.message; } });
  }

  draw() {
    const board = this.app.board, r = this.last;
    const tbody = document.querySelector("#moves-table tbody");
    tbody.innerHTML = "";
    if (!r || !r.moveInfos) {
      board.clearAnalysis();
      XQ.setEval(null);
      if (!this.running) this.$("analysis-status").textContent = "";
      this.$("pv-text").textContent = "";
      return;
    }
    const side = XQ.fenSide(r.fen);
    const total = r.moveInfos.reduce((s, m) => s + m.visits, 0) || 1;
    const shown = r.moveInfos.filter((m) => m.visits > 0).slice(0, 5);
    if (this.pvStep > 0) {
      board.clearAnalysis();  // the board shows a PV step: the analysed position's arrows would mislead
    } else {
      board.setArrows(shown.map((m) => ({ move: m.move, share: m.visits / total, wdl: m.wdl,
        label: m.visits >= 1000 ? (m.visits / 1000).toFixed(1) + "k" : String(m.visits) })));
      this.drawHeat(r, total);
    }
    XQ.setEval(XQ.redScore(r.rootInfo.wdl, side), r.rootInfo);
    for (const m of r.moveInfos.slice(0, 10)) {
      const tr = document.createElement("tr");
      if (m.move === this.pvMove) tr.className = "selected";
      const wdl = m.wdl.map((x) => (x / 10).toFixed(0)).join("/");
      const names = this.app.names(m.move);
      for (const text of [names, m.visits, wdl, m.value.toFixed(3), (m.prior * 100).toFixed(1) + "%", this.pvText(m.pv).join(" ")]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      tr.lastChild.className = "pv";
      tr.onclick = () => { this.pvMove = m.move; this.pvStep = 0; this.draw(); };
      tbody.appendChild(tr);
    }
    const ri = r.rootInfo;
    this.$("analysis-status").textContent = (r.isDuringSearch ? "searching: " : "done: ") + ri.visits + " visits, value " +
      ri.value.toFixed(3) + " for " + side + (ri.scoreCp !== undefined ? ", " + ri.scoreCp + " cp" : "") +
      (ri.mate !== undefined ? ", mate in " + ri.mate : "");
    const pv = this.pvText(this.currentPv());
    this.$("pv-text").textContent = pv.length ? pv.slice(0, this.pvStep).join(" ") + " | " + pv.slice(this.pvStep).join(" ") : "";
  }

  // A PV's moves in the chosen notation: their names from the server (the moves played on from
  // the shown position), asked for once per PV and one PV at a time; ICCS until they arrive.
  pvText(pv) {
    const kind = this.app.$("notation").value, key = pv.join(" ");
    const named = this.pvNamed.get(key);
    if (named) return named.map((n) => n[kind]);
    if (kind !== "iccs" && pv.length && this.pvNaming === null) {
      this.pvNaming = key;
      const gen = this.app.generation, base = this.app.moves.length;
      XQ.api.position(this.app.startFen, this.app.moves.concat(pv)).then((p) => {
        if (this.pvNaming === key) this.pvNaming = null;
        if (gen !== this.app.generation) return;
        this.pvNamed.set(key, p.history.slice(base));
        this.draw();
      }).catch(() => {  // kept in ICCS, and not asked for again
        if (this.pvNaming === key) this.pvNaming = null;
        if (gen === this.app.generation) this.pvNamed.set(key, pv.map((m) => ({ iccs: m, wxf: m, chinese: m })));
      });
    }
    return pv;
  }

  drawHeat(r, total) {
    const kind = this.$("heat").value, cells = {};
    if (kind === "policy" && r.policy) {
      const max = Math.max(...Object.values(r.policy), 1e-9);
      for (const mv in r.policy) { const sq = mv.slice(2); cells[sq] = Math.max(cells[sq] || 0, r.policy[mv] / max); }
    } else if (kind === "visits") {
      const max = Math.max(...r.moveInfos.map((m) => m.visits), 1);
      for (const m of r.moveInfos) { const sq = m.move.slice(2); cells[sq] = Math.max(cells[sq] || 0, m.visits / max); }
    }
    this.app.board.setHeat(cells);
  }

  currentPv() {
    if (!this.last || !this.last.moveInfos) return [];
    const m = this.last.moveInfos.find((x) => x.move === this.pvMove) || this.last.moveInfos[0];
    return m ? m.pv : [];
  }

  // Shows the position `pvStep` moves into the PV (0: the analysed one) without leaving it.
  async stepPv(delta) {
    const pv = this.currentPv();
    this.pvStep = Math.max(0, Math.min(pv.length, this.pvStep + delta));
    this.draw();
    await this.app.preview(pv.slice(0, this.pvStep));
  }

  playPv() {
    const pv = this.currentPv().slice(0, this.pvStep);
    if (pv.length) this.app.playMoves(pv);
  }
};

// The evaluation bar: Red's expected score 0..1 (null: none).
XQ.setEval = function (redScore, root) {
  const fill = document.getElementById("evalfill"), text = document.getElementById("evaltext");
  if (redScore === null) { fill.style.height = "50%"; text.textContent = "–"; text.removeAttribute("data-red"); return; }
  fill.style.height = (100 * redScore).toFixed(1) + "%";
  text.setAttribute("data-red", redScore.toFixed(4));
  text.textContent = root && root.mate !== undefined ? "M" + root.mate : (100 * redScore).toFixed(0) + "%";
};

// The net's choice at `visits` for the game (startFen, moves): resolves to an ICCS move.
XQ.netMove = async function (startFen, moves, visits) {
  const job = XQ.runAnalysis({ fen: startFen, moves, maxVisits: visits, multiPV: 1, reportDuringSearchEvery: 60, priority: 1 }, null, 150);
  const a = await job.done;
  const r = a.responses[String(moves.length)];
  if (!r || !r.bestMove) throw new Error(r && r.error ? r.error : "the net found no move");
  return r.bestMove;
};
