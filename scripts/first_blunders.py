#!/usr/bin/env python3
"""Where a net loses its games: the first big mistake of each game, judged by Fairy-Stockfish.

Reads a match's game file (`xqzero match ... --out FILE`), replays every game, and for each move
of the player named by --player (a substring of the PGN-style Red/Black tag, default "xqz")
asks Fairy-Stockfish at --depth for the score before and after it. The first move that loses
at least --drop centipawns is the game's first blunder; the script prints it with the engine's
best move and the reply that punished it, and what that reply captured, then sums up: how
many games had one, at which ply, and how many of the punishing replies won material at once
(a piece left hanging) or gave check or mate.

  usage: scripts/first_blunders.py GAMES.txt [--depth 8] [--drop 250] [--player xqz]
         [--engine /usr/games/fairy-stockfish]
"""
import argparse
import re
import subprocess
import sys
from collections import Counter

PIECE_NAMES = {'r': 'chariot', 'n': 'horse', 'h': 'horse', 'b': 'elephant', 'e': 'elephant',
               'a': 'advisor', 'k': 'king', 'c': 'cannon', 'p': 'pawn'}


def read_games(path):
    games, cur = [], None
    for line in open(path, encoding='utf-8'):
        line = line.strip()
        if line.startswith('[Game '):
            cur = {'tags': {}, 'moves': []}
            games.append(cur)
        if cur is None:
            continue
        tag = re.match(r'\[(\w+) "(.*)"\]', line)
        if tag:
            cur['tags'][tag.group(1)] = tag.group(2)
        else:
            cur['moves'] += re.findall(r'\(([a-i]\d[a-i]\d)\)', line)
    return games


def board_of(fen):
    board = {}
    for r, row in enumerate(fen.split()[0].split('/')):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board[(f, 9 - r)] = ch
                f += 1
    return board


def square(text):
    return (ord(text[0]) - ord('a'), int(text[1]))


class Engine:
    def __init__(self, command):
        self.p = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send('uci')
        self.wait('uciok')
        self.send('setoption name UCI_Variant value xiangqi')
        self.send('isready')
        self.wait('readyok')

    def send(self, line):
        self.p.stdin.write(line + '\n')

    def wait(self, token):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit('engine exited')
            lines.append(line)
            if line.startswith(token):
                return lines

    def score(self, fen, moves, depth):
        """(score in centipawns for the side to move, best move in ICCS)."""
        to_uci = lambda m: m[0] + str(int(m[1]) + 1) + m[2] + str(int(m[3]) + 1)  # ranks from 1
        self.send('position fen %s moves %s' % (fen, ' '.join(to_uci(m) for m in moves)))
        self.send('go depth %d' % depth)
        lines, score = self.wait('bestmove'), 0
        for line in lines:
            found = re.search(r'score (cp|mate) (-?\d+)', line)
            if found:
                value = int(found.group(2))
                # a mate counts as 2000 cp, so that a missed mate next to a winning score is
                # not a huge drop
                score = max(-2000, min(2000, value)) if found.group(1) == 'cp' else (2000 if value > 0 else -2000)
        best = re.match(r'([a-i])(\d+)([a-i])(\d+)', lines[-1].split()[1])
        return score, best and '%s%d%s%d' % (best.group(1), int(best.group(2)) - 1, best.group(3), int(best.group(4)) - 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('games')
    ap.add_argument('--depth', type=int, default=8)
    ap.add_argument('--drop', type=int, default=250)
    ap.add_argument('--player', default='xqz')
    ap.add_argument('--engine', default='/usr/games/fairy-stockfish')
    a = ap.parse_args()
    engine = Engine(a.engine)
    plies, captured, outcomes = [], Counter(), Counter()
    games = read_games(a.games)
    for n, g in enumerate(games, 1):
        red = a.player in g['tags'].get('Red', '')
        black = a.player in g['tags'].get('Black', '')
        if red == black:
            sys.exit('game %d: --player %r must match exactly one of Red %r and Black %r'
                     % (n, a.player, g['tags'].get('Red', ''), g['tags'].get('Black', '')))
        fen, moves = g['tags']['FEN'], g['moves']
        start = int(g['tags'].get('OpeningPlies', 0))
        board = board_of(fen)
        for m in moves[:start]:
            board[square(m[2:])] = board.pop(square(m[:2]))
        found = None
        for i in range(start, len(moves)):
            red_to_move = (i % 2 == 0) == (fen.split()[1] == 'w')
            ours = red_to_move == red
            if ours:
                before, best = engine.score(fen, moves[:i], a.depth)
                after, _ = engine.score(fen, moves[:i + 1], a.depth)
                if before + after >= a.drop:
                    reply = moves[i + 1] if i + 1 < len(moves) else None
                    board[square(moves[i][2:])] = board.pop(square(moves[i][:2]))
                    took = board.get(square(reply[2:])) if reply else None
                    found = (i, before, -after, moves[i], best, reply, took)
                    break
            board[square(moves[i][2:])] = board.pop(square(moves[i][:2]))
        result = g['tags'].get('Result', '?')
        won = (result == '1-0') == red if result in ('1-0', '0-1') else None
        outcome = 'draw' if won is None else 'won' if won else 'lost'
        outcomes[outcome] += 1
        if found is None:
            print('game %d (%s, %s): no drop of %d cp' % (n, outcome, g['tags'].get('Termination', '?'), a.drop))
            continue
        i, before, after, played, best, reply, took = found
        plies.append(i)
        captured[PIECE_NAMES.get(took.lower(), took) if took else 'nothing'] += 1
        print('game %d (%s, %s): ply %d, %+d -> %+d cp: played %s, engine prefers %s; reply %s takes %s'
              % (n, outcome, g['tags'].get('Termination', '?'), i, before, after, played, best, reply,
                 PIECE_NAMES.get(took.lower(), took) if took else 'nothing'))
    print('\n%d games (%s); a first drop of %d cp or more at depth %d in %d' %
          (len(games), ', '.join('%s %d' % kv for kv in sorted(outcomes.items())), a.drop, a.depth, len(plies)))
    if plies:
        plies.sort()
        print('ply of the first drop: median %d, quartiles %d-%d' %
              (plies[len(plies) // 2], plies[len(plies) // 4], plies[3 * len(plies) // 4]))
        print('the punishing reply captured: ' + ', '.join('%s %d' % kv for kv in captured.most_common()))


if __name__ == '__main__':
    main()
