#!/usr/bin/env python3
"""Draws rating curves and search scaling from the JSON lines of scripts/rating_curve.sh and
scripts/search_scaling.sh.

usage: scripts/plot_rating.py FILE... -o OUT.png

Rating-curve lines (kind "rating_curve"): one panel of Elo against training minutes (log-2
axis; checkpoints at minute 0 cannot sit on it and are left out of it) and one of Elo against
self-play positions, a line per (run, engine depth, visits) with 95% intervals as error bars.
Printed: per line, the Elo gained per doubling of training time, the least-squares slope of
Elo over log2(minutes), with the points used. Search-scaling lines (kind "search_scaling"):
a third panel of Elo against visits, a line per depth, and a markdown table per net, config
and --set overrides (visits by depth: score, Elo with its 95% interval, the net's time per
move, games). Infinite estimates and bounds (all wins or all losses) are drawn clipped at
+-CLIP Elo (triangles mark clipped estimates); infinite estimates are left out of the fits.
Both are said on stdout.

Also a module: the match scripts turn `xqzero match`'s result line into fields with
result_fields() and write them with json_line().
"""
import argparse
import json
import math
import os
import re
import sys

Z95 = 1.959963984540054  # as selfplay/elo.cpp
CLIP = 800.0
RESULT = re.compile(r"games (\d+) wins (\d+) draws (\d+) losses (\d+) score (\S+) elo (\S+)")


def elo_from_score(s):
    if not s > 0:
        return -math.inf
    if not s < 1:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_interval(w, d, l):
    """(score, elo, lower, upper) exactly as selfplay/elo.cpp's estimate_elo: the interval from
    the outcome variance with one pseudo-game of each outcome."""
    n = w + d + l
    if n <= 0:
        return 0.0, 0.0, -math.inf, math.inf
    s = (w + 0.5 * d) / n
    m_ = n + 3
    pw, pd, pl = (w + 1) / m_, (d + 1) / m_, (l + 1) / m_
    m = pw + 0.5 * pd
    var = (pw * (1 - m) ** 2 + pd * (0.5 - m) ** 2 + pl * m * m) / n
    half = Z95 * math.sqrt(var)
    return s, elo_from_score(s), elo_from_score(s - half), elo_from_score(s + half)


def result_fields(line):
    """games, wins, draws, losses, score, elo, elo_lo, elo_hi from the last line of `xqzero match`
    ("result: a vs b: games N wins W draws D losses L score S elo E ... (95%)"). The line prints
    the interval as a symmetric margin (or omits it when the estimate is infinite), so the bounds
    are recomputed from W/D/L with the same formula; the estimate is checked against the line's."""
    m = RESULT.search(line)
    if not m:
        raise ValueError(f"not a match result line: {line!r}")
    n, w, d, l = (int(m.group(i)) for i in range(1, 5))
    s, elo, lo, hi = elo_interval(w, d, l)
    printed = float(m.group(6))
    if n != w + d + l or abs(s - float(m.group(5))) > 6e-4 or not (printed == elo or abs(printed - elo) < 0.06):
        raise ValueError(f"result line disagrees with its W/D/L: {line!r}")
    return {"games": n, "wins": w, "draws": d, "losses": l, "score": round(s, 4),
            "elo": round(elo, 1), "elo_lo": round(lo, 1), "elo_hi": round(hi, 1)}


def json_line(fields):
    """One JSON line; infinite numbers become the strings "+inf" and "-inf" (JSON has no infinity)."""
    def value(v):
        if isinstance(v, float):
            return ("+inf" if v > 0 else "-inf") if math.isinf(v) else v
        return v
    return json.dumps({k: value(v) for k, v in fields.items()})


def has_cell(path, kind, keys, values):
    """Whether the JSON-lines file `path` already holds a `kind` line whose `keys` equal `values`
    (the scripts skip such cells, so an interrupted curve or table resumes)."""
    for text in open(path):
        try:
            m = json.loads(text)
        except ValueError:
            continue
        if m.get("kind") == kind and [m.get(k) for k in keys] == list(values):
            return True
    return False


