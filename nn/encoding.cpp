#include "nn/encoding.h"

#include <algorithm>
#include <cstring>

namespace xq::nn {

bool Encoding::operator==(const Encoding& o) const { return std::memcmp(this, &o, sizeof(Encoding)) == 0; }

Encoding encode(const Position& pos, Color perspective, int repetition) {
  Encoding e;
  std::memset(e.squares, 0, sizeof e.squares);
  for (Color c : {RED, BLACK}) {
    const int base = c == perspective ? kOwnCodeBase : kOppCodeBase;
    for (int i = 0; i < pos.piece_count(c); ++i) {
      const Square s = pos.piece_square(c, i);
      e.squares[view_square(perspective, s)] = uint8_t(base + type_of(pos.piece_on(s)));
    }
  }
  e.repetition = uint8_t(std::clamp(repetition, 0, kMaxRepetition));
  e.halfmove = uint8_t(std::clamp(pos.halfmove_clock(), 0, kMaxHalfmove));
  return e;
}

Encoding mirror(const Encoding& e) {
  Encoding m = e;
  for (Square s = 0; s < SQUARE_NB; ++s) m.squares[mirror_square(s)] = e.squares[s];
  return m;
}

namespace {
uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 29);
}
}  // namespace

uint64_t eval_key(const Position& pos, int repetition, const uint64_t* history_keys, int n_history) {
  uint64_t h = pos.key();
  h = mix(h, uint64_t(std::clamp(repetition, 0, kMaxRepetition)) |
                 (uint64_t(std::clamp(pos.halfmove_clock(), 0, kMaxHalfmove)) << 8) | (uint64_t(n_history) << 16));
  for (int i = 0; i < n_history; ++i) h = mix(h, history_keys[i]);
  return h;
}

}  // namespace xq::nn
