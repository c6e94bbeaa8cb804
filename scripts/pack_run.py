#!/usr/bin/env python3
"""Packs a finished training run into a small folder shaped like a run directory, to commit
under nets/ so that its matches can be replayed on any machine once the run directory is gone:

    DEST/config.textproto          the run's configuration
    DEST/checkpoints/ckpt-N.xqz    the exported weights (xqzero export: no optimiser state) of the
                                   checkpoints nearest the given training minutes (at or before
                                   them, as scripts/rating_curve.sh picks) and of the last one
    DEST/metrics.jsonl             the generation lines of those checkpoints, every eval line and
                                   every --train-every'th train line

scripts/rating_curve.sh DEST and scripts/plot_run.py DEST read it as they read the run. Training
minutes are summed over the run's invocations (time_s restarts in each), as rating_curve.sh does.

usage: scripts/pack_run.py RUN DEST [--minutes "15 30 60 90 120 150"] [--xqzero build/app/xqzero]
                           [--train-every 10] [--note TEXT]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("dest")
    ap.add_argument("--minutes", default="15 30 60 90 120 150")
    ap.add_argument("--xqzero", default="build/app/xqzero")
    ap.add_argument("--train-every", type=int, default=10)
    ap.add_argument("--note", default="")
    a = ap.parse_args()
    targets = [float(x) for x in a.minutes.split()]
    if os.path.exists(a.dest):
        sys.exit(f"pack_run: {a.dest} exists; not writing over it")
    latest_path = os.path.join(a.run, "latest")
    if not os.path.exists(latest_path):
        sys.exit(f"pack_run: {a.run} has no 'latest'")
    latest = open(latest_path).read().strip()

    parsed, gens, offset, last = [], [], 0.0, 0.0
    for text in open(os.path.join(a.run, "metrics.jsonl")):
        text = text.rstrip("\n")
        try:
            m = json.loads(text)
            t = float(m["time_s"])
        except (ValueError, KeyError, TypeError):
            continue  # a partial last line, or a line without a time
        if t < last:
            offset += last
        last = t
        parsed.append((text, m))
        if m.get("kind") == "generation" and os.path.exists(os.path.join(a.run, "checkpoints", m["checkpoint"])):
            gens.append(((offset + t) / 60, m["checkpoint"]))

    keep = {latest}
    for target in targets:
        before = [g for g in gens if g[0] <= target]
        if not before:
            print(f"pack_run: no checkpoint at or before minute {target:g}", file=sys.stderr)
            continue
        at, name = max(before)
        keep.add(name)
        print(f"minute {target:g}: {name} (minute {at:.1f})")

    os.makedirs(os.path.join(a.dest, "checkpoints"))
    note = a.note or f"exported from {os.path.basename(os.path.abspath(a.run))} by scripts/pack_run.py"
    for name in sorted(keep):
        subprocess.run([a.xqzero, "export", os.path.join(a.run, "checkpoints", name),
                        os.path.join(a.dest, "checkpoints", name), "--note", note], check=True)
    out, trains = [], 0
    for text, m in parsed:
        kind = m.get("kind")
        if kind == "generation":
            if m.get("checkpoint") in keep:
                out.append(text)
        elif kind == "train":
            if trains % a.train_every == 0:
                out.append(text)
            trains += 1
        else:
            out.append(text)
    with open(os.path.join(a.dest, "metrics.jsonl"), "w") as f:
        f.write("\n".join(out) + "\n")
    shutil.copyfile(os.path.join(a.run, "config.textproto"), os.path.join(a.dest, "config.textproto"))
    print(f"pack_run: {len(keep)} checkpoints, {len(out)} metrics lines in {a.dest} (last: {latest})")


if __name__ == "__main__":
    main()
