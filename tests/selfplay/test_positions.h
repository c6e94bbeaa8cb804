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

}  // namespace xq::test
