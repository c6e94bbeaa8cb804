#!/usr/bin/env python3
"""Summarises a run's metrics.jsonl (xqzero train) as Markdown tables.

usage: scripts/metrics_summary.py RUN_DIR [--every SECONDS]

Prints the training metrics about every SECONDS of run time (default 300) and every
evaluation result. Only the Python standard library is used.
"""
import json
import math
import sys


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    every = 300.0
    if "--every" in argv:
        every = float(argv[argv.index("--every") + 1])
    path = argv[1].rstrip("/") + "/metrics.jsonl"
    try:
        lines = [json.loads(l) for l in open(path) if l.strip()]
    except (OSError, ValueError) as e:
        print(f"metrics_summary: {path}: {e}", file=sys.stderr)
        return 1
    train = [m for m in lines if m.get("kind") == "train"]
    evals = [m for m in lines if m.get("kind") == "eval"]
    print("| time (min) | step | policy loss | value loss | games | target positions | "
          "self-play positions/s | avg game length | 1-0 / 0-1 / draw |")
    print("|---|---|---|---|---|---|---|---|---|")
    next_time = 0.0
    for i, m in enumerate(train):
        if m["time_s"] + 1e-9 < next_time and i != len(train) - 1:
            continue
        next_time = m["time_s"] + every
        print(f"| {m['time_s'] / 60:.1f} | {m['step']} | {m['policy_loss']:.3f} | {m['value_loss']:.3f} | "
              f"{m['games']} | {m['positions']} | {m['selfplay_positions_per_s']:.0f} | "
              f"{m['avg_game_length']:.1f} | {m['red_wins']} / {m['black_wins']} / {m['draws']} |")
    if evals:
        print()
        print("| step | opponent | games | wins | draws | losses | score | Elo |")
        print("|---|---|---|---|---|---|---|---|")
        for m in evals:
            # Infinite figures are written as null (JSON has no infinity): an Elo is then
            # infinite in the direction of the score, a margin unbounded.
            margin = m["elo_margin"]
            elo = m["elo"]
            if elo is None:
                elo_text = "+inf" if m["score"] > 0.5 else "-inf"
            else:
                elo_text = ("+inf" if elo > 0 else "-inf") if math.isinf(elo) else f"{elo:+.0f}"
            margin_text = "inf" if margin is None or math.isinf(margin) else f"{margin:.0f}"
            print(f"| {m['step']} | {m['opponent']} | {m['games']} | {m['wins']} | {m['draws']} | "
                  f"{m['losses']} | {m['score']:.3f} | {elo_text} +/- {margin_text} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
