// The run dashboard: for each served run, metrics.jsonl followed by polling (only the lines
// not read yet; started over when the file is replaced), the curves scripts/plot_run.py draws
// (several runs overlaid, one dash style each), the checkpoints, and recent games that open on
// the board.
"use strict";
window.XQ = window.XQ || {};

XQ.Dashboard = (function () {
  const PANELS = [
    { title: "Policy loss (nats)", keys: { policy_loss: "train", policy_entropy: "target entropy (floor)", heldout_policy_loss: "held out",
                                   soft_policy_loss: "soft policy (aux)", heldout_soft_policy_loss: "soft held out",
                                   reply_policy_loss: "opponent's reply (aux)", heldout_reply_policy_loss: "reply held out" } },
    { title: "Value loss", keys: { value_loss: "train", value_entropy: "W/D/L entropy (baseline)", heldout_value_loss: "held out",
                                   material_loss: "material (aux)", heldout_material_loss: "material held out",
                                   short_value_loss: "short-term value (aux)", heldout_short_value_loss: "short-term held out" } },
    { title: "Search KL(target || prior)", keys: { search_kl: "self-play search KL" } },
    { title: "Speed (per second, log scale)", keys: { selfplay_positions_per_s: "self-play positions/s", samples_per_s: "trainer samples/s" }, logY: true },
    { title: "Evaluation score (1 win, 0.5 draw)", evalKey: "score", yMin: 0, yMax: 1, hline: 0.5 },
    { title: "Elo vs opponent (95% margin)", evalKey: "elo", errKey: "elo_margin", hline: 0 },
    { title: "Game results per interval (share)", shares: { red_wins: "red wins", draws: "draws", black_wins: "black wins" }, yMin: 0, yMax: 1 },
    { title: "How games ended per interval (share)", terminations: true, yMin: 0, yMax: 1 },
  ];
  const isNum = (x) => typeof x === "number" && isFinite(x);

  return class {
    constructor(app) {
      this.app = app;
      this.timer = null;
      this.runs = (app.info.runs || []).map((name, i) => ({ name, index: i, next: 0, fileId: null, lines: [], on: true }));
      this.$ = (id) => document.getElementById(id);
      const list = this.$("run-list");
      if (!this.runs.length) list.textContent = "No run directories served (start with --run-dir DIR).";
      for (const run of this.runs) {
        const label = document.createElement("label");
        const box = document.createElement("input");
        box.type = "checkbox";
        box.checked = true;
        box.onchange = () => { run.on = box.checked; this.render(); };
        label.append(box, " " + run.name + (this.runs.length > 1 ? " (" + ["solid", "dashed", "dotted", "dash-dot"][run.index % 4] + ")" : ""));
        list.appendChild(label);
        const o = document.createElement("option");
        o.value = o.textContent = run.name;
        this.$("ckpt-run").appendChild(o);
      }
      this.$("ckpt-run").onchange = () => this.loadLists(true);
      this.$("games-file").onchange = () => this.loadGames();
      this.ticks = 0;
    }

    show() {
      if (this.timer) return;
      this.tick();
      this.loadLists(true);
      this.timer = setInterval(() => this.tick(), 2000);
    }

    hide() { clearInterval(this.timer); this.timer = null; }

    // One tick at a time: a tick that outlasts the 2 s interval (a large metrics file, a slow
    // disk) is not started again over itself, which would append the same lines twice.
    async tick() {
      if (this.ticking) return;
      this.ticking = true;
      try {
        await this.tickOnce();
        // Every fifth tick (10 s) the checkpoints and record files too, as the run writes them;
        // the games table stays as it is unless its file was missing before.
        if (++this.ticks % 5 === 0) await this.loadLists(false);
      } finally {
        this.ticking = false;
      }
    }

    async tickOnce() {
      let changed = false;
      for (const run of this.runs) {
        try {
          for (let i = 0; i < 20; i++) {
            const m = await XQ.api.metrics(run.name, run.next);
            const replaced = run.fileId !== null && m.fileId !== run.fileId;
            if (replaced && !m.reset && m.from !== 0) {  // a new file: read it from its start
              run.lines = []; run.next = 0; run.fileId = m.fileId; changed = true;
              continue;
            }
            if (m.reset || replaced) { run.lines = []; changed = true; }
            run.fileId = m.fileId;
            if (m.lines.length) changed = true;
            run.lines.push(...m.lines);
            run.next = m.next;
            if (m.next >= m.total) break;
          }
        } catch (e) {
          this.$("dash-status").textContent = run.name + ": " + e.message;
        }
      }
      const counts = this.runs.map((r) => r.name + ": " + r.lines.length + " lines").join(", ");
      this.$("dash-status").textContent = counts + " · updated " + new Date().toLocaleTimeString();
      if (changed || !this.drawn) this.render();
    }

    series(run, key) {
      return run.lines.filter((m) => m.kind !== "eval" && m.kind !== "generation" && isNum(m.step) && isNum(m[key]))
        .map((m) => [m.step, m[key]]);
    }

    // Shares per logging interval from cumulative counters (which restart with each process):
    // counts(line) gives a line's counters or null.
    shares(run, keys, counts) {
      counts = counts || ((m) => (Object.keys(keys).every((k) => isNum(m[k])) ? m : null));
      const out = {};
      for (const k in keys) out[k] = [];
      let prev = null;
      for (const line of run.lines) {
        const m = line.kind === "train" && isNum(line.step) ? counts(line) : null;
        if (!m) continue;
        let d = {};
        for (const k in keys) d[k] = (m[k] || 0) - (prev ? prev[k] || 0 : 0);
        if (Object.values(d).some((v) => v < 0)) { d = {}; for (const k in keys) d[k] = m[k] || 0; }
        prev = m;
        const total = Object.values(d).reduce((a, b) => a + b, 0);
        if (total > 0) for (const k in keys) out[k].push([line.step, d[k] / total]);
      }
      return out;
    }

    render() {
      this.drawn = true;
      const charts = this.$("charts");
      charts.innerHTML = "";
      const runs = this.runs.filter((r) => r.on);
      const multi = runs.length > 1;
      for (const panel of PANELS) {
        const series = [];
        if (panel.keys) {
          Object.entries(panel.keys).forEach(([key, label], c) => {
            for (const run of runs) series.push({ label: label + (multi ? " · " + run.name : ""), legend: label, color: c, dash: run.index, points: this.series(run, key) });
          });
        } else if (panel.terminations) {
          const names = {};
          for (const run of runs)
            for (const m of run.lines)
              if (m.terminations && typeof m.terminations === "object")
                for (const k in m.terminations) names[k] = Math.max(names[k] || 0, m.terminations[k]);
          const keys = {};
          for (const k of Object.keys(names).sort((a, b) => names[b] - names[a])) keys[k] = k;
          for (const run of runs) {
            const s = this.shares(run, keys, (m) => (m.terminations && typeof m.terminations === "object" ? m.terminations : null));
            Object.keys(keys).forEach((k, c) => series.push({ label: k, legend: k, color: c, dash: run.index, points: s[k] }));
          }
        } else if (panel.shares) {
          const keys = Object.keys(panel.shares);
          for (const run of runs) {
            const s = this.shares(run, panel.shares);
            keys.forEach((k, c) => series.push({ label: panel.shares[k], legend: panel.shares[k], color: c, dash: run.index, points: s[k] }));
          }
        } else {
          const opponents = [...new Set(runs.flatMap((r) => r.lines.filter((m) => m.kind === "eval").map((m) => m.opponent || "?")))].sort();
          opponents.forEach((opp, c) => {
            for (const run of runs) {
              const pts = run.lines.filter((m) => m.kind === "eval" && (m.opponent || "?") === opp && isNum(m.step) && isNum(m[panel.evalKey]))
                .map((m) => [m.step, m[panel.evalKey], panel.errKey && isNum(m[panel.errKey]) ? m[panel.errKey] : 0]);
              series.push({ label: opp, legend: opp, color: c, dash: run.index, points: pts, markers: true });
            }
          });
        }
        if (!series.some((s) => s.points.length)) continue;
        const div = document.createElement("div");
        div.className = "chart";
        charts.appendChild(div);
        XQ.charts.draw(div, series, panel);
      }
      if (!charts.children.length) charts.textContent = "No metrics yet: the curves appear as the run writes metrics.jsonl.";
    }

    // The checkpoints and record files of the chosen run; `reloadGames`: the games table too
    // (else only when the chosen file has changed, as when the run had none before).
    async loadLists(reloadGames) {
      const name = this.$("ckpt-run").value;
      if (!name) return;
      try {
        const c = await XQ.api.checkpoints(name);
        const tbody = this.$("ckpt-table").querySelector("tbody");
        tbody.innerHTML = "";
        for (const k of c.checkpoints.slice().reverse()) {
          const tr = document.createElement("tr");
          const latest = c.latest && k.file.endsWith("/" + c.latest) ? " (latest)" : "";
          for (const t of [k.step, k.file + latest, new Date(k.mtime * 1000).toLocaleString(), (k.bytes / 1048576).toFixed(2)]) {
            const td = document.createElement("td"); td.textContent = t; tr.appendChild(td);
          }
          tbody.appendChild(tr);
        }
        const files = (await XQ.api.recordFiles(name)).files;
        const sel = this.$("games-file"), keep = sel.value;
        sel.innerHTML = "";
        for (const f of files.slice().reverse()) {
          const o = document.createElement("option"); o.value = o.textContent = f.file; sel.appendChild(o);
        }
        if (keep && files.some((f) => f.file === keep)) sel.value = keep;
        if (reloadGames || sel.value !== keep) await this.loadGames();
      } catch (e) {
        this.$("dash-status").textContent = name + ": " + e.message;
      }
    }

    async loadGames() {
      const run = this.$("ckpt-run").value, file = this.$("games-file").value;
      const tbody = this.$("games-table").querySelector("tbody");
      tbody.innerHTML = "";
      if (!run || !file) return;
      const g = await XQ.api.games(run, file);
      for (const game of g.games.slice().reverse()) {
        const tr = document.createElement("tr");
        for (const t of [game.index, game.moves.length, game.result, game.termination]) {
          const td = document.createElement("td"); td.textContent = t; tr.appendChild(td);
        }
        const td = document.createElement("td"), b = document.createElement("button");
        b.textContent = "replay";
        b.onclick = () => {
          const fen = game.startFen || this.app.info.startFen;
          this.app.graph.showRecord(fen, game.moves, game.values, game.result);
          this.app.loadGame(fen, game.moves, 0);
        };
        td.appendChild(b); tr.appendChild(td);
        tbody.appendChild(tr);
      }
    }
  };
})();
