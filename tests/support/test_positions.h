// Small brute-force mate checks used to verify what the search claims.
#pragma once

#include "core/movegen.h"

namespace xq::test {

inline bool is_mated(const Position& pos) { return MoveList(pos).empty() && pos.in_check(); }

// Does `m` mate at once?
inline bool mates_in_one(Position pos, Move m) {
  UndoInfo u;
  pos.do_move(m, u);
  return MoveList(pos).empty();
}

inline bool has_mate_in_one(const Position& pos) {
  for (Move m : MoveList(pos))
    if (mates_in_one(pos, m)) return true;
  return false;
}

// After `m`, does every reply allow a mate in one?
inline bool mates_in_two(Position pos, Move m) {
  UndoInfo u;
  pos.do_move(m, u);
  MoveList replies(pos);
  if (replies.empty()) return false;
  for (Move r : replies) {
    Position after = pos;
    UndoInfo v;
    after.do_move(r, v);
    if (!has_mate_in_one(after)) return false;
  }
  return true;
}

// Can the side to move force a win (mate or stalemate of the opponent) within `moves` of
// its own moves? A plain AND-OR search; only for tiny positions.
inline bool forces_win_within(const Position& pos, int moves) {
  if (moves <= 0) return false;
  for (Move m : MoveList(pos)) {
    Position after = pos;
    UndoInfo u;
    after.do_move(m, u);
    MoveList replies(after);
    if (replies.empty()) return true;
    bool all = true;
    for (Move r : replies) {
      Position next = after;
      UndoInfo v;
      next.do_move(r, v);
      if (!forces_win_within(next, moves - 1)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace xq::test
