#include "nn/random_walk.h"

#include <random>

#include "core/movegen.h"

namespace xq::nn {

std::vector<EvalInput> random_walk_inputs(int count, uint64_t seed, int max_plies) {
  std::mt19937_64 rng(seed);
  std::vector<EvalInput> out;
  out.reserve(size_t(count > 0 ? count : 0));
  Position pos;
  int ply = 0;
  while (int(out.size()) < count) {
    MoveList moves(pos);
    if (moves.empty() || ply >= max_plies) {
      pos = Position();
      ply = 0;
      continue;
    }
    out.push_back(make_eval_input(pos));
    UndoInfo undo;
    pos.do_move(moves[int(rng() % unsigned(moves.size()))], undo);
    ++ply;
  }
  return out;
}

}  // namespace xq::nn
