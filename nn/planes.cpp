#include "nn/planes.h"

#include <cstring>

#include "nn/attack_map.h"

namespace xq::nn {

void write_compact(const EvalRequest& r, PlaneLayout layout, uint8_t* dst) {
  const int history = layout.history;
  std::memcpy(dst, r.encoding.squares, SQUARE_NB);
  for (int k = 1; k <= history; ++k) {
    uint8_t* board = dst + SQUARE_NB * k;
    if (k <= r.n_history)
      std::memcpy(board, r.history[k - 1].squares, SQUARE_NB);
    else
      std::memset(board, 0, SQUARE_NB);
  }
  dst[SQUARE_NB * (history + 1)] = r.encoding.repetition;
  dst[SQUARE_NB * (history + 1) + 1] = r.encoding.halfmove;
  if (layout.attacks) attack_map(r.encoding.squares, dst + attack_offset(layout));
}

}  // namespace xq::nn
