#!/usr/bin/env bash
# A training run's rating curve: for each training time in --minutes, the run's checkpoint
# closest to it and not after it plays Fairy-Stockfish at each depth in --depths, with the
# protocol of scripts/evaluate_run.sh (docs/openings-random4-100.txt, both colours, the net
# at --visits, third-occurrence repetitions, 400-ply cap, the run's config.textproto).
# Training time is the run's wall time summed over resumes (metrics.jsonl's time_s restarts
# at 0 in each process, so each drop of time_s adds the previous process's last value, as
# scripts/plot_run.py does); ckpt-00000000.xqz counts as minute 0. Each match appends one
# JSON line (kind "rating_curve": run, checkpoint, minutes (the checkpoint's), target_minutes,
# step, positions, engine, depth, visits, games, wins, draws, losses, score, elo, elo_lo, elo_hi;
# infinite Elo as "+inf"/"-inf") to --out; cells already there (same run, checkpoint, engine,
# depth, visits, games) are skipped, so an interrupted curve resumes. Draw with scripts/plot_rating.py.
#   usage: scripts/rating_curve.sh RUN_DIR [--minutes "7.5 15 30 60"] [--depths "1 2"]
#          [--games 200] [--visits 16] [--concurrency 2] [--out RUN_DIR/rating_curve.jsonl]
#   env: XQZERO (default build/app/xqzero), FSF (engine command, default /usr/games/fairy-stockfish)
set -euo pipefail
cd "$(dirname "$0")/.."
usage='usage: scripts/rating_curve.sh RUN_DIR [--minutes "M ..."] [--depths "D ..."] [--games N] [--visits V] [--concurrency K] [--out FILE]'
run="${1:?$usage}"
shift
minutes="7.5 15 30 60" depths="1 2" games=200 visits=16 concurrency=2 out="$run/rating_curve.jsonl"
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="${2:?$usage}" ;; --depths) depths="${2:?$usage}" ;; --games) games="${2:?$usage}" ;;
    --visits) visits="${2:?$usage}" ;; --concurrency) concurrency="${2:?$usage}" ;; --out) out="${2:?$usage}" ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift 2
done
xq="${XQZERO:-build/app/xqzero}"
fsf="${FSF:-/usr/games/fairy-stockfish}"
[ -f "$run/metrics.jsonl" ] || { echo "rating_curve: no $run/metrics.jsonl" >&2; exit 2; }
command -v "${fsf%% *}" >/dev/null || { echo "rating_curve: no engine $fsf (apt-get install fairy-stockfish)" >&2; exit 2; }
name="$(basename "$(cd "$run" && pwd)")"
py() { /usr/bin/python3 -c "import sys; sys.path.insert(0, 'scripts'); from plot_rating import *
$1" "${@:2}"; }

read -ra mins <<< "$minutes"
# One line per minute: target minutes, checkpoint, step, positions, the checkpoint's minutes.
picks="$(py '
import json, os
run, targets = sys.argv[1], [float(x) for x in sys.argv[2:]]
ckpts, offset, last = [], 0.0, 0.0
if os.path.exists(os.path.join(run, "checkpoints", "ckpt-00000000.xqz")):
    ckpts.append((0.0, "ckpt-00000000.xqz", 0, 0))
for text in open(os.path.join(run, "metrics.jsonl")):
    try:
        m = json.loads(text)
        t = float(m["time_s"])
    except (ValueError, KeyError, TypeError):
        continue
    if t < last:
        offset += last
    last = t
    if m.get("kind") == "generation" and os.path.exists(os.path.join(run, "checkpoints", m["checkpoint"])):
        ckpts.append(((offset + t) / 60, m["checkpoint"], m["step"], m["positions"]))
for target in targets:
    before = [c for c in ckpts if c[0] <= target]
    if not before:
        print(f"rating_curve: no checkpoint at or before minute {target:g}", file=sys.stderr)
        continue
    t, ckpt, step, positions = max(before)
    print(f"{target:g} {ckpt} {step} {positions} {t:.3f}")
' "$run" "${mins[@]}")"

touch "$out"
while read -r target ckpt step positions at; do
  [ -n "$target" ] || continue
  for d in $depths; do
    if py 'sys.exit(0 if has_cell(sys.argv[1], "rating_curve", ("run", "checkpoint", "engine", "depth", "visits", "games"), sys.argv[2:5] + [int(x) for x in sys.argv[5:8]]) else 1)' \
        "$out" "$name" "$ckpt" "$fsf" "$d" "$visits" "$games"; then
      echo "minute $target: $ckpt depth $d already in $out"
      continue
    fi
    result="$("$xq" match --a "$run/checkpoints/$ckpt" --b "uci:$fsf" --b-limit depth="$d" --a-limit nodes="$visits" \
      --games "$games" --openings docs/openings-random4-100.txt --repetitions 2 --max-plies 400 \
      --concurrency "$concurrency" --quiet --config "$run/config.textproto" < /dev/null | tail -n 1)"
    echo "minute $target ($ckpt, $at min, step $step) vs depth $d: $result"
    line="$(py '
a = sys.argv
print(json_line({"kind": "rating_curve", "run": a[2], "checkpoint": a[3], "minutes": float(a[4]),
                 "target_minutes": float(a[5]), "step": int(a[6]), "positions": int(a[7]), "engine": a[8],
                 "depth": int(a[9]), "visits": int(a[10]), **result_fields(a[1])}))
' "$result" "$name" "$ckpt" "$at" "$target" "$step" "$positions" "$fsf" "$d" "$visits")"
    printf '%s\n' "$line" >> "$out"
  done
done <<< "$picks"
echo "rating curve: $out"
