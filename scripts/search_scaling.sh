#!/usr/bin/env bash
# Search scaling of one net: it plays Fairy-Stockfish at each visit count in --visits against
# each depth in --depths, with the protocol of scripts/evaluate_run.sh (docs/openings-random4-
# 100.txt, both colours, third-occurrence repetitions, 400-ply cap, CONFIG for the net's
# evaluator and search). `xqzero match` reports no times, so each cell also measures the net's
# time per move: the CPU time of the xqzero process (all its threads, not the engine's, which
# is a separate process; sampled from /proc every 0.2 s, so up to 0.2 s of the end and the
# net's loading are in it) over the net's moves, counted in the match's --out game file
# (moves after the opening, on the net's side), and the match's wall time over the same
# moves (which includes the engine's replies). One game at a time by default (--concurrency),
# so neither is shared with other games. Each cell appends one JSON line (kind
# "search_scaling": net, config, engine, visits, depth, concurrency, games, wins, draws,
# losses, score, elo, elo_lo, elo_hi, net_moves, cpu_s, wall_s, ms_per_move (CPU),
# wall_ms_per_move, and "set": the --set overrides, when there are any) to --out; cells already
# there (same net, config, overrides, engine, visits, depth, games) are skipped. Draw with
# scripts/plot_rating.py. --set S.F=V (repeatable) changes one field of CONFIG for the net's
# side, as `xqzero match --set` does: another root search on the same config, for example.
#   usage: scripts/search_scaling.sh NET CONFIG [--visits "16 64 256 1024"] [--depths "1 2 4 6"]
#          [--games 200] [--concurrency 1] [--set S.F=V ...] [--out FILE]   (default:
#          RUN_DIR/search_scaling.jsonl for a NET in RUN_DIR/checkpoints/, else NET with .xqz
#          replaced by -scaling.jsonl)
#   env: XQZERO (default build/app/xqzero), FSF (engine command, default /usr/games/fairy-stockfish)
set -euo pipefail
cd "$(dirname "$0")/.."
usage='usage: scripts/search_scaling.sh NET CONFIG [--visits "V ..."] [--depths "D ..."] [--games N] [--concurrency K] [--set S.F=V ...] [--out FILE]'
net="${1:?$usage}"
config="${2:?$usage}"
shift 2
visits="16 64 256 1024" depths="1 2 4 6" games=200 concurrency=1 out="${net%.xqz}-scaling.jsonl" sets=()
[ "$(basename "$(dirname "$net")")" != checkpoints ] || out="$(dirname "$(dirname "$net")")/search_scaling.jsonl"
while [ $# -gt 0 ]; do
  case "$1" in
    --visits) visits="${2:?$usage}" ;; --depths) depths="${2:?$usage}" ;; --games) games="${2:?$usage}" ;;
    --concurrency) concurrency="${2:?$usage}" ;; --out) out="${2:?$usage}" ;;
    --set) case "${2:?$usage}" in ?*=*) sets+=("$2") ;; *) echo "search_scaling: --set wants S.F=V, not '$2'" >&2; exit 2 ;; esac ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift 2
done
xq="${XQZERO:-build/app/xqzero}"
fsf="${FSF:-/usr/games/fairy-stockfish}"
for f in "$net" "$config"; do [ -f "$f" ] || { echo "search_scaling: no file $f" >&2; exit 2; }; done
command -v "${fsf%% *}" >/dev/null || { echo "search_scaling: no engine $fsf (apt-get install fairy-stockfish)" >&2; exit 2; }
py() { /usr/bin/python3 -c "import json, sys; sys.path.insert(0, 'scripts'); from plot_rating import *
$1" "${@:2}"; }
tmp="$(mktemp -d)"
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT  # no match left running
tck="$(getconf CLK_TCK)"
set_args=() set_json=null  # the overrides for `xqzero match`, and as the cells' "set" field (none: null)
for s in ${sets[@]+"${sets[@]}"}; do set_args+=(--set "$s"); done
[ ${#sets[@]} -eq 0 ] || set_json="$(py 'print(json.dumps(sys.argv[1:]))' ${sets[@]+"${sets[@]}"})"
touch "$out"
for v in $visits; do
  for d in $depths; do
    if py 'sys.exit(0 if has_cell(sys.argv[1], "search_scaling", ("net", "config", "set", "engine", "visits", "depth", "games"),
                                 sys.argv[2:4] + [json.loads(sys.argv[4])] + sys.argv[5:6] + [int(x) for x in sys.argv[6:9]]) else 1)' \
        "$out" "$net" "$config" "$set_json" "$fsf" "$v" "$d" "$games"; then
      echo "visits $v depth $d already in $out"
      continue
    fi
    start="$(date +%s%N)"
    "$xq" match --a "$net" --b "uci:$fsf" --b-limit depth="$d" --a-limit nodes="$v" --games "$games" \
      --openings docs/openings-random4-100.txt --repetitions 2 --max-plies 400 --concurrency "$concurrency" \
      --quiet --config "$config" ${set_args[@]+"${set_args[@]}"} --out "$tmp/games.txt" < /dev/null > "$tmp/log" &
    pid=$!
    ticks=0
    while kill -0 "$pid" 2>/dev/null; do
      if { read -r stat < "/proc/$pid/stat"; } 2>/dev/null; then
        read -ra f <<< "${stat##*) }"  # the fields after the command name: utime, stime are the 12th, 13th
        ticks=$((f[11] + f[12]))
      fi
      sleep 0.2
    done
    wait "$pid" || { pid=""; echo "search_scaling: xqzero match failed (visits $v, depth $d)" >&2; exit 1; }
    pid=""
    wall_ns=$(($(date +%s%N) - start))
    result="$(tail -n 1 "$tmp/log")"
    line="$(py '
import re
a = sys.argv
moves = 0  # the net (player a) is red in odd-numbered games; its moves after the opening
for game in open(a[2]).read().split("[Game \"")[1:]:
    tag = lambda t, default=None: (re.search(r"\[" + t + r" \"([^\"]*)\"\]", game) or [None, default])[1]
    net_red, black_first = (int(game.split("\"")[0]) - 1) % 2 == 0, tag("FEN").split()[1] == "b"
    plies = range(int(tag("OpeningPlies", 0)), int(tag("Plies")))
    moves += sum(((i % 2 == 0) != black_first) == net_red for i in plies)
cpu, wall, per = int(a[8]) / int(a[9]), int(a[10]) / 1e9, 1000 / max(1, moves)
sets = json.loads(a[12])
print(json_line({"kind": "search_scaling", "net": a[3], "config": a[4], **({"set": sets} if sets else {}), "engine": a[5], "visits": int(a[6]),
                 "depth": int(a[7]), "concurrency": int(a[11]), **result_fields(a[1]), "net_moves": moves,
                 "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "ms_per_move": round(cpu * per, 2),
                 "wall_ms_per_move": round(wall * per, 2)}))
print(f"{moves} net moves, {cpu * per:.2f} ms CPU and {wall * per:.2f} ms wall per move")
' "$result" "$tmp/games.txt" "$net" "$config" "$fsf" "$v" "$d" "$ticks" "$tck" "$wall_ns" "$concurrency" "$set_json")"
    echo "visits $v vs depth $d: $result; ${line#*$'\n'}"
    line="${line%%$'\n'*}"
    printf '%s\n' "$line" >> "$out"
  done
done
echo "search scaling: $out"
