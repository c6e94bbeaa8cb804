// Helpers shared by the nn tests: random positions and board transformations.
#pragma once

#include <random>
#include <vector>

#include "core/movegen.h"
#include "nn/encoding.h"

namespace xq::nn::test {

// Positions met along seeded random games from the start (both colours to move, captures,
// varied move counts). Games restart when a side has no legal move or after 160 plies.
inline std::vector<Position> random_positions(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  Position pos;
  int ply = 0;
  while (int(out.size()) < count) {
    MoveList moves(pos);
    if (moves.empty() || ply >= 160) {
      pos = Position();
      ply = 0;
      continue;
    }
    out.push_back(pos);
    UndoInfo undo;
    pos.do_move(moves[int(rng() % unsigned(moves.size()))], undo);
    ++ply;
  }
  return out;
}

// The same position with colours swapped and ranks flipped (r -> 9 - r).
inline Position color_flip(const Position& pos) {
  Position out{Position::EmptyBoard{}};
  for (Square s = 0; s < SQUARE_NB; ++s) {
    const Piece p = pos.piece_on(s);
    if (p != NO_PIECE) out.put_piece(make_piece(~color_of(p), type_of(p)), view_square(BLACK, s));
  }
  out.set_side_to_move(~pos.side_to_move());
  out.set_counters(pos.halfmove_clock(), pos.fullmove_number());
  return out;
}

// The left-right mirror image (files a <-> i).
inline Position mirror_position(const Position& pos) {
  Position out{Position::EmptyBoard{}};
  for (Square s = 0; s < SQUARE_NB; ++s) {
    const Piece p = pos.piece_on(s);
    if (p != NO_PIECE) out.put_piece(p, mirror_square(s));
  }
  out.set_side_to_move(pos.side_to_move());
  out.set_counters(pos.halfmove_clock(), pos.fullmove_number());
  return out;
}

}  // namespace xq::nn::test
