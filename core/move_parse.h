// Reading moves in ICCS coordinates ("h2e2") and checking them against a position.
#pragma once

#include <string>

#include "core/position.h"

namespace xq {

// Syntax only: four characters, file a..i and rank 0..9 twice. Throws MoveError.
Move parse_iccs(const std::string& text);

// Why `m` is not legal in `pos` ("" when it is legal), e.g.
// "no piece on h2", "the horse's leg on b1 is blocked", "it leaves the red king in check".
std::string illegal_reason(const Position& pos, Move m);

// Parses and checks legality; throws MoveError naming the move and the reason.
Move parse_legal_move(const Position& pos, const std::string& text);

}  // namespace xq
