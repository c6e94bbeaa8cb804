#include "core/immediate_win.h"

#include "core/movegen.h"

namespace xq {

bool has_legal_move(const Position& pos) {
  Move moves[MAX_MOVES];
  const int n = generate_pseudo_legal(pos, moves);
  for (int i = 0; i < n; ++i)
    if (!pos.leaves_king_attacked(moves[i])) return true;
  return false;
}

Move find_immediate_win(const Position& pos) {
  Move moves[MAX_MOVES];
  const int n = generate_legal(pos, moves);
  Position p = pos;
  for (int i = 0; i < n; ++i) {
    UndoInfo undo;
    p.do_move(moves[i], undo);
    const bool wins = !has_legal_move(p);
    p.undo_move(moves[i], undo);
    if (wins) return moves[i];
  }
  return Move();
}

}  // namespace xq
