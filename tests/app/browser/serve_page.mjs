// The page of `xqzero serve` in a real browser (the system Chromium, driven by playwright-core):
// a move made by clicking, analysis arrows and the evaluation read, the PV stepped (also while a
// search runs), four pages analysing at once and three leaving mid-analysis, the
// dashboard's curves seen and followed as metrics.jsonl grows, a game replayed on the board, and
// the board on a phone-sized screen (no sideways scrolling, a move by tapping).
// usage: node serve_page.mjs URL SCREENSHOT_DIR METRICS_FILE
import { chromium } from "playwright-core";
import { appendFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [url, shots, metricsFile] = process.argv.slice(2);
const fail = (msg) => { console.error("browser test: FAILED: " + msg); process.exit(1); };
const check = (ok, msg) => { if (!ok) fail(msg); console.log("browser test: ok: " + msg); };

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
                                        args: ["--no-sandbox", "--disable-gpu"] });
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 980 } });
  page.setDefaultTimeout(120000);
  page.on("pageerror", (e) => errors.push(e.message));
  // Nothing from the internet: every request goes to the server itself (no CDN, no web font).
  const origin = new URL(url).origin;
  const ownOnly = (p) => p.on("request", (r) => {
    if (!r.url().startsWith(origin + "/") && !r.url().startsWith("data:")) errors.push("a request off the server: " + r.url());
  });
  ownOnly(page);
  // The deliberate bad FEN below is answered 400, which Chromium logs; any other error counts.
  page.on("console", (m) => { if (m.type() === "error" && !/status of 400/.test(m.text())) errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('.piece[data-square="h2"][data-piece="C"]');
  check((await page.locator(".piece").count()) === 32, "the start position has 32 pieces");

  // A move by clicking: the cannon h2 to e2 (a target the server listed), then Black's reply.
  await page.click('rect.sq-hit[data-square="h2"]');
  await page.waitForSelector('circle.target[data-move="h2e2"]');
  await page.click('rect.sq-hit[data-square="e2"]');
  await page.waitForFunction(() => XQ.app.moves.join(" ") === "h2e2" && XQ.app.pos.sideToMove === "black");
  check((await page.textContent("#move-list li span")) === "炮二平五", "the move list shows 炮二平五");
  // A click on a square that is no legal target plays nothing.
  await page.click('rect.sq-hit[data-square="e5"]');
  check((await page.evaluate(() => XQ.app.moves.length)) === 1, "a click on an empty square plays nothing");

  // Live analysis: arrows, the evaluation bar, a finished search.
  await page.fill("#visits", "400");
  await page.click("#btn-analyse");
  await page.waitForSelector("#arrow-layer g.arrow");
  await page.waitForFunction(() => document.getElementById("analysis-status").textContent.startsWith("done"));
  const red = parseFloat(await page.getAttribute("#evaltext", "data-red"));
  check(red >= 0 && red <= 1, "the evaluation bar shows Red's expected score " + red.toFixed(3));
  const arrows = await page.locator("#arrow-layer g.arrow").count();
  check(arrows >= 1, arrows + " analysis arrows drawn");
  const wdl = await page.textContent("#arrow-layer g.arrow text.arrow-wdl");
  const parts = wdl.split("/").map(Number);
  check(parts.length === 3 && parts.every((x) => x >= 0 && x <= 100) && Math.abs(parts[0] + parts[1] + parts[2] - 100) <= 2,
        "the first arrow shows the mover's win/draw/loss: " + wdl + " %");
  check(/visits, win\/draw\/loss \d+\/\d+\/\d+ %$/.test(await page.textContent("#arrow-layer g.arrow title")),
        "and names them in full on hover");
  check((await page.locator("#heat-layer rect").count()) > 0, "the policy heat map is drawn");
  check((await page.locator("#moves-table tbody tr").count()) >= 1, "the table lists the top moves");
  // The PV column and the PV line in the chosen notation (Chinese here), ICCS when chosen.
  await page.waitForFunction(() => /^[\u4e00-\u9fff１-９1-9]/.test((document.querySelector("#moves-table td.pv")?.textContent || "")) &&
                                    !/[a-i][0-9][a-i][0-9]/.test(document.getElementById("pv-text").textContent));
  check(true, "the PVs are written in Chinese notation: " + (await page.textContent("#moves-table td.pv")));
  await page.selectOption("#notation", "iccs");
  await page.waitForFunction(() => /^[a-i][0-9][a-i][0-9]( |$)/.test((document.querySelector("#moves-table td.pv")?.textContent || "")));
  check(true, "and in ICCS when ICCS is chosen: " + (await page.textContent("#moves-table td.pv")));
  await page.selectOption("#notation", "chinese");
  await page.screenshot({ path: join(shots, "board.png") });

  // The PV, one step forward and back, leaves the game as it was.
  const sideBefore = await page.evaluate(() => XQ.app.board.side);
  await page.click("#pv-fwd");
  await page.waitForFunction(() => !XQ.app.board.interactive);
  check((await page.evaluate(() => XQ.app.board.side)) !== sideBefore, "a PV step shows the position after it");
  check((await page.locator("#arrow-layer g.arrow").count()) === 0, "a PV step hides the analysed position's arrows");
  await page.click("#pv-back");
  await page.waitForFunction(() => XQ.app.board.interactive);
  check((await page.locator("#arrow-layer g.arrow").count()) >= 1, "back at the analysed position its arrows return");
  check((await page.evaluate(() => XQ.app.moves.length)) === 1, "stepping the PV leaves the game unchanged");
  await page.click("#btn-analyse");  // stop

  // The same while a search runs: the reports that keep arriving never redraw the analysed
  // position's arrows or heat over the PV step (each report did so before the fix in analysis.js).
  const searched = () => page.evaluate(() => {
    const m = document.getElementById("analysis-status").textContent.match(/^searching: (\d+) visits/);
    return m ? parseInt(m[1], 10) : -1;
  });
  const nextReport = (after) => page.waitForFunction((n) => {
    const m = document.getElementById("analysis-status").textContent.match(/^searching: (\d+) visits/);
    return m && parseInt(m[1], 10) > n;
  }, after);
  await page.fill("#visits", "200000");
  await page.click("#btn-analyse");
  await nextReport(50);
  await page.click("#pv-fwd");
  await page.waitForFunction(() => !XQ.app.board.interactive);
  for (let i = 0; i < 2; i++) await nextReport(await searched());
  check((await page.locator("#arrow-layer g.arrow").count()) === 0 && (await page.locator("#heat-layer rect").count()) === 0 &&
        !(await page.evaluate(() => XQ.app.board.interactive)),
        "a PV step stays without the analysed position's arrows and heat while reports arrive (" + (await searched()) + " visits)");
  await page.click("#pv-back");
  await page.waitForFunction(() => XQ.app.board.interactive);
  await nextReport(await searched());
  check((await page.locator("#arrow-layer g.arrow").count()) >= 1, "back at the analysed position, the running search's arrows return");

  // More clients at once: three more pages analyse the start position beside the running search,
  // then go away mid-analysis (closed without a stop); the first page's search goes on.
  const others = await Promise.all([0, 1, 2].map(async () => {
    const p = await browser.newPage({ viewport: { width: 1300, height: 980 } });
    p.setDefaultTimeout(120000);
    p.on("pageerror", (e) => errors.push(e.message));
    ownOnly(p);
    await p.goto(url);
    await p.waitForSelector('.piece[data-square="h2"][data-piece="C"]');
    await p.fill("#visits", "200000");
    await p.click("#btn-analyse");
    return p;
  }));
  await Promise.all(others.map((p) => p.waitForSelector("#arrow-layer g.arrow")));
  check(true, "four pages analyse at once, each with its arrows");
  await Promise.all(others.map((p) => p.close()));
  await nextReport(await searched());
  await nextReport(await searched());
  check(true, "three pages closed mid-analysis; the first page's search still reports (" + (await searched()) + " visits)");
  await page.click("#btn-analyse");  // stop
  await page.fill("#visits", "400");

  // Undo and redo.
  await page.click("#btn-undo");
  await page.waitForFunction(() => XQ.app.moves.length === 0);
  await page.waitForFunction(() => document.querySelector("#move-list li span").textContent === "炮二平五");
  check(true, "a move undone stays in the list in the chosen notation (炮二平五)");
  await page.click("#btn-redo");
  await page.waitForFunction(() => XQ.app.moves.length === 1);
  check(true, "undo and redo");

  // The net plays Black's reply; then a value graph of the game so far.
  await page.fill("#net-visits", "32");
  await page.selectOption("#net-side", "black");
  await page.waitForFunction(() => XQ.app.moves.length === 2 && XQ.app.pos.sideToMove === "red");
  await page.selectOption("#net-side", "");
  check(true, "the net played Black's move " + (await page.evaluate(() => XQ.app.moves[1])));
  await page.fill("#graph-visits", "16");
  await page.click("#btn-graph");
  await page.waitForFunction(() => {
    const l = document.getElementById("graph-line");
    return l && l.getAttribute("points").trim().split(/\s+/).length === 3;
  });
  check(true, "the value graph has a point per ply");

  // Flip: Red's cannon on e2 is drawn in the top half.
  await page.click("#btn-flip");
  const cy = parseFloat(await page.getAttribute('.piece[data-square="e2"] circle', "cy"));
  check(cy < 275, "flipped, e2 is drawn at the top (y " + cy + ")");
  await page.click("#btn-flip");

  // FEN in: a bad one is refused with the server's message, a good one shown.
  await page.fill("#fen", "rnbakabnr/9 w");
  await page.click("#btn-fen");
  await page.waitForSelector("#error:not([hidden])");
  check((await page.textContent("#error")).startsWith("fen:"), "a bad FEN is refused: " + (await page.textContent("#error")));
  await page.fill("#fen", "3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w");
  await page.click("#btn-fen");
  await page.waitForFunction(() => XQ.app.pos.fen.startsWith("3k5/6N2/") && XQ.app.moves.length === 0);
  check((await page.locator(".piece").count()) === 5, "a FEN sets the board");

  // A move by dragging: the rook h6 to d6 mates.
  const centre = async (sq) => {
    const b = await page.locator(`rect.sq-hit[data-square="${sq}"]`).boundingBox();
    return [b.x + b.width / 2, b.y + b.height / 2];
  };
  const [fx, fy] = await centre("h6"), [tx, ty] = await centre("d6");
  await page.mouse.move(fx, fy);
  await page.mouse.down();
  await page.mouse.move(tx, ty, { steps: 6 });
  await page.mouse.up();
  await page.waitForFunction(() => XQ.app.pos.result === "1-0");
  check((await page.textContent("#status")).includes("checkmate"), "a drag plays h6d6: " + (await page.textContent("#status")));

  // The dashboard: curves, then more points as the run writes metrics.jsonl.
  await page.click("#tab-dash");
  await page.waitForSelector("#charts svg polyline.curve");
  const points = () => page.evaluate(() => {
    const c = document.querySelector('#charts polyline.curve[data-label="train · demo-run"]');
    return c ? c.getAttribute("points").trim().split(/\s+/).length : 0;
  });
  const before = await points();
  check(before >= 2, "the policy-loss curve has " + before + " points");
  // Two runs served: both listed, overlaid on one chart (one dash style each), and one hidden
  // by its box.
  check((await page.locator("#run-list input[type=checkbox]").count()) === 2, "both served runs are listed");
  const overlaid = () => page.evaluate(() => [...document.querySelectorAll("#charts .chart:first-child polyline.curve")]
    .map((c) => c.getAttribute("data-label")).filter((l) => l.startsWith("train · ")).sort().join(", "));
  check((await overlaid()) === "train · demo-run, train · other-run", "the runs' curves are overlaid: " + (await overlaid()));
  await page.locator("#run-list input[type=checkbox]").nth(1).uncheck();
  check((await overlaid()) === "", "one run hidden by its box leaves the curves unlabelled by run: " + (await overlaid()));
  await page.locator("#run-list input[type=checkbox]").nth(1).check();
  await page.screenshot({ path: join(shots, "dashboard.png"), fullPage: true });
  appendFileSync(metricsFile, JSON.stringify({ kind: "train", step: 400, time_s: 40, policy_loss: 2.9, policy_entropy: 2.5,
                                                value_loss: 0.9, value_entropy: 1.0, search_kl: 0.2 }) + "\n");
  await page.waitForFunction((n) => {
    const c = document.querySelector('#charts polyline.curve[data-label="train · demo-run"]');
    return c && c.getAttribute("points").trim().split(/\s+/).length > n;
  }, before);
  check(true, "the curve grew without a reload as metrics.jsonl grew");
  // A checkpoint written while the page is open is listed without a reload (the lists follow
  // the run every 10 s).
  writeFileSync(join(dirname(metricsFile), "checkpoints", "ckpt-00000400.xqz"), "not read by the list");
  await page.waitForFunction(() => [...document.querySelectorAll("#ckpt-table tbody td:first-child")]
    .some((td) => td.textContent === "400"), null, { timeout: 30000 });
  check(true, "a new checkpoint appears in the list without a reload");

  // A recent game of the run, replayed on the board.
  await page.waitForSelector("#games-table tbody tr button");
  await page.click("#games-table tbody tr button");
  await page.waitForFunction(() => XQ.app.redoStack.length > 0 && !document.getElementById("board-view").hidden);
  await page.click("#btn-redo");
  await page.waitForFunction(() => XQ.app.moves.length === 1);
  check(true, "a recorded game opens on the board and steps forward");
  const recorded = await page.evaluate(() => document.getElementById("graph-line").getAttribute("points").trim().split(/\s+/).length);
  check(recorded > 10, "its recorded values are drawn on the value graph (" + recorded + " points)");

  // The graph's blunder list and a click on the graph: a game whose values say Black's second
  // move (h9g7) threw away 0.4 of the expected score.
  await page.evaluate(() => XQ.app.graph.showRecord(XQ.app.info.startFen, ["h2e2", "h9g7", "b0c2"], [0, 0, 0.8], "*"));
  await page.waitForFunction(() => document.querySelector("#blunders li")?.textContent === "move 2 (Black) 马8进7: -40%");
  check(true, "the blunder list names the largest drop in the chosen notation (马8进7)");
  await page.click("#blunders li");
  await page.waitForFunction(() => XQ.app.moves.join(" ") === "h2e2" && XQ.app.redoStack.length === 2);
  check(true, "a blunder in the list opens the position before it");
  const g = await page.locator("#graph").boundingBox();
  await page.mouse.click(g.x + (30 + (2 / 3) * 462) / 500 * g.width, g.y + g.height / 2);
  await page.waitForFunction(() => XQ.app.moves.join(" ") === "h2e2 h9g7");
  check(true, "a click on the graph jumps to that ply");

  // A phone in portrait (390 x 844 CSS pixels): one column, the board as wide as the screen
  // allows, nothing wider than the screen (no sideways scrolling).
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true,
                                        hasTouch: true });
  phone.setDefaultTimeout(120000);
  phone.on("pageerror", (e) => errors.push(e.message));
  ownOnly(phone);
  await phone.goto(url);
  await phone.waitForSelector('.piece[data-square="h2"][data-piece="C"]');
  const fit = await phone.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth,
                                            board: document.getElementById("board").getBoundingClientRect().width }));
  check(fit.page <= fit.screen, "on a phone nothing is wider than the screen (" + fit.page + " px in " + fit.screen + ")");
  check(fit.board >= 0.8 * (fit.screen - 40), "on a phone the board takes the screen's width (" + Math.round(fit.board) + " px)");
  await phone.tap('rect.sq-hit[data-square="h2"]');
  await phone.waitForSelector('circle.target[data-move="h2e2"]');
  await phone.tap('rect.sq-hit[data-square="e2"]');
  await phone.waitForFunction(() => XQ.app.moves.join(" ") === "h2e2");
  check(true, "on a phone a move is made by tapping");
  // A drag with a finger (touch events, as a phone sends them): the board does not pan the page
  // instead, and the move is played.
  const touch = await phone.context().newCDPSession(phone);
  const at = async (sq) => {
    const b = await phone.locator(`rect.sq-hit[data-square="${sq}"]`).boundingBox();
    return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  };
  const from = await at("h9"), to = await at("g7");
  await touch.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [from] });
  for (let i = 1; i <= 8; i++)
    await touch.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [{ x: from.x + (to.x - from.x) * i / 8,
                                                                                       y: from.y + (to.y - from.y) * i / 8 }] });
  await touch.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await phone.waitForFunction(() => XQ.app.moves.join(" ") === "h2e2 h9g7");
  check(true, "on a phone a move is made by dragging a piece with a finger");
  await phone.screenshot({ path: join(shots, "board-phone.png"), fullPage: true });
} finally {
  await browser.close();
}
check(errors.length === 0, "no script errors on the page and no request off the server" +
      (errors.length ? ": " + errors.join("; ") : ""));
