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
import sys
from collections import Counter

from fsf_uci import Engine, to_engine, to_iccs

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


def score(engine, fen, moves, depth):
    """(score in centipawns for the side to move, a mate counting as 2000 and larger scores
    clamped to it, so that a missed mate next to a winning score is not a huge drop; best move
    in ICCS)."""
    best, found = engine.go('fen %s moves %s' % (fen, ' '.join(to_engine(m) for m in moves)), depth)
    value = 0
    if found:
        kind, v = found
        value = max(-2000, min(2000, v)) if kind == 'cp' else (2000 if v > 0 else -2000)
    return value, best and to_iccs(best)


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
                before, best = score(engine, fen, moves[:i], a.depth)
                after, _ = score(engine, fen, moves[:i + 1], a.depth)
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
