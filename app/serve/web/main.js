// The page's state: a game as a start FEN and the moves played (the server checks and plays
// them), the moves taken back (redo), the shown position; the tabs; play against the net.
"use strict";
window.XQ = window.XQ || {};

XQ.App = class {
  constructor() {
    this.startFen = null;
    this.moves = [];
    this.redoStack = [];  // moves taken back, the next one last
    this.pos = null;
    this.generation = 0;  // drops answers for positions no longer shown
    this.netBusy = false;
    this.$ = (id) => document.getElementById(id);
  }

  async init() {
    this.board = new XQ.Board(this.$("board"), (m) => this.userMove(m));
    this.analysis = new XQ.Analysis(this);
    this.graph = new XQ.GameGraph(this);
    this.$("btn-undo").onclick = () => this.undo();
    this.$("btn-redo").onclick = () => this.redo();
    this.$("btn-flip").onclick = () => this.board.setFlipped(!this.board.flipped);
    this.$("btn-new").onclick = () => { this.redoStack = []; this.setGame(this.info.startFen, []); };
    this.$("btn-fen").onclick = () => { this.redoStack = []; this.setGame(this.$("fen").value.trim(), []); };
    this.$("notation").onchange = () => { this.renderMoves(); this.analysis.draw(); this.graph.listBlunders(); };
    this.$("net-side").onchange = () => this.maybeNetMove();
    this.$("btn-net-move").onclick = () => this.maybeNetMove(true);
    for (const tab of document.querySelectorAll(".tab")) tab.onclick = () => this.showView(tab.dataset.view);
    document.addEventListener("keydown", (e) => {
      if (e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA" || e.target.tagName === "SELECT") return;
      if (e.key === "ArrowLeft") this.undo();
      if (e.key === "ArrowRight") this.redo();
    });
    this.info = await XQ.api.info();
    this.$("info").textContent = "xqzero " + this.info.version + " · " + this.info.evaluator;
    this.$("visits").max = this.info.maxVisits;
    this.dashboard = new XQ.Dashboard(this);
    await this.setGame(this.info.startFen, []);
    if (location.hash === "#dashboard") this.showView("dash-view");
  }

  showView(id) {
    for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== id;
    for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.view === id);
    if (id === "dash-view") this.dashboard.show();
    else this.dashboard.hide();
  }

  showError(msg) {
    const e = this.$("error");
    e.textContent = msg || "";
    e.hidden = !msg;
  }

  // Shows the game (fen, moves) as the server plays it; false when the server refused it.
  async setGame(fen, moves) {
    const gen = ++this.generation;
    let pos;
    try {
      pos = await XQ.api.position(fen, moves);
    } catch (e) {
      this.showError(e.message);
      return false;
    }
    if (gen !== this.generation) return false;
    this.showError("");
    this.startFen = pos.startFen;
    this.moves = moves.slice();
    this.pos = pos;
    this.board.setPosition(pos);
    this.board.interactive = true;
    this.$("fen").value = pos.fen;
    const over = pos.result !== "*";
    this.$("status").textContent = over ? "game over: " + pos.result + " (" + pos.termination + ")"
      : pos.sideToMove + " to move" + (pos.inCheck ? ", in check" : "");
    this.renderMoves();
    this.analysis.positionChanged();
    this.graph.draw();
    this.maybeNetMove();
    return true;
  }

  async userMove(m) {
    if (this.netBusy) return;
    try {
      await XQ.api.move(this.startFen, this.moves, m);  // the server's word on legality
    } catch (e) {
      this.showError(e.message);
      return;
    }
    this.redoStack = [];
    await this.setGame(this.startFen, this.moves.concat([m]));
  }

  playMoves(list) {
    this.redoStack = [];
    return this.setGame(this.startFen, this.moves.concat(list));
  }

  undo() {
    if (!this.moves.length || this.netBusy) return;
    const moves = this.moves.slice();
    this.redoStack.push(moves.pop());
    this.setGame(this.startFen, moves);
  }

  redo() {
    if (!this.redoStack.length || this.netBusy) return;
    const m = this.redoStack.pop();
    this.setGame(this.startFen, this.moves.concat([m]));
  }

  // The game (fen, moves) shown at `ply`, the rest kept for redo.
  loadGame(fen, moves, ply) {
    this.redoStack = moves.slice(ply).reverse();
    this.showView("board-view");
    return this.setGame(fen, moves.slice(0, ply));
  }

  // The board alone at the shown game plus `extra` moves (a PV step); the game is unchanged.
  async preview(extra) {
    if (!extra.length) {
      this.board.setPosition(this.pos);
      this.board.interactive = !this.netBusy;
      this.analysis.draw();
      return;
    }
    try {
      const p = await XQ.api.position(this.startFen, this.moves.concat(extra));
      this.board.setPosition(p);
      this.board.clearAnalysis();
      this.board.interactive = false;
    } catch (e) {
      this.showError(e.message);
    }
  }

  // A legal move of the shown position in the chosen notation (ICCS when not found).
  names(iccs) {
    const kind = this.$("notation").value;
    const m = this.pos && this.pos.legal.find((x) => x.iccs === iccs);
    return m ? m[kind] : iccs;
  }

  // The names of every move of `line` (the game and the moves undone or still to replay), from
  // the server once per line: null until they arrive, when the list is drawn again.
  lineNames(line) {
    const key = this.startFen + " " + line.join(" ");
    if (this.namedLine && this.namedLine.key === key) return this.namedLine.history;
    if (this.namingLine !== key) {
      this.namingLine = key;
      XQ.api.position(this.startFen, line).then((p) => {
        this.namedLine = { key, history: p.history };
        if (this.namingLine === key) this.renderMoves();
      }).catch(() => {});  // an illegal line keeps its ICCS
    }
    return null;
  }

  renderMoves() {
    const ol = this.$("move-list"), kind = this.$("notation").value;
    ol.innerHTML = "";
    const line = this.moves.concat(this.redoStack.slice().reverse());
    let history = this.pos ? this.pos.history : [];
    if (line.length > history.length) history = this.lineNames(line) || history;
    line.forEach((m, i) => {
      const li = document.createElement("li");
      const span = document.createElement("span");
      span.textContent = i < history.length ? history[i][kind] : m;
      if (i === this.moves.length - 1) span.className = "current";
      if (i >= this.moves.length) span.style.opacity = 0.5;
      span.onclick = () => this.loadGame(this.startFen, line, i + 1);
      li.appendChild(span);
      ol.appendChild(li);
    });
  }

  // The net plays its side (or, forced, the side to move) at the chosen visits.
  async maybeNetMove(force) {
    const side = this.$("net-side").value;
    if (!this.pos || this.netBusy || this.pos.result !== "*") return;
    if (!force && side !== this.pos.sideToMove) return;
    this.netBusy = true;
    this.board.interactive = false;
    const gen = this.generation, visits = Math.max(1, parseInt(this.$("net-visits").value, 10) || 400);
    this.$("status").textContent = "the net is thinking (" + visits + " visits)...";
    try {
      const m = await XQ.netMove(this.startFen, this.moves, visits);
      this.netBusy = false;
      if (gen === this.generation) { this.redoStack = []; await this.setGame(this.startFen, this.moves.concat([m])); }
    } catch (e) {
      this.showError("net: " + e.message);
    } finally {
      this.netBusy = false;
      this.board.interactive = true;
    }
  }
};

window.addEventListener("DOMContentLoaded", () => {
  XQ.app = new XQ.App();
  XQ.app.init().catch((e) => XQ.app.showError("cannot reach the server: " + e.message));
});
