#!/usr/bin/env bash
# scripts/search_scaling.sh with --set: the overrides reach `xqzero match` (a bad one fails the
# cell with the match's error and writes nothing), they are written into the cell's line, and
# they are part of the cell's key (the same cell is skipped when run again; the same visits and
# depth with fewer overrides, or none, are new cells, the last without a "set" field, as lines
# written before --set existed). The engine is the built binary's own `uci` without a net, so
# no Fairy-Stockfish is needed; two games of two visits per move keep each cell to seconds.
#   usage: tests/scripts/search_scaling_test.sh XQZERO_BINARY   (exit 77: skipped, no python3)
set -euo pipefail
xq="$(realpath "${1:?usage: search_scaling_test.sh XQZERO_BINARY}")"
cd "$(dirname "$0")/../.."
[ -x /usr/bin/python3 ] || { echo "skipped: no /usr/bin/python3"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$tmp/cells.jsonl"
fail() { echo "FAIL: $*" >&2; exit 1; }
# The bundled net's config in float32 (no timing of the two precisions at start), so that a
# cell without any override is quick too.
config="$tmp/config.textproto"
sed 's/precision: "[a-z0-9]*"/precision: "float32"/' nets/long-b/config.textproto > "$config"
grep -q 'precision: "float32"' "$config" || fail "no evaluator precision in nets/long-b/config.textproto"
scaling() {
  XQZERO="$xq" FSF="$xq uci --set evaluator.name=uniform" bash scripts/search_scaling.sh \
    nets/xqzero-default.xqz "$config" --visits 2 --depths 1 --games 2 --concurrency 2 --out "$out" "$@"
}
cells() { if [ -s "$out" ]; then wc -l < "$out"; else echo 0; fi; }

# A bad override: the match refuses it, the script says which cell failed, no line is written.
if scaling --set search.algorithm=nonsense > "$tmp/bad.out" 2> "$tmp/bad.err"; then
  fail "a bad --set was accepted"
fi
grep -q "search.algorithm" "$tmp/bad.err" || fail "the match's error does not name the field: $(cat "$tmp/bad.err")"
grep -q "xqzero match failed (visits 2, depth 1)" "$tmp/bad.err" || fail "no failed-cell message: $(cat "$tmp/bad.err")"
[ "$(cells)" -eq 0 ] || fail "a failed cell wrote a line: $(cat "$out")"
if bash scripts/search_scaling.sh nets/xqzero-default.xqz "$config" --set novalue 2> "$tmp/usage.err"; then
  fail "--set without '=' was accepted"
fi
grep -q "wants S.F=V" "$tmp/usage.err" || fail "no usage error for --set novalue: $(cat "$tmp/usage.err")"

# PUCT on the config's Gumbel search: one line with both overrides, in order, and two games.
scaling --set search.algorithm=puct --set search.c_puct_init=2 > "$tmp/puct.out" ||
  fail "the PUCT cell failed: $(cat "$tmp/puct.out")"
[ "$(cells)" -eq 1 ] || fail "expected one line: $(cat "$out")"
/usr/bin/python3 - "$out" "$config" << 'PY' || fail "the cell's line: $(cat "$out")"
import json, sys
m = json.loads(open(sys.argv[1]).readline())
assert m["kind"] == "search_scaling" and m["config"] == sys.argv[2], m
assert m["set"] == ["search.algorithm=puct", "search.c_puct_init=2"], m["set"]
assert (m["visits"], m["depth"], m["games"]) == (2, 1, 2), m
assert m["wins"] + m["draws"] + m["losses"] == 2 and m["net_moves"] > 0, m
PY

# The same cell again is skipped; with one override fewer, or none, it is another cell.
scaling --set search.algorithm=puct --set search.c_puct_init=2 > "$tmp/again.out"
grep -q "visits 2 depth 1 already in" "$tmp/again.out" || fail "the same cell was not skipped: $(cat "$tmp/again.out")"
[ "$(cells)" -eq 1 ] || fail "the skipped cell wrote a line: $(cat "$out")"
scaling --set search.algorithm=puct > "$tmp/one.out" || fail "the cell with one override failed: $(cat "$tmp/one.out")"
scaling > "$tmp/none.out" || fail "the cell without overrides failed: $(cat "$tmp/none.out")"
[ "$(cells)" -eq 3 ] || fail "expected three cells: $(cat "$out")"
/usr/bin/python3 - "$out" << 'PY' || fail "the second and third cells: $(cat "$out")"
import json, sys
lines = [json.loads(x) for x in open(sys.argv[1])]
assert lines[1]["set"] == ["search.algorithm=puct"], lines[1]
assert "set" not in lines[2] and lines[2]["games"] == 2, lines[2]
PY
scaling > "$tmp/none-again.out"
grep -q "visits 2 depth 1 already in" "$tmp/none-again.out" || fail "the cell without overrides was not skipped"
[ "$(cells)" -eq 3 ] || fail "the skipped cell without overrides wrote a line: $(cat "$out")"
echo "search_scaling --set: ok"
