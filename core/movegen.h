// Move generation. Pseudo-legal moves follow every piece's movement rule; legal moves
// also never leave the mover's king attacked, the flying-general rule included.
#pragma once

#include "core/position.h"

namespace xq {

// Each writes at most MAX_MOVES moves to `out` and returns how many.
int generate_pseudo_legal(const Position& pos, Move* out);
int generate_legal(const Position& pos, Move* out);

// Is `m` a legal move in `pos`? (Any 16-bit move value is accepted.)
bool is_legal(const Position& pos, Move m);

// A fixed-capacity list of legal moves, for callers that want a container.
struct MoveList {
  explicit MoveList(const Position& pos) : size_(generate_legal(pos, moves_)) {}
  const Move* begin() const { return moves_; }
  const Move* end() const { return moves_ + size_; }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Move operator[](int i) const { return moves_[i]; }
  bool contains(Move m) const {
    for (int i = 0; i < size_; ++i)
      if (moves_[i] == m) return true;
    return false;
  }

 private:
  Move moves_[MAX_MOVES];
  int size_;
};

}  // namespace xq
