"""A minimal UCI client for Fairy-Stockfish playing Xiangqi, shared by the scripts that ask it
for moves and scores (make_evalset.py, first_blunders.py).

Fairy-Stockfish numbers Xiangqi ranks 1..10; xqzero's ICCS moves use 0..9: to_engine and
to_iccs translate.
"""
import re
import subprocess

ENGINE = "/usr/games/fairy-stockfish"
MOVE = re.compile(r"^([a-i])(\d+)([a-i])(\d+)$")


def to_iccs(move):
    m = MOVE.match(move)
    if not m:
        raise ValueError("unexpected engine move " + move)
    return "%s%d%s%d" % (m.group(1), int(m.group(2)) - 1, m.group(3), int(m.group(4)) - 1)


def to_engine(move):
    return "%s%d%s%d" % (move[0], int(move[1]) + 1, move[2], int(move[3]) + 1)


class Engine:
    def __init__(self, command=ENGINE):
        self.p = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.wait_for("uciok")
        self.send("setoption name UCI_Variant value xiangqi")
        self.send("setoption name Threads value 1")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait_for(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def go(self, position, depth):
        """Searches `position` (what follows UCI's `position`, e.g. "startpos moves ...", in the
        engine's notation) to `depth`. Returns (best move in engine notation or None,
        last score as ("cp" or "mate", value) for the side to move, or None)."""
        self.send("position " + position)
        self.send("go depth %d" % depth)
        lines = self.wait_for("bestmove")
        best = lines[-1].split()[1]
        score = None
        for line in lines:
            m = re.search(r" score (cp|mate) (-?\d+)", line)
            if m:
                score = (m.group(1), int(m.group(2)))
        return (None if best == "(none)" else best), score
