#!/usr/bin/env bash
# The page of `xqzero serve` in headless Chromium (tests/app/browser/serve_page.mjs): starts the
# server on a free port with a small run directory, drives the page, and saves screenshots of
# the board and the dashboard to SHOT_DIR. Exits 77 (skipped) when Chromium, node or
# playwright-core is missing: install them with
#   apt-get install chromium nodejs npm fonts-wqy-microhei && npm install --prefix tests/app/browser
# usage: tests/app/serve_browser_test.sh XQZERO_BINARY [SHOT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
xqzero="$1"
shots="${2:-$PWD/serve-screenshots}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
# With XQZERO_REQUIRE_BROWSER=1 (CI sets it) a missing browser is a failure, not a skip.
skip() {
  if [ "${XQZERO_REQUIRE_BROWSER:-0}" = 1 ]; then echo "serve_browser_test: FAILED: $1 (XQZERO_REQUIRE_BROWSER=1)" >&2; exit 1; fi
  echo "serve_browser_test: SKIPPED: $1" >&2; exit 77
}
[ -x "$chromium" ] || skip "no Chromium at $chromium (apt-get install chromium)"
command -v node >/dev/null || skip "no node (apt-get install nodejs)"
[ -d "$here/browser/node_modules/playwright-core" ] || skip "no playwright-core (npm install --prefix tests/app/browser)"

work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
run="$work/demo-run"
mkdir -p "$run/games" "$run/checkpoints" "$shots"
for step in 100 200 300; do
  loss=$(awk "BEGIN { print 3.6 - $step / 400 }")
  heldout=$(awk "BEGIN { print 3.7 - $step / 500 }")
  printf '{"kind":"train","step":%d,"time_s":%d,"policy_loss":%s,"policy_entropy":2.6,"heldout_policy_loss":%s,"value_loss":1.0,"value_entropy":1.05,"search_kl":0.3,"selfplay_positions_per_s":900,"samples_per_s":3000,"red_wins":%d,"black_wins":%d,"draws":%d,"terminations":{"checkmate":%d,"repetition draw":%d}}\n' \
    "$step" "$((step / 10))" "$loss" "$heldout" "$((step / 10))" "$((step / 12))" "$((step / 50))" "$((step / 6))" "$((step / 50))" >>"$run/metrics.jsonl"
done
printf '{"kind":"eval","step":300,"opponent":"random","score":0.8,"elo":240,"elo_margin":90}\n' >>"$run/metrics.jsonl"
# A second run, for the overlaid curves.
other="$work/other-run"
mkdir -p "$other"
for step in 100 200; do
  printf '{"kind":"train","step":%d,"time_s":%d,"policy_loss":%s,"policy_entropy":2.6,"value_loss":1.0,"value_entropy":1.05}\n' \
    "$step" "$((step / 10))" "$(awk "BEGIN { print 3.5 - $step / 300 }")" >>"$other/metrics.jsonl"
done
# One short self-play game for the games list (uniform priors: no net needed).
"$xqzero" selfplay --evaluator uniform --games 1 --visits 8 --quiet --out "$run/games" >/dev/null 2>"$work/selfplay.log" \
  || { cat "$work/selfplay.log" >&2; echo "serve_browser_test: selfplay failed" >&2; exit 1; }

: >"$work/serve.out"  # exists before the server (a child) opens it
"$xqzero" serve --port 0 --run-dir "$run" --run-dir "$other" >"$work/serve.out" 2>"$work/serve.err" &
server=$!
url=""
for _ in $(seq 600); do
  url=$(sed -n 's/^serve: open \(http[^ ]*\)$/\1/p' "$work/serve.out" || true)
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/serve.err" >&2; echo "serve_browser_test: the server did not start" >&2; exit 1; }
echo "serve_browser_test: $url" >&2
node "$here/browser/serve_page.mjs" "$url" "$shots" "$run/metrics.jsonl"
echo "serve_browser_test: screenshots in $shots" >&2
