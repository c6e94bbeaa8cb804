// The server's JSON API (docs/serve.md). Every call resolves to the parsed body, or rejects
// with an Error whose message is the server's "error" (and "field", when it names one).
"use strict";
window.XQ = window.XQ || {};

XQ.api = (function () {
  async function call(method, path, body) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const msg = data && data.error ? (data.field ? data.field + ": " : "") + data.error : "HTTP " + res.status;
      const err = new Error(msg);
      err.status = res.status;
      err.field = data && data.field;
      throw err;
    }
    return data;
  }
  return {
    info: () => call("GET", "/api/info"),
    position: (fen, moves) => call("POST", "/api/position", { fen, moves }),
    move: (fen, moves, move) => call("POST", "/api/move", { fen, moves, move }),
    startAnalysis: (query) => call("POST", "/api/analyse", query),
    pollAnalysis: (id) => call("GET", "/api/analyse/" + encodeURIComponent(id)),
    stopAnalysis: (id) => call("POST", "/api/analyse/" + encodeURIComponent(id) + "/stop"),
    runs: () => call("GET", "/api/runs"),
    metrics: (run, from) => call("GET", "/api/runs/" + encodeURIComponent(run) + "/metrics?from=" + from),
    checkpoints: (run) => call("GET", "/api/runs/" + encodeURIComponent(run) + "/checkpoints"),
    recordFiles: (run) => call("GET", "/api/runs/" + encodeURIComponent(run) + "/games"),
    games: (run, file) => call("GET", "/api/runs/" + encodeURIComponent(run) + "/games?file=" + encodeURIComponent(file) + "&limit=100"),
  };
})();

// Red's share of the points (win + draw / 2, 0..1) from a response's wdl (per mille, for the
// side to move) and the side to move.
XQ.redScore = function (wdl, sideToMove) {
  const s = (wdl[0] + wdl[1] / 2) / 1000;
  return sideToMove === "red" ? s : 1 - s;
};

// The side to move of a FEN ("w" or "r": red).
XQ.fenSide = function (fen) {
  const f = (fen || "").trim().split(/\s+/)[1] || "w";
  return f === "b" ? "black" : "red";
};
