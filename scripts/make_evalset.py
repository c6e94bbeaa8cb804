#!/usr/bin/env python3
"""Makes a labelled position set for `xqzero evalset` with Fairy-Stockfish (Debian's
fairy-stockfish package): games of Fairy-Stockfish against itself, each move at a depth drawn
from 1..play-depth, from the random 4-ply openings of docs/openings-random4-100.txt, one
position sampled from each game
(ply 8..100), each labelled by Fairy-Stockfish at a fixed depth with its best move and score.

  usage: scripts/make_evalset.py [--positions 300] [--play-depth 3] [--label-depth 10]
                                 [--seed 1] [--out docs/evalset-fsf.tsv]

Output lines: FEN<TAB>move (ICCS, ranks 0..9)<TAB>score (centipawns for the side to move;
a mate is +-20000). Fairy-Stockfish numbers Xiangqi ranks 1..10; moves are translated.
"""
import argparse
import random
import sys

import fsf_uci
from fsf_uci import to_engine, to_iccs


class Engine(fsf_uci.Engine):
    def go(self, moves, depth):
        """(best move in engine notation or None, score in cp for the side to move; a mate is
        +-20000)"""
        best, score = super().go("startpos" + (" moves " + " ".join(moves) if moves else ""), depth)
        if score is not None and score[0] == "mate":
            return best, (20000 if score[1] > 0 else -20000)
        return best, score and score[1]

    def fen(self, moves):
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send("d")
        for line in self.wait_for("Checkers"):
            if line.startswith("Fen:"):
                return line[4:].strip()
        raise RuntimeError("no Fen line in the engine's d output")

    def close(self):
        self.send("quit")
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--play-depth", type=int, default=3)
    ap.add_argument("--label-depth", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--openings", default="docs/openings-random4-100.txt")
    ap.add_argument("--out", default="docs/evalset-fsf.tsv")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    openings = [l.split() for l in open(a.openings) if l.strip() and not l.startswith("#")]
    eng = Engine()
    seen, rows = set(), []
    games = 0
    while len(rows) < a.positions:
        games += 1
        moves = [to_engine(m) for m in rng.choice(openings)]
        target = rng.randint(8, 100)
        while len(moves) < target:
            best, _ = eng.go(moves, rng.randint(1, a.play_depth))  # varied play from one opening
            if best is None:
                break
            moves.append(best)
        if len(moves) < target:
            continue  # the game ended first
        fen = eng.fen(moves)
        key = " ".join(fen.split()[:2])
        if key in seen:
            continue
        best, score = eng.go(moves, a.label_depth)
        if best is None or score is None:
            continue
        seen.add(key)
        rows.append("%s\t%s\t%d" % (fen, to_iccs(best), score))
        print("%d positions from %d games" % (len(rows), games), file=sys.stderr, end="\r")
    eng.close()
    with open(a.out, "w") as f:
        f.write("# Made by scripts/make_evalset.py --positions %d --play-depth %d --label-depth %d --seed %d\n"
                % (a.positions, a.play_depth, a.label_depth, a.seed))
        f.write("# Fairy-Stockfish self-play at depths 1..%d from docs/openings-random4-100.txt, one position per game\n"
                "# (ply 8..100), labelled by Fairy-Stockfish at depth %d: FEN, best move (ICCS), score in\n"
                "# centipawns for the side to move (mate: +-20000).\n" % (a.play_depth, a.label_depth))
        f.write("\n".join(rows) + "\n")
    print("\nwrote %d positions to %s" % (len(rows), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
