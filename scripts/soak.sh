#!/usr/bin/env bash
# Soak test of a run directory under kill -9 (issue 24): a short `xqzero train` of the tiny
# config with two self-play workers (`selfplay --follow`, worker ids 1 and 2), killed with
# SIGKILL at random moments, checked at rest, and started again, --kills times. Not part of the
# fast suite: about a minute per kill.
#
# Each round: the trainer starts (resuming), then the workers; after a random 3-12 s one of the
# three (a random choice; all three at once in every fourth round) gets SIGKILL, the others go
# on for 0-3 s more and get SIGKILL too, so that the directory is checked at rest; then the
# checks below run and the next round starts all three again.
# Checks, after every round (a failure stops the soak with the round and the reason):
#   - steps never go back: the step of `latest` is at least the previous round's, and the
#     resumed trainer says it resumes from that checkpoint;
#   - metrics.jsonl has no duplicated line: each (kind, step) of train and generation lines
#     once, steps increasing within each kind, every line whole JSON but possibly the last;
#   - every record file reads (xqzero dump exits 0 on it, the first round it is there) and keeps
#     its bytes in every later round (SHA-256);
#   - no game is on disk twice (no two records with the same network, seed and moves: a worker
#     restarted on the same checkpoint must not replay its earlier games), and the resumed
#     trainer counts exactly the games on disk ("N games ... on disk" = the records).
# At the end it prints its figures: rounds, kills of each process, the last step, checkpoints,
# record files and games, metrics lines, and the wall time.
#
#   usage: scripts/soak.sh [--kills N (20)] [--seed S (1)] [--keep DIR]
#   env: XQZERO (default build/app/xqzero)
set -euo pipefail
cd "$(dirname "$0")/.."
kills=20 seed=1 keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kills) kills="${2:?}" ;; --seed) seed="${2:?}" ;; --keep) keep="${2:?}" ;;
    *) echo "usage: scripts/soak.sh [--kills N] [--seed S] [--keep DIR]" >&2; exit 2 ;;
  esac
  shift 2
done
xq="$(cd "$(dirname "${XQZERO:-build/app/xqzero}")" && pwd)/$(basename "${XQZERO:-build/app/xqzero}")"
[ -x "$xq" ] || { echo "soak: no binary $xq (build first, or set XQZERO)" >&2; exit 2; }
work="${keep:-$(mktemp -d "${TMPDIR:-/tmp}/xqzero-soak.XXXXXX")}"
mkdir -p "$work"
run="$work/run"
RANDOM=$seed
start=$(date +%s)

# The short run: tiny net, short capped games, small files, frequent checkpoints.
settings=(--set selfplay.threads=1 --set selfplay.games_per_thread=8 --set selfplay.games_per_file=2
  --set selfplay.max_plies=60 --set selfplay.full_visits=8 --set selfplay.fast_visits=4
  --set training.min_positions=300 --set training.window_min=300 --set training.batch_size=32
  --set training.checkpoint_every=20 --set training.eval_every=0)

pids=()
# The trainer first; once it has counted the games on disk (or started afresh), the workers.
start_all() {
  local round=$1
  "$xq" train --run-dir "$run" --device cpu "${settings[@]}" >"$work/train-$round.log" 2>&1 &
  pids[0]=$!
  for _ in $(seq 1 600); do
    grep -q -E "on disk$|^train: +[0-9.]+s step " "$work/train-$round.log" 2>/dev/null && break
    sleep 0.1
  done
  for w in 1 2; do
    "$xq" selfplay --follow "$run" --worker-id "$w" --quiet >"$work/worker$w-$round.log" 2>&1 &
    pids[$w]=$!
  done
}

kill_all() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}

fail() { echo "soak: round $1: $2" >&2; echo "soak: the run directory is kept: $run" >&2; exit 1; }

