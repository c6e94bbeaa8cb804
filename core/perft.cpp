#include "core/perft.h"

#include "core/movegen.h"

namespace xq {

uint64_t perft(Position& pos, int depth) {
  if (depth <= 0) return 1;
  Move moves[MAX_MOVES];
  const int n = generate_legal(pos, moves);
  if (depth == 1) return uint64_t(n);
  uint64_t total = 0;
  UndoInfo undo;
  for (int i = 0; i < n; ++i) {
    pos.do_move(moves[i], undo);
    total += perft(pos, depth - 1);
    pos.undo_move(moves[i], undo);
  }
  return total;
}

std::vector<std::pair<Move, uint64_t>> perft_divide(Position& pos, int depth) {
  std::vector<std::pair<Move, uint64_t>> out;
  Move moves[MAX_MOVES];
  const int n = generate_legal(pos, moves);
  UndoInfo undo;
  for (int i = 0; i < n; ++i) {
    pos.do_move(moves[i], undo);
    out.emplace_back(moves[i], perft(pos, depth - 1));
    pos.undo_move(moves[i], undo);
  }
  return out;
}

}  // namespace xq