def num(v):
    """A field as a float: numbers, "+inf"/"-inf"; None for anything else."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def engine(m):
    """The opponent's short name: the engine command's file name."""
    return os.path.basename(str(m.get("engine", "fairy-stockfish")).split()[0])


def clip(x):
    return max(-CLIP, min(CLIP, x))


def elo_text(c):
    elo, lo, hi = num(c["elo"]), num(c["elo_lo"]), num(c["elo_hi"])
    if all(map(math.isfinite, (elo, lo, hi))):
        return f"{elo:+.0f} ± {(hi - lo) / 2:.0f}"
    f = lambda x: f"{x:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")  # noqa: E731
    return f"{f(elo)} [{f(lo)}, {f(hi)}]"


def load(paths):
    lines = []
    for path in paths:
        with open(path) as f:
            for number, text in enumerate(f, 1):
                if not text.strip():
                    continue
                try:
                    m = json.loads(text)
                    if num(m.get("elo")) is None or num(m.get("elo_lo")) is None or num(m.get("elo_hi")) is None:
                        raise ValueError("no elo, elo_lo, elo_hi")
                    lines.append(m)
                except (ValueError, AttributeError) as e:
                    print(f"plot_rating: warning: {path}:{number}: skipped ({e})", file=sys.stderr)
    return lines


def group(lines, key):
    groups = {}
    for m in lines:
        groups.setdefault(key(m), []).append(m)
    return groups


def errorbars(ax, x, cells, label, color):
    """Points at x with their 95% intervals, everything clipped at +-CLIP."""
    y = [clip(num(c["elo"])) for c in cells]
    lo = [yi - clip(num(c["elo_lo"])) for yi, c in zip(y, cells)]
    hi = [clip(num(c["elo_hi"])) - yi for yi, c in zip(y, cells)]
    ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=label, color=color)
    clipped = [(xi, yi) for xi, yi, c in zip(x, y, cells) if math.isinf(num(c["elo"]))]
    for xi, yi in clipped:
        ax.plot([xi], [yi], "^" if yi > 0 else "v", color=color, markersize=10)


def fit_doubling(cells):
    """Least-squares slope of Elo over log2(minutes), from the cells with minutes > 0 and a finite
    estimate; returns (slope or None, used cells, left-out cells with why)."""
    used, out = [], []
    for c in cells:
        if not num(c.get("minutes")) or num(c["minutes"]) <= 0:
            out.append((c, "minute 0"))
        elif math.isinf(num(c["elo"])):
            out.append((c, "infinite Elo"))
        else:
            used.append(c)
    if len({c["minutes"] for c in used}) < 2:
        return None, used, out
    xs = [math.log2(num(c["minutes"])) for c in used]
    ys = [num(c["elo"]) for c in used]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return slope, used, out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("-o", "--out", required=True, help="the PNG to write")
    args = p.parse_args()
    try:
        import matplotlib
    except ImportError:  # e.g. a pyenv python3 first on PATH: retry with Debian's, which has it
        if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("plot_rating: matplotlib is missing (apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    lines = load(args.files)
    curve = [m for m in lines if m.get("kind") == "rating_curve"]
    scaling = [m for m in lines if m.get("kind") == "search_scaling"]
    if not curve and not scaling:
        sys.exit("plot_rating: no rating_curve or search_scaling lines in " + " ".join(args.files))
    panels = (2 if curve else 0) + (1 if scaling else 0)
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 5), squeeze=False)
    axes = list(axes[0])
    clipped = sum(1 for c in curve + scaling for k in ("elo", "elo_lo", "elo_hi") if math.isinf(num(c[k])))

    if curve:
        ax_min, ax_pos = axes[0], axes[1]
        groups = group(curve, lambda m: (m.get("run", "?"), engine(m), int(m["depth"]), int(m.get("visits", 0))))
        for i, ((run, eng, depth, visits), cells) in enumerate(sorted(groups.items())):
            cells.sort(key=lambda c: (num(c["minutes"]), c.get("step", 0)))
            label = f"{run}, {eng} d{depth}, {visits} visits"
            timed = [c for c in cells if num(c["minutes"]) > 0]
            if timed:
                errorbars(ax_min, [num(c["minutes"]) for c in timed], timed, label, f"C{i}")
            errorbars(ax_pos, [num(c["positions"]) for c in cells], cells, label, f"C{i}")
            slope, used, out = fit_doubling(cells)
            pts = ", ".join(f"{num(c['minutes']):g} min {num(c['elo']):+.0f}" for c in used)
            left = "; left out: " + ", ".join(f"{c['checkpoint']} ({why})" for c, why in out) if out else ""
            if slope is None:
                print(f"{label}: too few points for a slope ({pts or 'none'}){left}")
            else:
                print(f"{label}: {slope:+.1f} Elo per doubling of training time "
                      f"(least squares over {len(used)} points: {pts}){left}")
        ax_min.set_xscale("log", base=2)
        ax_min.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        ax_min.set(title="Elo against training time", xlabel="training minutes (log 2)",
                   ylabel="Elo vs the engine (95% interval)")
        ax_pos.set(title="Elo against self-play positions", xlabel="self-play positions",
                   ylabel="Elo vs the engine (95% interval)")
        for ax in (ax_min, ax_pos):
            ax.grid(alpha=0.3)
            ax.legend(fontsize="small")

    if scaling:
        ax = axes[-1]
        colour = 0
        settings = lambda m: (m.get("net", "?"), m.get("config", "?"), " ".join(m.get("set") or []), engine(m))
        for (net, config, sets, eng), cells in sorted(group(scaling, settings).items()):
            by_depth = group(cells, lambda m: int(m["depth"]))
            name = f"{os.path.basename(net)} ({os.path.basename(config)}{', ' + sets if sets else ''})"
            for depth, dc in sorted(by_depth.items()):
                dc.sort(key=lambda c: int(c["visits"]))
                errorbars(ax, [int(c["visits"]) for c in dc], dc, f"{name}, {eng} d{depth}", f"C{colour}")
                colour += 1
            visits = sorted({int(c["visits"]) for c in cells})
            depths = sorted(by_depth)
            cell = {(int(c["visits"]), int(c["depth"])): c for c in cells}
            print(f"\n{net} with {config}{' --set ' + sets if sets else ''} against {eng}: score, Elo (95%) and "
                  f"the net's time per move (CPU ms of the xqzero process, wall ms in brackets, per move of the net)\n")
            print("| visits | " + " | ".join(f"depth {d}" for d in depths) + " |")
            print("|---:|" + "---|" * len(depths))
            for v in visits:
                row = []
                for d in depths:
                    c = cell.get((v, d))
                    row.append("" if c is None else f"{num(c['score']):.3f}, {elo_text(c)}, "
                               f"{num(c['ms_per_move']):.1f} ms ({num(c['wall_ms_per_move']):.1f}), "
                               f"{int(c['games'])} games")
                print(f"| {v} | " + " | ".join(row) + " |")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        ax.set(title="Elo against visits per move", xlabel="visits per move (log 2)",
               ylabel="Elo vs the engine (95% interval)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")

    fig.tight_layout(rect=(0, 0.03 if clipped else 0, 1, 1))
    if clipped:
        fig.text(0.995, 0.005, f"infinite Elo (all wins or losses) drawn at ±{CLIP:g}", ha="right", va="bottom",
                 fontsize="small", color="gray")
        print(f"\nnote: {clipped} infinite Elo estimates or bounds (all wins or all losses) are drawn clipped at "
              f"+-{CLIP:g} (triangles: clipped estimates); infinite estimates are not in the slopes")
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
