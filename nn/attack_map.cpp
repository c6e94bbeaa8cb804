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
  Square from[32];
  for (Square s = 0; s < SQUARE_NB; ++s) {
    const int own = std::min(pos.attackers(s, RED, from), kMaxAttackCount);
    const int opp = std::min(pos.attackers(s, BLACK, from), kMaxAttackCount);
    out[s] = uint8_t(own | opp << 2);
  }
}

}  // namespace xq::nn
