#!/usr/bin/env bash
# scripts/search_scaling.sh with --set: the overrides reach `xqzero match` (a bad one fails the
# cell with the match's error and writes nothing), they are written into the cell's line, and
# they are part of the cell's key (the same cell is skipped when run again; the same visits and
# depth without them are a new cell). The engine is the built binary's own `uci` without a net,
# so no Fairy-Stockfish is needed; two games of two visits per move keep it to seconds.
#   usage: tests/scripts/search_scaling_test.sh XQZERO_BINARY   (exit 77: skipped, no python3)
set -euo pipefail
xq="$(realpath "${1:?usage: search_scaling_test.sh XQZERO_BINARY}")"
cd "$(dirname "$0")/../.."
[ -x /usr/bin/python3 ] || { echo "skipped: no /usr/bin/python3"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$tmp/cells.jsonl"
fail() { echo "FAIL: $*" >&2; exit 1; }
scaling() {
  XQZERO="$xq" FSF="$xq uci --set evaluator.name=uniform" bash scripts/search_scaling.sh \
    nets/xqzero-default.xqz nets/long-b/config.textproto --visits 2 --depths 1 --games 2 --concurrency 2 \
    --set evaluator.precision=float32 --out "$out" "$@"
}

# A bad override: the match refuses it, the script says which cell failed, no line is written.
if scaling --set search.algorithm=nonsense > "$tmp/bad.out" 2> "$tmp/bad.err"; then
  fail "a bad --set was accepted"
fi
grep -q "search.algorithm" "$tmp/bad.err" || fail "the match's error does not name the field: $(cat "$tmp/bad.err")"
grep -q "xqzero match failed (visits 2, depth 1)" "$tmp/bad.err" || fail "no failed-cell message: $(cat "$tmp/bad.err")"
[ ! -s "$out" ] || fail "a failed cell wrote a line: $(cat "$out")"
if bash scripts/search_scaling.sh nets/xqzero-default.xqz nets/long-b/config.textproto --set novalue 2> "$tmp/usage.err"; then
  fail "--set without '=' was accepted"
fi
grep -q "wants S.F=V" "$tmp/usage.err" || fail "no usage error for --set novalue: $(cat "$tmp/usage.err")"

# PUCT on the config's Gumbel search: one line with both overrides, in order, and two games.
scaling --set search.algorithm=puct > "$tmp/puct.out" || fail "the PUCT cell failed: $(cat "$tmp/puct.out")"
[ "$(wc -l < "$out")" -eq 1 ] || fail "expected one line: $(cat "$out")"
/usr/bin/python3 - "$out" <<'EOF' || fail "the cell's line: $(cat "$out")"
import json, sys
m = json.loads(open(sys.argv[1]).readline())
assert m["kind"] == "search_scaling" and m["config"] == "nets/long-b/config.textproto", m
assert m["set"] == ["evaluator.precision=float32", "search.algorithm=puct"], m["set"]
assert (m["visits"], m["depth"], m["games"]) == (2, 1, 2), m
assert m["wins"] + m["draws"] + m["losses"] == 2 and m["net_moves"] > 0, m
EOF

# The same cell again is skipped; without the PUCT override it is another cell.
scaling --set search.algorithm=puct > "$tmp/again.out"
grep -q "visits 2 depth 1 already in" "$tmp/again.out" || fail "the same cell was not skipped: $(cat "$tmp/again.out")"
[ "$(wc -l < "$out")" -eq 1 ] || fail "the skipped cell wrote a line: $(cat "$out")"
scaling > "$tmp/gumbel.out" || fail "the cell without the PUCT override failed: $(cat "$tmp/gumbel.out")"
[ "$(wc -l < "$out")" -eq 2 ] || fail "without the override no new cell was played: $(cat "$out")"
/usr/bin/python3 -c 'import json, sys; m = json.loads(open(sys.argv[1]).readlines()[1]); assert m["set"] == ["evaluator.precision=float32"], m' "$out" \
  || fail "the second cell's overrides: $(cat "$out")"
echo "search_scaling --set: ok"
