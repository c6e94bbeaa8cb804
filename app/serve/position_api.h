// The board's rules, from the core (never re-implemented in the page): a start FEN and the
// moves played from it, checked and played, as the JSON the page draws (docs/serve.md):
// {"startFen", "fen", "sideToMove", "inCheck", "result", "termination", "ply",
//  "history": [{"iccs", "wxf", "chinese"}...], "legal": [{"iccs", "wxf", "chinese"}...]}.
// The notations of a move are written from the position it is played in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace xq::app::serve {

// At most this many moves in one request.
constexpr size_t kMaxGameMoves = 2000;

// Throws RequestError 400 naming "fen" (a bad FEN) or "moves[i]" (an illegal move, or a move
// after the game ended).
nlohmann::json position_json(const std::string& fen, const std::vector<std::string>& moves);

// The "fen" (optional, the standard start by default) and "moves" (optional array of ICCS
// strings) of a request body, checked for their types: RequestError 400 naming the field.
void read_game_fields(const nlohmann::json& body, std::string& fen, std::vector<std::string>& moves);

}  // namespace xq::app::serve
