"""Tests of the xqzero Python package (unittest, no pytest needed).

    /usr/bin/python3 python/tests/test_xqzero.py --records RUN_DIR_OR_FILE --checkpoint CKPT [--bin XQZERO]

or the same through XQZERO_RECORDS, XQZERO_CHECKPOINT and XQZERO_BIN. Without records or a
checkpoint their tests are skipped; without the binary the cross-checks against `xqzero dump`
and `xqzero judge` are. XQZERO_JUDGE_GAMES (default 8) bounds the games replayed by judge.
"""

import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from xqzero import board, checkpoint, protos, records  # noqa: E402

OPTS = {"records": os.environ.get("XQZERO_RECORDS"), "checkpoint": os.environ.get("XQZERO_CHECKPOINT"),
        "bin": os.environ.get("XQZERO_BIN")}
MAX_DUMP_FILES = 4


def record_paths():
    p = Path(OPTS["records"])
    return [p] if p.is_file() else records.record_files(p)[:MAX_DUMP_FILES]


def need_bin(test):
    if not OPTS["bin"]:
        test.skipTest("no xqzero binary (--bin or XQZERO_BIN)")


def run_bin(*args):
    out = subprocess.run([OPTS["bin"]] + list(args), capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise AssertionError("xqzero %s failed: %s" % (args[0], out.stderr.strip()))
    return out.stdout


class BoardTests(unittest.TestCase):
    def test_label_table(self):
        self.assertEqual(len(board.LABEL_SQUARES), board.NUM_LABELS)
        indices = {board.label_policy_index(l) for l in range(board.NUM_LABELS)}
        self.assertEqual(len(indices), board.NUM_LABELS)
        self.assertTrue(all(0 <= i < board.POLICY_PLANES * 90 for i in indices))
        for l in range(board.NUM_LABELS):
            self.assertEqual(board.mirror_label(board.mirror_label(l)), l)
            for black in (False, True):
                self.assertEqual(board.iccs_to_label(board.label_to_iccs(l, black), black), l)

    def test_black_view_flips_ranks(self):
        self.assertEqual(board.iccs_to_label("h7e7", True), board.iccs_to_label("h2e2", False))
        self.assertEqual(board.label_to_iccs(board.iccs_to_label("h2e2", False), True), "h7e7")
        self.assertEqual(board.label_to_iccs(0, False), "a0b0")  # from-square major: a0's moves first
        self.assertEqual(board.iccs_to_label("a0b1", False), -1)  # no piece steps a0 -> b1
        self.assertNotEqual(board.iccs_to_label("d9e8", True), -1)  # a black advisor step
        self.assertEqual(board.iccs_to_label("d9e8", False), -1)  # outside Red's palace
        self.assertNotEqual(board.iccs_to_label("c9e7", True), -1)  # a black elephant jump

    def test_fen_and_moves(self):
        b = board.Board()
        self.assertEqual(b.fen(), board.START_FEN)
        for m in "h2e2 h9g7 e2e6".split():
            b.push(m)
        # as `xqzero judge --moves "h2e2 h9g7 e2e6"` prints it
        self.assertEqual(b.fen(), "rnbakab1r/9/1c4nc1/p1p1C1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR b - - 0 2")
        self.assertRaises(ValueError, b.push, "e6e5")  # a red piece, black to move
        self.assertEqual(board.Board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w").fen(),
                         board.START_FEN)


def write_records(path, messages, junk=b""):
    raw = bytearray()
    for m in messages:
        data = m.SerializeToString()
        n = len(data)
        while True:
            raw.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                break
        raw += data
    with open(path, "ab") as f:
        f.write(gzip.compress(bytes(raw)) + junk)


class RecordFormatTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="xqzero-test-")
        self.addCleanup(shutil.rmtree, self.dir)
        g = protos.GameRecord(start_fen=board.START_FEN, result="1-0", termination="resignation")
        for move, labels in (("h2e2", ["h2e2", "b2e2"]), ("h9g7", ["h9g7", "b9c7"])):
            m = g.moves.add(move=move, root_value=0.5, visits=10, training_target=True)
            black = len(g.moves) == 2
            m.policy_label.extend(board.iccs_to_label(x, black) for x in labels)
            m.policy_weight.extend([0.75, 0.25])
        self.game = g

    def test_round_trip_and_concatenated_members(self):
        path = os.path.join(self.dir, "a.rec.gz")
        write_records(path, [self.game, self.game])
        write_records(path, [self.game])  # a second gzip member, as `cat a b` makes
        games = records.read_games(path)
        self.assertEqual(len(games), 3)
        g = games[0]
        self.assertEqual(g.moves, ["h2e2", "h9g7"])
        self.assertEqual(g.plies[1].policy_moves, ["h9g7", "b9c7"])
        self.assertEqual(g.plies[1].fen, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1")
        self.assertEqual(len(g.fens), 3)

    def test_errors_name_the_file(self):
        cases = {"cut.rec.gz": "cut short", "junk.rec.gz": "junk after gzip member 1", "plain.rec.gz": "not a gzip file",
                 "nogame.rec.gz": "no start position", "short.rec.gz": "truncated", "empty.rec.gz": "it is empty"}
        p = os.path.join(self.dir, "cut.rec.gz")
        data = self.game.SerializeToString()
        with open(p, "wb") as f:
            f.write(gzip.compress(bytes([len(data)]) + data[:-3]))
        write_records(os.path.join(self.dir, "junk.rec.gz"), [self.game], junk=b"garbage")
        with open(os.path.join(self.dir, "plain.rec.gz"), "wb") as f:
            f.write(b"not gzip at all")
        write_records(os.path.join(self.dir, "nogame.rec.gz"), [protos.GameRecord(result="1-0")])
        whole = gzip.compress(bytes([len(data)]) + data)
        Path(self.dir, "short.rec.gz").write_bytes(whole[:-5])
        Path(self.dir, "empty.rec.gz").write_bytes(b"")
        for name, phrase in cases.items():
            path = os.path.join(self.dir, name)
            with self.assertRaises(ValueError, msg=name) as cm:
                records.read_games(path)
            self.assertIn(path, str(cm.exception))
            self.assertIn(phrase, str(cm.exception))


class RecordDataTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not OPTS["records"]:
            raise unittest.SkipTest("no record file (--records or XQZERO_RECORDS)")
        cls.files = {str(p): records.read_games(p) for p in record_paths()}
        assert cls.files, "no record files in %s" % OPTS["records"]
        cls.games = [g for gs in cls.files.values() for g in gs]

    def test_start_and_replay(self):
        for g in self.games:
            self.assertEqual(g.fens[0], g.start_fen)
            self.assertEqual(len(g.fens), len(g.moves) + 1)
            self.assertEqual([p.fen for p in g.plies], g.fens[:-1])
            if g.termination in ("checkmate", "stalemate"):  # the side to move at the end lost
                self.assertEqual(g.result, "0-1" if " w " in g.final_fen else "1-0")
            kings = board.Board(g.final_fen).squares
            self.assertEqual((kings.count("K"), kings.count("k")), (1, 1))

    def test_policy_targets(self):
        targets = 0
        for g in self.games:
            for p in g.plies:
                b = board.Board(p.fen)
                self.assertNotEqual(board.iccs_to_label(p.move, b.black_to_move), -1, p.move)
                if p.training_target:
                    targets += 1
                    self.assertGreater(len(p.policy_labels), 0)
                if len(p.policy_labels):
                    self.assertAlmostEqual(float(p.policy_weights.sum(dtype=np.float64)), 1.0, delta=1e-3)
                    self.assertTrue((p.policy_weights >= 0).all())
                    self.assertEqual(len(set(p.policy_labels.tolist())), len(p.policy_labels))
                for m in p.policy_moves:  # a mover's piece on the from-square, none on the to-square
                    frm, to = board.parse_iccs(m)
                    self.assertTrue(b.is_own(b.piece_at(frm)), "%s in %s" % (m, p.fen))
                    self.assertFalse(b.is_own(b.piece_at(to)), "%s in %s" % (m, p.fen))
        self.assertGreater(targets, 0)

    def test_matches_dump(self):
        need_bin(self)
        line = re.compile(r"^\s+(\d+)\. (\S+) \S+\s+value ([+-]\d+\.\d{3}) visits\s+(\d+)( target)?(?:\s+\|(.*))?$")
        for path, games in self.files.items():
            out = run_bin("dump", path, "--top", "3").splitlines()
            heads = [l for l in out if l.startswith("game ")]
            self.assertEqual(len(heads), len(games), path)
            self.assertTrue(all(h.endswith(" of %d" % len(games)) for h in heads))
            starts = [l.split("start: ", 1)[1] for l in out if l.startswith("  start: ")]
            self.assertEqual(starts, [g.start_fen for g in games])
            ends = [l.strip() for l in out if l.startswith("  result: ")]
            self.assertEqual(ends, ["result: %s reason: %s" % (g.result, g.termination) for g in games])
            moves = [line.match(l) for l in out if line.match(l)]
            plies = [p for g in games for p in g.plies]
            self.assertEqual(len(moves), len(plies))
            for m, p in zip(moves, plies):
                self.assertEqual((int(m[1]), m[2], m[3], int(m[4]), bool(m[5])),
                                 (p.index + 1, p.move, "%+.3f" % p.root_value, p.visits, p.training_target))
                top = sorted(zip(p.policy_weights.tolist(), p.policy_labels.tolist()), reverse=True)[:3]
                mine = ["%s:%.2f" % (p.policy_moves[p.policy_labels.tolist().index(l)], w) for w, l in top]
                self.assertEqual((m[6] or "").split(), mine, "%s ply %d" % (path, p.index + 1))

    def test_damaged_files_like_dump(self):
        need_bin(self)
        src = Path(next(iter(self.files))).read_bytes()
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in {"junk": src + b"\0x", "cut": src[:-20], "twice": src + src}.items():
                path = os.path.join(tmp, name + ".rec.gz")
                Path(path).write_bytes(data)
                dump = subprocess.run([OPTS["bin"], "dump", path], capture_output=True, text=True, timeout=120)
                try:
                    games = records.read_games(path)
                except ValueError as e:
                    self.assertNotEqual(dump.returncode, 0, name)
                    self.assertIn(str(e).split(": ", 1)[1], dump.stderr, name)  # the same reason
                    continue
                self.assertEqual(dump.returncode, 0, name)
                self.assertEqual(len(games), sum(l.startswith("game ") for l in dump.stdout.splitlines()), name)

    def test_final_position_matches_judge(self):
        need_bin(self)
        n = int(os.environ.get("XQZERO_JUDGE_GAMES", "8"))
        step = max(1, len(self.games) // n)
        for g in self.games[::step][:n]:
            out = run_bin("judge", "--fen", g.start_fen, "--moves", " ".join(g.moves), "--repetitions",
                          str(g.repetitions), "--length-cap", str(g.length_cap), "--natural-limit", str(g.natural_limit))
            fields = dict(l.split(": ", 1) for l in out.splitlines() if ": " in l and not l.startswith("result"))
            self.assertEqual(fields["fen"], g.final_fen)
            self.assertEqual(int(fields["plies"]), len(g.moves))
            verdict = out.strip().splitlines()[-1]
            if not verdict.endswith("reason: ongoing"):  # games the rules ended, not resignations
                self.assertEqual(verdict, "result: %s reason: %s" % (g.result, g.termination))


class CheckpointTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not OPTS["checkpoint"]:
            raise unittest.SkipTest("no checkpoint (--checkpoint or XQZERO_CHECKPOINT)")
        cls.path = OPTS["checkpoint"]
        cls.ck = checkpoint.load(cls.path)

    def test_metadata(self):
        ck = self.ck
        self.assertGreaterEqual(ck.network["blocks"], 1)
        self.assertGreaterEqual(ck.network["channels"], 8)
        self.assertEqual(ck.num_labels, board.NUM_LABELS)
        self.assertEqual(ck.input_planes, checkpoint.input_planes(ck.network))
        self.assertEqual(ck.meta.sections[0].name, "weights")
        m = re.fullmatch(r"ckpt-(\d+)\.xqz", os.path.basename(self.path))
        if m:
            self.assertEqual(ck.step, int(m[1]))

    def test_weights(self):
        shapes = checkpoint.expected_shapes(self.ck.network)
        self.assertEqual(list(self.ck.weights), list(shapes))
        for name, t in self.ck.weights.items():
            self.assertEqual(tuple(t.shape), shapes[name], name)
            self.assertTrue(bool(t.isfinite().all()), name)
            if not name.endswith("num_batches_tracked"):
                self.assertEqual(str(t.dtype), "torch.float32", name)
        for name, t in self.ck.weights.items():
            if name.endswith("running_var"):
                self.assertTrue(bool((t >= 0).all()), name)

    def test_corrupt_copies_raise(self):
        data = Path(self.path).read_bytes()
        meta_len = int.from_bytes(data[12:16], "little")
        weights_mid = 20 + meta_len + self.ck.meta.sections[0].size // 2
        cases = {
            "magic": (lambda d: b"Y" + d[1:], "bad magic"),
            "version": (lambda d: d[:8] + b"\x07" + d[9:], "container version 7"),
            "truncated": (lambda d: d[:-100], "truncated"),
            "header": (lambda d: flip(d, 25), "header or metadata is corrupt"),
            "weights": (lambda d: flip(d, weights_mid), "section 'weights' is corrupt"),
            "last section": (lambda d: flip(d, len(d) - 9), "is corrupt (crc32 mismatch)"),
            "end marker": (lambda d: flip(d, len(d) - 1), "end marker missing"),
            "extra bytes": (lambda d: d + b"\0", "unexpected bytes"),
            "empty": (lambda d: b"", "bad magic"),
        }
        with tempfile.TemporaryDirectory() as tmp:
            for what, (corrupt, phrase) in cases.items():
                bad = os.path.join(tmp, "bad.xqz")
                Path(bad).write_bytes(corrupt(data))
                with self.assertRaises(ValueError, msg=what) as cm:
                    checkpoint.load(bad)
                self.assertIn(bad, str(cm.exception), what)
                self.assertIn(phrase, str(cm.exception), what)


def flip(data, at):
    return data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:]


def main():
    ap = argparse.ArgumentParser(add_help=False)
    for k in OPTS:
        ap.add_argument("--" + k)
    args, rest = ap.parse_known_args()
    OPTS.update({k: v for k, v in vars(args).items() if v})
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
