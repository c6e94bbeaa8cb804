// From the search's value to the numbers a UCI GUI shows.
//
// The search backs up v = W - L in [-1, 1] for the side to move (W, L: win and loss
// probabilities). GUIs expect centipawns on Fairy-Stockfish's scale, so v is mapped by
//
//     cp = round(kCpScale * atanh(v)),  |v| clamped to 0.999
//
// the inverse of v = tanh(cp / kCpScale), fitted by scripts/fit_cp_scale.py to Fairy-Stockfish's
// depth-10 scores of docs/evalset-fsf.tsv (docs/analysis.md, "Centipawns"): +100 cp means about
// what a pawn's +100 means to Fairy-Stockfish. Odd, monotonic, about 12 cp per 0.01 of v near
// 0, bounded by +-4560:
//
//     v     0.05  0.10  0.25  0.50  0.75  0.95  1.00
//     cp      60   120   306   659  1168  2198  4560
//
// The scale belongs to the bundled net (refit when it changes). A proven win or loss
// (MCTS-solver) is reported as `score mate N` in moves, as Pikafish does: N > 0 when the
// side to move mates, N < 0 when it is mated, `mate 0` when it has no legal move; a proven
// draw is `cp 0`. N comes from the solver's proven length in plies (mate_moves) and is an
// upper bound on the shortest mate (the first proof found, shortened as the search goes on).
// `wdl` is the W/D/L in permille, from v and the draw probability D: W = (1 - D + v) / 2,
// L = (1 - D - v) / 2, rounded so the three sum to 1000.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "search/tree.h"

namespace xq::app::uci {

// Moves to mate from plies to the proven end: a mate delivered at ply 1, 3, 5 is in 1, 2, 3
// moves; mated at ply 2, 4 is in 1, 2 moves.
inline int mate_moves(int plies) { return std::max(1, (plies + 1) / 2); }

// Fitted for the bundled net (nets/xqzero-default.txt, the long run's last): S = 1189 on the raw
// net, 1245 at 16 visits, 1170 at 128 (rms residual in v 0.22, 0.22, 0.21; 100 tan(1.5 v): 0.51).
// Run H's net, bundled before it, gave 1359, 1386 and 1324 (the scale was 1350 then).
constexpr double kCpScale = 1200;

inline int value_to_cp(float v) {
  const double x = std::clamp(double(v), -0.999, 0.999);
  return int(std::lround(kCpScale * std::atanh(x)));
}

// Permille win/draw/loss from value v = W - L and draw probability d.
inline std::array<int, 3> wdl_permille(float v, float d) {
  const double dd = std::clamp(double(d), 0.0, 1.0);
  const double vv = std::clamp(double(v), -(1.0 - dd), 1.0 - dd);
  const double w = (1.0 - dd + vv) / 2.0, l = (1.0 - dd - vv) / 2.0;
  int W = int(std::lround(w * 1000.0)), L = int(std::lround(l * 1000.0));
  W = std::clamp(W, 0, 1000);
  L = std::clamp(L, 0, 1000 - W);
  return {W, 1000 - W - L, L};
}

// A value as it is reported: a proven win or loss as mate N in moves, a proven draw as 0
// centipawns with W/D/L 0/1000/0, anything else as centipawns with the search's W/D/L.
// `proven` and `plies` are for the side to move (search::RootMove, SearchResult).
struct Score {
  bool mate = false;
  int value = 0;  // centipawns, or moves to mate (negative when the side to move is mated)
  std::array<int, 3> wdl{};
  search::Proven proven = search::Proven::NONE;
  std::string uci() const { return (mate ? "mate " : "cp ") + std::to_string(value); }
};

inline Score score_of(float v, float d, search::Proven proven, int plies) {
  using search::Proven;
  Score s;
  s.proven = proven;
  if (proven == search::Proven::WIN || proven == search::Proven::LOSS) {
    s.mate = true;
    s.value = (proven == search::Proven::WIN ? 1 : -1) * mate_moves(plies);
    s.wdl = proven == search::Proven::WIN ? std::array<int, 3>{1000, 0, 0} : std::array<int, 3>{0, 0, 1000};
  } else if (proven == search::Proven::DRAW) {
    s.wdl = {0, 1000, 0};
  } else {
    s.value = value_to_cp(v);
    s.wdl = wdl_permille(v, d);
  }
  return s;
}

}  // namespace xq::app::uci
