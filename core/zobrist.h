// Zobrist keys for incremental position hashing.
#pragma once

#include <cstdint>

#include "core/types.h"

namespace xq {

struct ZobristKeys {
  uint64_t piece_square[PIECE_NB][SQUARE_NB];
  uint64_t black_to_move;
};

const ZobristKeys& zobrist();

}  // namespace xq
