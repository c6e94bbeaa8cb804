"""Xiangqi boards as FEN, ICCS moves and policy labels, in the project's conventions.

Squares are numbered as in core/types.h: square = rank * 9 + file, file 0..8 = 'a'..'i' from
Red's left, rank 0..9 from Red's side; ICCS names a move by its two squares ("h2e2").
FEN is written as core/fen.cpp writes it: ranks 9 down to 0, "w"/"b", "- -", halfmove clock
(plies since the last capture), fullmove number (incremented after Black's move).

Moves are applied by moving the piece (capturing whatever stands on the target square):
there is no legality checking here; the C++ rules core is the judge.

Policy labels (nn/policy_labels.h) number every geometrically possible move in the mover's
view, where Black's board is flipped rank r -> 9 - r (files are not mirrored). The table is
rebuilt here the same way, so label <-> move is exact.
"""

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
NUM_LABELS = 2062
POLICY_PLANES = 50
_LETTERS = {"E": "B", "H": "N"}  # aliases core/types.cpp reads; FEN is written with B and N


def make_square(file, rank):
    return rank * 9 + file


def square_name(s):
    return "abcdefghi"[s % 9] + str(s // 9)


def parse_square(text):
    if len(text) != 2 or text[0] not in "abcdefghi" or text[1] not in "0123456789":
        raise ValueError("bad square %r" % text)
    return make_square(ord(text[0]) - ord("a"), int(text[1]))


def parse_iccs(move):
    """(from, to) squares of an ICCS move such as "h2e2"."""
    if len(move) != 4:
        raise ValueError("bad ICCS move %r" % move)
    return parse_square(move[:2]), parse_square(move[2:])


def view_square(black, s):
    """The square `s` as the mover sees it (nn/encoding.h): ranks flipped for Black."""
    return make_square(s % 9, 9 - s // 9) if black else s


class Board:
    """A position: 90 squares holding FEN piece letters (or None), side and counters."""

    def __init__(self, fen=START_FEN):
        fields = fen.split()
        if len(fields) < 2:
            raise ValueError("bad FEN %r: expected at least a board and a side to move" % fen)
        rows = fields[0].split("/")
        if len(rows) != 10:
            raise ValueError("bad FEN %r: %d ranks, expected 10" % (fen, len(rows)))
        self.squares = [None] * 90
        for i, row in enumerate(rows):
            rank, file = 9 - i, 0
            for c in row:
                if c.isdigit():
                    file += int(c)
                else:
                    if file >= 9 or c.upper() not in "KABNRCPEH":
                        raise ValueError("bad FEN %r: rank %d" % (fen, rank))
                    up = _LETTERS.get(c.upper(), c.upper())
                    self.squares[make_square(file, rank)] = up if c.isupper() else up.lower()
                    file += 1
            if file != 9:
                raise ValueError("bad FEN %r: rank %d has width %d" % (fen, rank, file))
        if fields[1] not in ("w", "r", "b"):
            raise ValueError("bad FEN %r: side to move %r" % (fen, fields[1]))
        self.black_to_move = fields[1] == "b"
        self.halfmove = int(fields[4]) if len(fields) > 4 else 0
        self.fullmove = int(fields[5]) if len(fields) > 5 else 1

    def fen(self):
        rows = []
        for rank in range(9, -1, -1):
            row, gap = "", 0
            for file in range(9):
                p = self.squares[make_square(file, rank)]
                if p is None:
                    gap += 1
                    continue
                row += (str(gap) if gap else "") + p
                gap = 0
            rows.append(row + (str(gap) if gap else ""))
        side = "b" if self.black_to_move else "w"
        return "%s %s - - %d %d" % ("/".join(rows), side, self.halfmove, self.fullmove)

    def piece_at(self, square):
        return self.squares[square]

    def is_own(self, piece):
        """Whether `piece` (a FEN letter) belongs to the side to move."""
        return piece is not None and piece.islower() == self.black_to_move

    def push(self, move):
        """Plays an ICCS move: the piece on its from-square (which must be the mover's) goes
        to its to-square. Returns the captured piece letter or None."""
        frm, to = parse_iccs(move)
        piece = self.squares[frm]
        if not self.is_own(piece):
            raise ValueError("move %s: no %s piece on %s in %s" % (
                move, "black" if self.black_to_move else "red", move[:2], self.fen()))
        captured = self.squares[to]
        if self.is_own(captured):
            raise ValueError("move %s captures its own piece in %s" % (move, self.fen()))
        self.squares[to], self.squares[frm] = piece, None
        self.halfmove = 0 if captured else self.halfmove + 1
        if self.black_to_move:
            self.fullmove += 1
        self.black_to_move = not self.black_to_move
        return captured


# --- policy labels (nn/policy_labels.cpp) ---------------------------------------------------

_ELEPHANT_POINTS = {make_square(2, 0), make_square(6, 0), make_square(0, 2), make_square(4, 2),
                    make_square(8, 2), make_square(2, 4), make_square(6, 4)}


def _advisor_point(s):
    f, r = s % 9, s // 9
    return r <= 2 and 3 <= f <= 5 and (f == 4) == (r == 1)


def move_type(frm, to):
    """The policy plane of a from -> to step in the mover's view, or -1 when no piece makes it."""
    if frm == to:
        return -1
    df, dr = to % 9 - frm % 9, to // 9 - frm // 9
    if dr == 0:
        return df - 1 if df > 0 else 8 + (-df - 1)
    if df == 0:
        return 16 + dr - 1 if dr > 0 else 25 + (-dr - 1)
    af, ar = abs(df), abs(dr)
    if (af, ar) in ((1, 2), (2, 1)):
        return 34 + (0 if df > 0 else 1) + (0 if dr > 0 else 2) + (0 if ar == 2 else 4)
    diag = (0 if df > 0 else 1) + (0 if dr > 0 else 2)
    if af == 1 and ar == 1:
        return 42 + diag if _advisor_point(frm) and _advisor_point(to) else -1
    if af == 2 and ar == 2:
        return 46 + diag if frm in _ELEPHANT_POINTS and to in _ELEPHANT_POINTS else -1
    return -1


def _build_labels():
    frm_to, index = [], {}
    for f in range(90):
        for t in range(90):
            if move_type(f, t) >= 0:
                index[(f, t)] = len(frm_to)
                frm_to.append((f, t))
    if len(frm_to) != NUM_LABELS:
        raise AssertionError("policy label table has %d labels, expected %d" % (len(frm_to), NUM_LABELS))
    return frm_to, index


LABEL_SQUARES, _LABEL_INDEX = _build_labels()  # label -> (from, to) in the mover's view


def label_to_iccs(label, black):
    """The ICCS move (real board squares) that `label` means for the mover (black: bool)."""
    f, t = LABEL_SQUARES[label]
    return square_name(view_square(black, f)) + square_name(view_square(black, t))


def iccs_to_label(move, black):
    """The label of an ICCS move played by the mover, or -1 when no piece could make it."""
    f, t = parse_iccs(move)
    return _LABEL_INDEX.get((view_square(black, f), view_square(black, t)), -1)


def label_policy_index(label):
    """Flat index of `label` in the policy head's output map (move type * 90 + from-square)."""
    f, t = LABEL_SQUARES[label]
    return move_type(f, t) * 90 + f


def mirror_label(label):
    """The label of the left-right mirrored move (files a <-> i)."""
    f, t = LABEL_SQUARES[label]
    return _LABEL_INDEX[(make_square(8 - f % 9, f // 9), make_square(8 - t % 9, t // 9))]
