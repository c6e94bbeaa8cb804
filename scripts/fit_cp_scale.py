#!/usr/bin/env python3
"""Fits the UCI centipawn scale to Fairy-Stockfish's pawn.

The search reports v = W - L for the side to move; GUIs want centipawns. On a labelled set of
positions (docs/evalset-fsf.tsv: FEN, best move, Fairy-Stockfish's depth-10 score in centipawns)
this asks the net for v (`xqzero analyse`, --visits searches per position; 1 = the raw net) and
fits the one-parameter curve v = tanh(cp / S) by least squares over the positions whose score is
not a mate and within --max-cp. Its inverse, cp = S * atanh(v), is then the mapping under which
+100 cp from xqzero means about what +100 cp means to Fairy-Stockfish (app/uci/score.h).

Prints S, the residual, the same for the mapping in use before, and a table of buckets of the
engine's score: how many positions, their mean v, and tanh(cp / S) at the bucket's mean cp.

usage: scripts/fit_cp_scale.py [--xqzero build/app/xqzero] [--model M] [--set docs/evalset-fsf.tsv]
                               [--visits 1] [--max-cp 1500]
"""
import argparse
import json
import math
import subprocess
import sys


def read_set(path):
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 3:
                rows.append((fields[0], int(fields[2])))
    return rows


def net_values(xqzero, model, rows, visits):
    queries = "".join(json.dumps({"id": str(i), "fen": fen, "maxVisits": visits}) + "\n"
                      for i, (fen, _) in enumerate(rows))
    cmd = [xqzero, "analyse"] + (["--model", model] if model else [])
    done = subprocess.run(cmd, input=queries, capture_output=True, text=True, check=True)
    values = {}
    for line in done.stdout.splitlines():
        r = json.loads(line)
        if "error" in r:
            sys.exit(f"fit_cp_scale: query {r.get('id')}: {r['error']}")
        if r.get("isDuringSearch"):
            continue
        values[int(r["id"])] = r["rootInfo"]["value"] if "rootInfo" in r and "value" in r["rootInfo"] else r["value"]
    return [values[i] for i in range(len(rows))], done.stderr.strip()


def sse(scale, pairs):
    return sum((v - math.tanh(cp / scale)) ** 2 for cp, v in pairs)


def fit(pairs):
    lo, hi = 20.0, 5000.0  # golden-section search on the scale (sse is unimodal in it here)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    for _ in range(80):
        if sse(a, pairs) < sse(b, pairs):
            hi, b = b, a
            a = hi - g * (hi - lo)
        else:
            lo, a = a, b
            b = lo + g * (hi - lo)
    return (lo + hi) / 2


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--xqzero", default="build/app/xqzero")
    p.add_argument("--model", default="", help="default: the bundled net")
    p.add_argument("--set", default="docs/evalset-fsf.tsv")
    p.add_argument("--visits", type=int, default=1)
    p.add_argument("--max-cp", type=int, default=1500)
    a = p.parse_args()
    rows = read_set(a.set)
    values, described = net_values(a.xqzero, a.model, rows, a.visits)
    pairs = [(cp, v) for (_, cp), v in zip(rows, values) if abs(cp) <= a.max_cp]
    scale = fit(pairs)
    n = len(pairs)
    rmse = math.sqrt(sse(scale, pairs) / n)
    # The mapping before the fit, cp = 100 tan(1.5 v), as a curve v(cp) = atan(cp / 100) / 1.5.
    old = math.sqrt(sum((v - math.atan(cp / 100) / 1.5) ** 2 for cp, v in pairs) / n)
    print(f"net: {described}")
    print(f"positions: {len(rows)} in {a.set}, {n} with |score| <= {a.max_cp} cp (no mates); visits {a.visits}")
    print(f"fit: v = tanh(cp / S), S = {scale:.0f}; rms residual {rmse:.3f} (cp = 100 tan(1.5 v): {old:.3f})")
    print("| engine cp | positions | mean v | tanh(cp/S) |")
    print("|---|---|---|---|")
    edges = [-a.max_cp, -600, -300, -150, -50, 50, 150, 300, 600, a.max_cp + 1]
    for lo, hi in zip(edges, edges[1:]):
        bucket = [(cp, v) for cp, v in pairs if lo <= cp < hi]
        if bucket:
            mcp = sum(cp for cp, _ in bucket) / len(bucket)
            mv = sum(v for _, v in bucket) / len(bucket)
            print(f"| {lo}..{hi - 1} | {len(bucket)} | {mv:+.3f} | {math.tanh(mcp / scale):+.3f} |")


if __name__ == "__main__":
    main()
