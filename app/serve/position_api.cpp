#include "app/serve/position_api.h"

#include "app/serve/request_error.h"
#include "core/errors.h"
#include "core/game.h"
#include "core/movegen.h"
#include "core/notation_chinese.h"
#include "core/notation_wxf.h"

namespace xq::app::serve {

using json = nlohmann::json;

namespace {

json move_names(const Position& pos, Move m) {
  return json{{"iccs", move_to_iccs(m)}, {"wxf", move_to_wxf(pos, m)}, {"chinese", move_to_chinese(pos, m)}};
}

}  // namespace

json position_json(const std::string& fen, const std::vector<std::string>& moves) {
  if (moves.size() > kMaxGameMoves)
    throw RequestError(400, "moves", "has more than " + std::to_string(kMaxGameMoves) + " moves");
  Game game;
  try {
    game = Game(fen);
  } catch (const std::exception& e) {
    throw RequestError(400, "fen", e.what());
  }
  json history = json::array();
  for (size_t i = 0; i < moves.size(); ++i) {
    const std::string field = "moves[" + std::to_string(i) + "]";
    if (game.over())
      throw RequestError(400, field,
                         std::string("the game is over before it (") + to_string(game.state().reason) + ")");
    const Position before = game.position();
    try {
      history.push_back(move_names(before, game.play(moves[i])));
    } catch (const std::exception& e) {
      throw RequestError(400, field, e.what());
    }
  }
  const GameState state = game.state();
  json legal = json::array();
  if (!state.over())
    for (Move m : MoveList(game.position())) legal.push_back(move_names(game.position(), m));
  return json{{"startFen", game.start_position().fen()},
              {"fen", game.position().fen()},
              {"sideToMove", color_name(game.side_to_move())},
              {"inCheck", game.in_check()},
              {"result", to_string(state.result)},
              {"termination", to_string(state.reason)},
              {"ply", game.ply()},
              {"history", history},
              {"legal", legal}};
}

void read_game_fields(const json& body, std::string& fen, std::vector<std::string>& moves) {
  fen = Position::kStartFen;
  if (body.contains("fen")) {
    if (!body["fen"].is_string()) throw RequestError(400, "fen", "must be a string (a FEN)");
    fen = body["fen"].get<std::string>();
  }
  moves.clear();
  if (!body.contains("moves")) return;
  const json& m = body["moves"];
  if (!m.is_array()) throw RequestError(400, "moves", "must be an array of moves in ICCS, like [\"h2e2\"]");
  if (m.size() > kMaxGameMoves)
    throw RequestError(400, "moves", "has more than " + std::to_string(kMaxGameMoves) + " moves");
  for (size_t i = 0; i < m.size(); ++i) {
    if (!m[i].is_string())
      throw RequestError(400, "moves[" + std::to_string(i) + "]", "must be a string (a move in ICCS, like \"h2e2\")");
    moves.push_back(m[i].get<std::string>());
  }
}

}  // namespace xq::app::serve