# The checks at rest. Prints "step games files lines" of the directory.
check() {
  local round=$1 prev_step=$2
  local latest_step=-1
  if [ -f "$run/latest" ]; then
    latest_step=$(sed -n 's/^ckpt-0*\([0-9][0-9]*\)\.xqz$/\1/p' "$run/latest")
    [ -n "$latest_step" ] || latest_step=0
  fi
  [ "$latest_step" -ge "$prev_step" ] || fail "$round" "latest went back from step $prev_step to $latest_step"
  # A record file is never changed once it has its name: the files read in earlier rounds must
  # have the same bytes (their SHA-256 sums, in $work/digests); each new one must read.
  if [ -s "$work/digests" ]; then
    sha256sum --quiet -c "$work/digests" >"$work/digests.err" 2>&1 ||
      fail "$round" "a record file changed or vanished after it was read: $(head -c 300 "$work/digests.err")"
  fi
  for f in "$run"/games/*.rec.gz; do
    [ -e "$f" ] || continue
    grep -qF "  $f" "$work/digests" 2>/dev/null && continue
    "$xq" dump "$f" >/dev/null 2>"$work/dump.err" || fail "$round" "record file $f does not read: $(head -c 300 "$work/dump.err")"
    sha256sum "$f" >>"$work/digests"
  done
  PYTHONPATH=python /usr/bin/python3 - "$run" "$round" "$latest_step" <<'PY' || exit 1
import json, sys
from pathlib import Path
from xqzero import records
run, rnd, step = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def fail(why):
    print(f"soak: round {rnd}: {why}", file=sys.stderr)
    sys.exit(1)
lines, seen, last = 0, set(), {}
metrics = run / "metrics.jsonl"
text = metrics.read_text() if metrics.exists() else ""
rows = text.split("\n")
for i, row in enumerate(rows):
    if not row:
        continue
    try:
        m = json.loads(row)
    except ValueError:
        if i == len(rows) - 1:
            continue  # a last line cut by the kill
        fail(f"metrics line {i + 1} is not JSON: {row[:80]}")
    lines += 1
    kind = m.get("kind")
    if kind not in ("train", "generation"):
        continue
    key = (kind, m["step"])
    if key in seen:
        fail(f"metrics line {i + 1} repeats {kind} step {m['step']}")
    seen.add(key)
    if m["step"] < last.get(kind, -1):
        fail(f"metrics line {i + 1}: {kind} step {m['step']} after {last[kind]}")
    last[kind] = m["step"]
games, ids, files = 0, set(), records.record_files(run)
for f in files:
    for g in records.iter_games(f):
        ident = (g.network, g.seed, tuple(g.moves))
        if ident in ids:
            fail(f"a game is on disk twice ({f.name}: seed {g.seed}, {g.network})")
        ids.add(ident)
        games += 1
print(step, games, len(files), lines)
PY
}

declare -A killed=([trainer]=0 [worker1]=0 [worker2]=0)
prev_step=0 games_before=0
for ((round = 1; round <= kills; round++)); do
  start_all "$round"
  log="$work/train-$round.log"
  # The resumed trainer goes on from `latest` and counts exactly the games on disk at rest.
  # (`latest`'s checkpoint, or one newer that a kill between the two writes left, with a warning.)
  if ((prev_step > 0)); then
    resumed=$(sed -n 's/^train: resuming .* (step \([0-9][0-9]*\))$/\1/p' "$log" | head -n 1)
    [ -n "$resumed" ] && [ "$resumed" -ge "$prev_step" ] ||
      fail "$round" "the trainer did not resume at step $prev_step or later: $(grep -m1 -E 'resum|warning|error' "$log")"
  fi
  on_disk=$(sed -n 's/^train: \([0-9][0-9]*\) games and .* on disk$/\1/p' "$log" | head -n 1)
  [ "${on_disk:-0}" -eq "$games_before" ] ||
    fail "$round" "the resumed trainer counts ${on_disk:-0} games on disk, the records hold $games_before"
  sleep "$((3 + RANDOM % 10))"
  if ((round % 4 == 0)); then
    first="trainer worker1 worker2"
  else
    first=$(printf 'trainer\nworker1\nworker2\n' | sed -n "$((1 + RANDOM % 3))p")
  fi
  for v in $first; do
    case $v in trainer) p=${pids[0]} ;; worker1) p=${pids[1]} ;; *) p=${pids[2]} ;; esac
    kill -9 "$p" 2>/dev/null || true
    killed[$v]=$((killed[$v] + 1))
  done
  # The others go on a moment (a worker writing while the trainer is down, or the reverse),
  # then get SIGKILL too, so that the directory is checked at rest.
  sleep "$((RANDOM % 4))"
  kill_all
  result=$(check "$round" "$prev_step") || exit 1
  read -r step games files lines <<<"$result"
  echo "soak: round $round: kill -9 of $first first, then the rest; step $step, $games games in $files files," \
    "$lines metrics lines"
  prev_step=$step games_before=$games
done

echo "soak: $kills rounds, kill -9 of the trainer ${killed[trainer]} times, worker 1 ${killed[worker1]}, worker 2" \
  "${killed[worker2]}; last step $prev_step, $(ls "$run/checkpoints" | wc -l) checkpoints, $games_before games in" \
  "$(ls "$run"/games/*.rec.gz 2>/dev/null | wc -l) record files, no step back, no duplicated metrics line or game," \
  "every file read; $(($(date +%s) - start)) s"
[ -n "$keep" ] || rm -rf "$work"
