// The JSON lines `xqzero analyse` writes (docs/analysis.md): an analysed position, a game
// that is already over, a terminated position, an error, an action's acknowledgement.
// Values are for the side to move at the analysed position.
#pragma once

#include <string>

#include "app/analyse/query.h"
#include "core/game.h"
#include "search/search.h"

namespace xq::app::analyse {

// A search's answer for `game`'s current position (ply `ply` of query `q`).
std::string analysis_json(const Query& q, int ply, const Game& game, const search::Search& search, bool during,
                          bool terminated);
// The position is final (checkmate, repetition verdict, ...): nothing to search.
std::string game_over_json(const Query& q, int ply, const Game& game);
// A queued position of a terminated query.
std::string terminated_json(const std::string& id, int ply);
// `id` empty: unknown (malformed line); `field` empty: no single field at fault; `ply` < 0:
// not about one position.
std::string error_json(const std::string& id, int ply, const std::string& field, const std::string& message);
std::string terminate_ack_json(const std::string& id, const std::string& terminate_id, int stopped);

}  // namespace xq::app::analyse
