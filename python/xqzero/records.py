"""Reading game record files (records/record_io.cpp).

A record file is gzip (possibly several concatenated gzip members) of GameRecord messages
(proto/game_record.proto), each preceded by its byte length as a varint. read_games returns
them as plain objects:

    from xqzero import records
    for g in records.read_games("runs/default/games/selfplay-000000.rec.gz"):
        print(g.start_fen, g.result, g.termination, len(g.plies))
        for p in g.plies:          # p.fen is the position before p.move
            print(p.move, p.root_value, p.visits, p.training_target,
                  dict(zip(p.policy_moves, p.policy_weights)))
        print(g.final_fen)

dataclasses.asdict(game) gives a dict. Policy labels are mapped to ICCS moves exactly
(xqzero.board); the raw labels stay in Ply.policy_labels.
"""

import dataclasses
import zlib
from pathlib import Path
from typing import List, Optional

import numpy as np

from . import board as xqboard
from . import protos

MAX_RECORD_BYTES = 64 << 20  # as record_io.cpp: a longer record is a corrupt length


@dataclasses.dataclass
class Ply:
    index: int                  # 0-based ply number within the record
    fen: str                    # the position before the move
    move: str                   # ICCS
    root_value: float           # root mean (win - loss) for the side to move after the search
    root_draw: float            # root draw probability
    visits: int                 # root visits of the search that chose the move
    training_target: bool       # whether the policy target is for training (full search)
    policy_labels: np.ndarray   # uint32, nn/policy_labels.h labels in the mover's view
    policy_weights: np.ndarray  # float32, summing to 1 when present
    policy_moves: List[str]     # ICCS of each label, on the real board


@dataclasses.dataclass
class Game:
    start_fen: str
    moves: List[str]
    result: str                 # "1-0", "0-1", "1/2-1/2"
    termination: str            # "checkmate", "resignation", "length cap", ...
    plies: List[Ply]
    fens: List[str]             # fens[i]: the position after i plies (fens[0] is start_fen's)
    network: str = ""
    config: str = ""
    seed: int = 0
    finished_unix_ms: int = 0
    no_resign: bool = False
    would_resign: int = -1
    repetitions: int = 1
    length_cap: int = 0
    natural_limit: int = 120

    @property
    def final_fen(self):
        return self.fens[-1]


def _fail(path, why):
    raise ValueError("record file %s: %s" % (path, why))


def _decompress(path):
    """Every gzip member of the file, decompressed and joined (as record_io.cpp reads it)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        _fail(path, "not found")
    except OSError as e:
        _fail(path, "cannot read: %s" % (e.strerror or e))
    if raw[:2] != b"\x1f\x8b":
        _fail(path, "not a gzip file (it is empty)" if not raw else "not a gzip file")
    out, rest, members = [], raw, 0
    while rest:
        if rest[:2] != b"\x1f\x8b":
            _fail(path, "junk after gzip member %d at byte offset %d (not another gzip member)"
                  % (members, len(raw) - len(rest)))
        members += 1
        d = zlib.decompressobj(16 + 15)
        try:
            out.append(d.decompress(rest))
        except zlib.error as e:
            _fail(path, "corrupt gzip data in member %d (%s)" % (members, e))
        if not d.eof:
            _fail(path, "truncated (the gzip stream ends early)")
        rest = d.unused_data
    return b"".join(out)


def iter_raw(path):
    """The GameRecord messages of a file, in order."""
    data = _decompress(path)
    cls = protos.message_class("xqzero.GameRecord")
    pos, number = 0, 0
    while pos < len(data):
        number += 1
        size, shift = 0, 0
        while True:
            if pos >= len(data):
                _fail(path, "game record %d is cut short (inside its length)" % number)
            if shift >= 64:
                _fail(path, "corrupt record length at game %d" % number)
            b = data[pos]
            pos += 1
            size |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        if size > MAX_RECORD_BYTES:
            _fail(path, "game record %d says it has %d bytes (a corrupt length?)" % (number, size))
        if pos + size > len(data):
            _fail(path, "game record %d is cut short (the data ends inside it)" % number)
        rec = cls()
        try:
            rec.ParseFromString(data[pos:pos + size])
        except Exception as e:  # DecodeError, whatever the backend
            _fail(path, "corrupt game record %d (%s)" % (number, e))
        pos += size
        if not rec.start_fen:
            _fail(path, "game record %d %s" % (number, "is empty" if size == 0 else "has no start position"))
        yield rec


def game_from_record(rec, where="game"):
    """A Game from one GameRecord message, replaying its moves for the FENs."""
    try:
        b = xqboard.Board(rec.start_fen)
    except ValueError as e:
        raise ValueError("%s: %s" % (where, e))
    fens, plies = [b.fen()], []
    for i, m in enumerate(rec.moves):
        black = b.black_to_move
        labels = np.array(m.policy_label, dtype=np.uint32)
        weights = np.array(m.policy_weight, dtype=np.float32)
        if len(labels) != len(weights):
            raise ValueError("%s move %d: %d policy labels but %d weights" % (where, i + 1, len(labels), len(weights)))
        bad = labels[labels >= xqboard.NUM_LABELS]
        if len(bad):
            raise ValueError("%s move %d: policy label %d out of range" % (where, i + 1, int(bad[0])))
        plies.append(Ply(i, fens[-1], m.move, m.root_value, m.root_draw, m.visits, m.training_target,
                         labels, weights, [xqboard.label_to_iccs(int(l), black) for l in labels]))
        try:
            b.push(m.move)
        except ValueError as e:
            raise ValueError("%s move %d: %s" % (where, i + 1, e))
        fens.append(b.fen())
    return Game(rec.start_fen, [m.move for m in rec.moves], rec.result, rec.termination, plies, fens,
                rec.network, rec.config, rec.seed, rec.finished_unix_ms, rec.no_resign, rec.would_resign,
                rec.repetitions, rec.length_cap, rec.natural_limit)


def iter_games(path):
    """The games of a record file as Game objects, one at a time."""
    for n, rec in enumerate(iter_raw(path), 1):
        yield game_from_record(rec, "record file %s: game %d" % (path, n))


def read_games(path) -> List[Game]:
    """Every game of a record file. Raises ValueError naming the file and the problem."""
    return list(iter_games(path))


def record_files(run_or_games_dir) -> List[Path]:
    """The *.rec.gz files of a run directory's games/ (or of that directory), sorted."""
    d = Path(run_or_games_dir)
    if (d / "games").is_dir():
        d = d / "games"
    return sorted(d.glob("*.rec.gz"))


def read_run(run_dir, limit: Optional[int] = None) -> List[Game]:
    """The games of every record file of a run, file by file (at most `limit` games)."""
    games = []
    for f in record_files(run_dir):
        for g in iter_games(f):
            if limit is not None and len(games) >= limit:
                return games
            games.append(g)
    return games
