#!/usr/bin/env python3
"""Draws a training run's curves from RUN_DIR/metrics.jsonl (xqzero train) to a PNG.

usage: scripts/plot_run.py RUN_DIR [-o OUT.png] [--compare RUN_DIR2 ...]

Panels against training step (top axis: wall time of RUN_DIR in minutes): policy and value
losses with their baselines, search KL, evaluation scores and Elo, self-play and trainer
speed, game results and how games ended per logging interval. --compare overlays other runs
(one line style per run). Keys a run lacks are skipped. The default output is
RUN_DIR/curves.png. Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import argparse
import json
import math
import os
import sys

try:
    import matplotlib
except ImportError:  # e.g. a pyenv python3 first on PATH: retry with Debian's, which has it
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("plot_run: matplotlib is missing (apt-get install python3-matplotlib)")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

STYLES = ["-", "--", ":", "-."]  # one per run; the first run is solid
SKIPPED_KINDS = ("eval", "generation")


class Run:
    """One run's metrics: `series` holds the train lines (and any new kinds), `evals` the eval lines.
    Every line gets "_min" (wall minutes, summed over resumes, whose time_s restarts at 0) and
    "_seg" (the process it came from)."""

    def __init__(self, name, lines):
        self.name = name
        offset, last, seg = 0.0, 0.0, 0
        for m in lines:
            t = m.get("time_s")
            if isinstance(t, (int, float)) and math.isfinite(t):
                if t < last:
                    offset, seg = offset + last, seg + 1
                last = t
            m["_min"], m["_seg"] = (offset + last) / 60, seg
        self.series = [m for m in lines if m.get("kind") not in SKIPPED_KINDS and is_num(m.get("step"))]
        self.evals = [m for m in lines if m.get("kind") == "eval" and is_num(m.get("step"))]
        self.style = "-"

    def points(self, key):
        """(steps, values) of the series lines that have a finite number under `key`."""
        pts = [(m["step"], m[key]) for m in self.series if is_num(m.get(key))]
        return [p[0] for p in pts], [p[1] for p in pts]

    def has(self, key):
        return any(key in m for m in self.series)


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fail(message):
    print(f"plot_run: {message}", file=sys.stderr)
    sys.exit(2)


def load(run_dir):
    """Reads run_dir/metrics.jsonl (or the file itself); exits with status 2 when it is missing or empty."""
    path = run_dir if os.path.isfile(run_dir) else os.path.join(run_dir, "metrics.jsonl")
    try:
        with open(path) as f:
            text = f.read().splitlines()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    lines = []
    for number, line in enumerate(text, 1):
        if not line.strip():
            continue
        try:
            m = json.loads(line)
            if not isinstance(m, dict):
                raise ValueError("not a JSON object")
            lines.append(m)
        except ValueError as e:
            print(f"plot_run: warning: {path}:{number}: skipped malformed line ({e})", file=sys.stderr)
    if not lines:
        fail(f"{path}: no readable metrics lines")
    name = os.path.basename(os.path.normpath(run_dir if path != run_dir else os.path.dirname(path) or "."))
    return Run(name, lines)


def line_panel(ax, runs, keys, title, ylabel):
    """Lines for `keys` (key -> legend label), one colour per key and one line style per run."""
    for i, (key, label) in enumerate(keys.items()):
        for run in runs:
            x, y = run.points(key)
            if x:
                ax.plot(x, y, run.style, color=f"C{i}", label=label)
                label = None  # one legend entry per key
    ax.set(title=title, xlabel="training step", ylabel=ylabel)
    ax.legend(fontsize="small")


def policy_panel(ax, runs):
    line_panel(ax, runs, {"policy_loss": "policy loss (train)",
                          "policy_entropy": "entropy of search targets (floor)",
                          "heldout_policy_loss": "policy loss (held out)",
                          "soft_policy_loss": "soft policy loss (auxiliary head)",
                          "heldout_soft_policy_loss": "soft policy loss (held out)",
                          "reply_policy_loss": "opponent's reply loss (auxiliary head)",
                          "heldout_reply_policy_loss": "opponent's reply loss (held out)"},
               "Policy loss", "cross-entropy (nats)")


def value_panel(ax, runs):
    line_panel(ax, runs, {"value_loss": "value loss (train)",
                          "value_entropy": "W/D/L class entropy (baseline)",
                          "heldout_value_loss": "value loss (held out)",
                          "material_loss": "material loss (auxiliary head)",
                          "heldout_material_loss": "material loss (held out)",
                          "short_value_loss": "short-term value loss (auxiliary head)",
                          "heldout_short_value_loss": "short-term value loss (held out)"},
               "Value loss", "loss")


def search_panel(ax, runs):
    line_panel(ax, runs, {"search_kl": "KL(search target || prior)"}, "Search improvement (self-play)", "KL (nats)")


def speed_panel(ax, runs):
    line_panel(ax, runs, {"selfplay_positions_per_s": "self-play positions/s (run average)",
                          "samples_per_s": "trainer samples/s"},
               "Speed", "per second (log scale)")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(ticker.LogFormatter(minor_thresholds=(3, 1)))


def opponents(runs):
    return sorted({m.get("opponent", "?") for run in runs for m in run.evals})


def score_panel(ax, runs):
    for i, name in enumerate(opponents(runs)):
        label = name
        for run in runs:
            pts = [(m["step"], m["score"]) for m in run.evals if m.get("opponent", "?") == name and is_num(m.get("score"))]
            if pts:
                ax.plot(*zip(*pts), run.style, marker="o", color=f"C{i}", label=label)
                label = None
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set(title="Evaluation score (1 win, 0.5 draw)", xlabel="training step", ylabel="score", ylim=(-0.02, 1.02))
    ax.legend(fontsize="small", title="opponent")


def elo_panel(ax, runs):
    names = opponents(runs)
    span = max((m["step"] for run in runs for m in run.evals), default=1) or 1
    for i, name in enumerate(names):
        label = name
        for run in runs:
            pts = [m for m in run.evals if m.get("opponent", "?") == name and is_num(m.get("elo"))]
            if not pts:
                continue
            x = [m["step"] + (i - (len(names) - 1) / 2) * 0.006 * span for m in pts]  # keep bars apart
            margin = [m["elo_margin"] if is_num(m.get("elo_margin")) else float("nan") for m in pts]
            if not any(is_num(e) for e in margin):
                margin = None  # matplotlib refuses error bars that are all NaN
            ax.errorbar(x, [m["elo"] for m in pts], yerr=margin, fmt=run.style, marker="o", capsize=3,
                        color=f"C{i}", label=label)
            label = None
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(title="Elo vs opponent, 95% margin (infinite ones not drawn)", xlabel="training step", ylabel="Elo")
    ax.legend(fontsize="small", title="opponent")


def interval_shares(run, counts_of):
    """Per logging interval: (step, {name: share}) from cumulative counters, which restart at 0 with
    each process (a resume), as does time_s."""
    out, prev, seg = [], {}, None
    for m in run.series:
        counts = counts_of(m)
        if counts is None:
            continue
        if m["_seg"] != seg:
            prev, seg = {}, m["_seg"]
        delta = {k: v - prev.get(k, 0) for k, v in counts.items()}
        if min(delta.values(), default=0) < 0:  # restarted without a time_s reset showing it
            delta = counts
        prev, total = counts, sum(delta.values())
        if total > 0:
            out.append((m["step"], {k: v / total for k, v in delta.items()}))
    return out


def stacked_panel(ax, runs, counts_of, names, colours, title):
    """Stacked shares for the first run with data; the stack edges of later runs as lines in their style."""
    filled = False
    for run in runs:
        shares = interval_shares(run, counts_of)
        if not shares:
            continue
        x = [s for s, _ in shares]
        stack = np.cumsum([[d.get(k, 0) for _, d in shares] for k in names], axis=0)
        for j, k in enumerate(names):
            if not filled:
                ax.fill_between(x, stack[j - 1] if j else 0, stack[j], color=colours[j], alpha=0.8, label=k, lw=0)
            elif j < len(names) - 1:
                ax.plot(x, stack[j], run.style, color=colours[j])
        filled = True
    ax.set(title=title, xlabel="training step", ylabel="share of games in interval", ylim=(0, 1))
    ax.legend(fontsize="small", loc="lower left")


def outcome_panel(ax, runs):
    keys = {"red_wins": "red wins", "draws": "draws", "black_wins": "black wins"}

    def counts(m):
        if not all(is_num(m.get(k)) for k in keys):
            return None
        return {label: m[k] for k, label in keys.items()}
    stacked_panel(ax, runs, counts, list(keys.values()), ["tab:red", "silver", "black"], "Game results per interval")


def termination_panel(ax, runs):
    def counts(m):
        t = m.get("terminations")
        return {k: v for k, v in t.items() if is_num(v)} if isinstance(t, dict) else None
    totals = {}
    for run in runs:
        for m in run.series:
            for k, v in (counts(m) or {}).items():
                totals[k] = max(totals.get(k, 0), v)
    names = sorted(totals, key=lambda k: -totals[k])
    stacked_panel(ax, runs, counts, names, [f"C{i % 10}" for i in range(len(names))], "How games ended per interval")


def interp(x, xs, ys):
    """np.interp, extended linearly past both ends (so the top axis ticks beyond the data are right)."""
    x = np.asarray(x, dtype=float)
    y = np.interp(x, xs, ys)
    y = np.where(x < xs[0], ys[0] + (x - xs[0]) * (ys[1] - ys[0]) / (xs[1] - xs[0]), y)
    return np.where(x > xs[-1], ys[-1] + (x - xs[-1]) * (ys[-1] - ys[-2]) / (xs[-1] - xs[-2]), y)


def add_time_axis(ax, run, comparing):
    """A top axis with the wall time (minutes) of `run` at each step."""
    steps, mins = [], []
    for m in run.series:
        if not steps or (m["step"] > steps[-1] and m["_min"] > mins[-1]):
            steps.append(m["step"])
            mins.append(m["_min"])
    if len(steps) < 2:
        return
    top = ax.secondary_xaxis("top", functions=(lambda s: interp(s, steps, mins), lambda t: interp(t, mins, steps)))
    top.set_xlabel("wall time (min)" + (f" of {run.name}" if comparing else ""), fontsize="small")
    top.tick_params(labelsize="small")


PANELS = [  # (draw, shown when: any run has any of these keys; "eval" means eval lines)
    (policy_panel, ["policy_loss", "policy_entropy", "heldout_policy_loss", "soft_policy_loss", "reply_policy_loss"]),
    (value_panel, ["value_loss", "value_entropy", "heldout_value_loss", "material_loss", "heldout_material_loss",
                   "short_value_loss", "heldout_short_value_loss"]),
    (search_panel, ["search_kl"]),
    (speed_panel, ["selfplay_positions_per_s", "samples_per_s"]),
    (score_panel, ["eval"]),
    (elo_panel, ["eval"]),
    (outcome_panel, ["red_wins"]),
    (termination_panel, ["terminations"]),
]


def plot(runs, out):
    shown = [draw for draw, keys in PANELS
             if any(run.evals if k == "eval" else run.has(k) for run in runs for k in keys)]
    if not shown:
        fail(f"{runs[0].name}: no train or eval lines to plot")
    rows = (len(shown) + 1) // 2
    fig, axes = plt.subplots(rows, 2, figsize=(15, 4.6 * rows + 0.8), squeeze=False)
    for ax, draw in zip(axes.flat, shown):
        draw(ax, runs)
        ax.grid(alpha=0.3)
        add_time_axis(ax, runs[0], len(runs) > 1)
    for ax in axes.flat[len(shown):]:
        ax.set_visible(False)
    fig.suptitle("xqzero training run: " + " vs ".join(run.name for run in runs), fontsize="x-large")
    if len(runs) > 1:
        fig.legend(handles=[Line2D([], [], color="k", ls=run.style, label=run.name) for run in runs],
                   loc="upper right", ncol=len(runs), title="run (line style)")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.6 / fig.get_figheight()))
    fig.savefig(out, dpi=100)


def main():
    parser = argparse.ArgumentParser(usage="%(prog)s RUN_DIR [-o OUT.png] [--compare RUN_DIR2 ...]",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", metavar="RUN_DIR")
    parser.add_argument("-o", "--output", metavar="OUT.png", help="default: RUN_DIR/curves.png")
    parser.add_argument("--compare", metavar="RUN_DIR2", nargs="+", default=[], help="runs to overlay")
    args = parser.parse_args()
    runs = [load(d) for d in [args.run_dir] + args.compare]
    for i, run in enumerate(runs):
        run.style = STYLES[i % len(STYLES)]
    out = args.output or os.path.join(args.run_dir if os.path.isdir(args.run_dir) else os.path.dirname(args.run_dir),
                                      "curves.png")
    plot(runs, out)
    print(f"plot_run: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
