// Judging a repetition cycle (棋例, docs/architecture.md §5): perpetual check (长将) and perpetual chase (长捉).
//
// A cycle is the sequence of moves between two occurrences of the same position with the
// same side to move. Within it no capture happens (a capture changes the material), so every
// piece keeps its identity and can be followed square by square.
//
// Perpetual check is exact: a side checks perpetually when every one of its moves in the
// cycle gives check.
//
// Perpetual chase is an approximation of the rule texts, chosen to be clear and testable:
//
//   A move of side X "chases" an enemy piece T when, in the position after the move,
//     - T is not a king and not a pawn still on its own side of the river, and
//     - some piece A of X that is neither a king nor a pawn can legally capture T (pinned
//       pieces and captures that would expose X's king do not count), where A is the piece
//       that just moved, or A's attack on T is new: the move opened A's line or horse leg
//       (an attack that was there before and only became legal does not count), and
//     - T is undefended against that capture (after A takes on T, no piece of T's side can
//       legally take back on that square), or T is a chariot and A a horse or a cannon.
//   A side is forbidden by chase when at least one of its moves in the cycle is not a check,
//   every such non-checking move chases, and one and the same enemy piece (followed through
//   its own moves in the cycle) is chased by all of them. Checking moves are wildcards, so a
//   side alternating checks with chases of one piece (一将一捉) is forbidden too.
//
// Known limits of the approximation: it ignores the finer cases of the rule texts, such as
// attacks that are only an offer to exchange equal pieces (a chariot attacking a defended
// chariot is idle, an undefended one counts), pieces that attack each other mutually,
// chasing several different pieces in turn (长捉 of "any" piece), a pawn that crossed the
// river attacked by a piece of low value, the "one-chase-one-idle" patterns, and the value
// judgements a referee makes about whether a defender really defends (a defender that
// could recapture only into a losing exchange still counts as a defender here).
//
// Verdict: when exactly one side checks perpetually, it loses; when both do, draw. Otherwise,
// when exactly one side is forbidden by chase, it loses; both or neither: draw.
#pragma once

#include "core/position.h"

namespace xq {

// A set of squares, bit s for square s.
using SquareSet = unsigned __int128;

// The enemy pieces (their squares in `before` after playing `m`) that the move `m`, legal in
// `before`, chases under the approximation above. Kings and uncrossed pawns are never targets.
SquareSet chase_targets(const Position& before, Move m);

struct CycleVerdict {
  bool perpetual_check[2] = {false, false};   // by colour: every move of that side gave check
  bool chases[2] = {false, false};            // by colour: forbidden by chase (see above)
  Square chased[2] = {NO_SQUARE, NO_SQUARE};  // the chased piece, on its square in the cycle's first position
  int loser = -1;                             // RED, BLACK, or -1 for a draw
  bool by_check = false;                      // the loser was decided by perpetual check
};

// Judges the cycle of `n` moves starting from `start` (which must be a real cycle: no
// captures, legal moves, usually ending in `start` again). Allocates nothing.
CycleVerdict judge_cycle(const Position& start, const Move* moves, int n);

}  // namespace xq
