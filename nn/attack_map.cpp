#include "nn/attack_map.h"

#include <algorithm>
#include <stdexcept>

#include "core/position.h"
#include "nn/encoding.h"

namespace xq::nn {

void attack_map(const uint8_t squares[SQUARE_NB], uint8_t out[SQUARE_NB]) {
  // In the own side's view the own pieces stand where Red's do: rebuild the board with them
  // as Red, so that pawns attack in the right direction and elephants stay on their side.
  Position pos{Position::EmptyBoard{}};
  for (Square s = 0; s < SQUARE_NB; ++s) {
    const int code = squares[s];
    if (code == 0) continue;
    if (code > kOppCodeBase + 7) throw std::invalid_argument("attack_map: square code out of range");
    pos.put_piece(code > kOppCodeBase ? make_piece(BLACK, PieceType(code - kOppCodeBase))
                                      : make_piece(RED, PieceType(code - kOwnCodeBase)),
                  s);
  }
  uint8_t own[SQUARE_NB], opp[SQUARE_NB];
  pos.attack_counts(RED, own);
  pos.attack_counts(BLACK, opp);
  for (Square s = 0; s < SQUARE_NB; ++s)
    out[s] = uint8_t(std::min<int>(own[s], kMaxAttackCount) | std::min<int>(opp[s], kMaxAttackCount) << 2);
}

}  // namespace xq::nn
