#!/usr/bin/env bash
# The final matches of docs/results.md for one training run: its newest net (or the
# checkpoint given) against the random mover, the one-ply greedy player, Fairy-Stockfish at
# depth 1 (when /usr/games/fairy-stockfish is installed; FSF_DEPTHS="1 2 4" for a ladder) and
# the run's first net, each over the 100 openings of docs/openings-random4-100.txt with both
# colours (200 games), the net at 16 visits, third-occurrence repetition judging, 400-ply cap.
# Prints each match's result line.
#   usage: scripts/evaluate_run.sh RUN_DIR [CHECKPOINT] [GAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
run="${1:?usage: scripts/evaluate_run.sh RUN_DIR [CHECKPOINT] [GAMES]}"
net="${2:-$run/checkpoints/$(tr -d '[:space:]' < "$run/latest")}"
games="${3:-200}"
xq="${XQZERO:-build/app/xqzero}"
first="$run/checkpoints/ckpt-00000000.xqz"
common=(--games "$games" --openings docs/openings-random4-100.txt --repetitions 2 --max-plies 400
        --concurrency 2 --quiet --config "$run/config.textproto" --a-limit nodes=16)
echo "net: $net"
for b in random greedy; do
  echo "vs $b: $("$xq" match --a "$net" --b "$b" "${common[@]}" | tail -n 1)"
done
if [ -x /usr/games/fairy-stockfish ]; then
  for d in ${FSF_DEPTHS:-1}; do
    echo "vs fairy-stockfish depth $d: $("$xq" match --a "$net" --b uci:/usr/games/fairy-stockfish \
      --b-limit depth="$d" "${common[@]}" | tail -n 1)"
  done
fi
echo "vs first net: $("$xq" match --a "$net" --b "$first" --b-limit nodes=16 "${common[@]}" | tail -n 1)"
