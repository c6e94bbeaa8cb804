#include "core/zobrist.h"

namespace xq {

namespace {

// splitmix64: a fixed seed gives the same keys in every build, so hashes written to
// files stay comparable between runs.
uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

ZobristKeys* build() {
  auto* keys = new ZobristKeys();
  uint64_t state = 0x5851F42D4C957F2DULL;
  for (auto& row : keys->piece_square)
    for (auto& k : row) k = next(state);
  for (Square s = 0; s < SQUARE_NB; ++s) keys->piece_square[NO_PIECE][s] = 0;
  keys->black_to_move = next(state);
  return keys;
}

}  // namespace

const ZobristKeys& zobrist() {
  static const ZobristKeys* keys = build();
  return *keys;
}

}  // namespace xq
