// One-ply win detection for search: a side left without a legal move loses in Xiangqi
// (checkmate and stalemate alike, judged before any other rule: core/game.h), so a move
// that leaves the opponent none wins at once, whatever the repetition history.
#pragma once

#include "core/position.h"

namespace xq {

// Does the side to move have at least one legal move? (Stops at the first one.)
bool has_legal_move(const Position& pos);

// A legal move of the side to move after which the opponent has no legal move, or the
// none move when there is no such move. The first in generation order when several win.
Move find_immediate_win(const Position& pos);

}  // namespace xq
