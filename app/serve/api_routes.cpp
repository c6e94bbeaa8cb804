// The board's routes (docs/serve.md): /api/info, /api/position, /api/move, /api/analyse.
#include <httplib.h>

#include "app/analyse/response.h"
#include "app/serve/http_json.h"
#include "app/serve/position_api.h"
#include "app/serve/request_error.h"
#include "app/serve/server.h"
#include "core/position.h"

namespace xq::app::serve {

using json = nlohmann::json;
using httplib::Request;

namespace {

// "h2e2,h9g7" or "h2e2 h9g7" (the query string form of a move list).
std::vector<std::string> split_moves(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '+') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// POST /api/move: the position after `move`, which must be legal (the refusal names "move").
json play_move(const json& body) {
  std::string fen;
  std::vector<std::string> moves;
  read_game_fields(body, fen, moves);
  if (!body.contains("move")) throw RequestError(400, "move", "missing (the move to play, in ICCS)");
  if (!body["move"].is_string()) throw RequestError(400, "move", "must be a string (a move in ICCS, like \"h2e2\")");
  const json before = position_json(fen, moves);  // errors name fen or moves[i]
  if (before["result"] != "*")
    throw RequestError(400, "move", "the game is over (" + before["termination"].get<std::string>() + ")");
  moves.push_back(body["move"].get<std::string>());
  try {
    return position_json(fen, moves);
  } catch (const RequestError& e) {
    throw RequestError(400, "move", e.what());
  }
}

}  // namespace

void ServeApp::add_routes() {
  httplib::Server& http = *http_;
  http.Get("/api/info", json_handler([this](const Request&) {
             json runs = json::array();
             for (const RunDir& r : runs_.runs()) runs.push_back(r.name);
             return json{{"version", analyse::engine_version()},
                         {"evaluator", options_.evaluator},
                         {"maxVisits", options_.limits.max_visits},
                         {"maxQueryVisits", options_.limits.max_query_visits},
                         {"runs", runs},
                         {"startFen", Position::kStartFen}};
           }));
  http.Get("/api/position", json_handler([](const Request& req) {
             const std::string fen = req.has_param("fen") ? req.get_param_value("fen") : Position::kStartFen;
             const std::vector<std::string> moves =
                 req.has_param("moves") ? split_moves(req.get_param_value("moves")) : std::vector<std::string>();
             return position_json(fen, moves);
           }));
  http.Post("/api/position", json_handler([](const Request& req) {
              std::string fen;
              std::vector<std::string> moves;
              read_game_fields(json_body(req), fen, moves);
              return position_json(fen, moves);
            }));
  http.Post("/api/move", json_handler([](const Request& req) { return play_move(json_body(req)); }));
  http.Post("/api/analyse", json_handler([this](const Request& req) {
              return json{{"id", analysis_.start(json_body(req))}};
            }));
  http.Get("/api/analyse/([A-Za-z0-9]+)", json_handler([this](const Request& req) {
             const std::string id = req.matches[1];
             auto r = analysis_.poll(id);
             if (!r) throw RequestError(404, "id", "no analysis '" + id + "' (finished ones are kept two minutes)");
             return *r;
           }));
  http.Post("/api/analyse/([A-Za-z0-9]+)/stop", json_handler([this](const Request& req) {
              const std::string id = req.matches[1];
              if (!analysis_.stop(id)) throw RequestError(404, "id", "no analysis '" + id + "'");
              return json{{"id", id}, {"stopping", true}};
            }));
}

}  // namespace xq::app::serve
