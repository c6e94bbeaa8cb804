#include "app/analyse/query.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/move_parse.h"

namespace xq::app::analyse {

namespace {

using nlohmann::json;

// A field that is wrong: thrown inside parse_line, turned into an ERROR line there.
struct FieldError {
  std::string field, message;
};

[[noreturn]] void fail(const std::string& field, const std::string& message) { throw FieldError{field, message}; }

int get_int(const json& v, const char* field, long long lo, long long hi) {
  if (!v.is_number_integer()) fail(field, "must be an integer");
  bool in_range;
  if (v.is_number_unsigned()) {  // may exceed long long
    const unsigned long long u = v.get<unsigned long long>();
    in_range = u <= (unsigned long long)hi && (long long)u >= lo;
  } else {
    const long long x = v.get<long long>();
    in_range = x >= lo && x <= hi;
  }
  if (!in_range) fail(field, "must be in " + std::to_string(lo) + ".." + std::to_string(hi));
  return int(v.get<long long>());
}

double get_number(const json& v, const char* field, double lo, double hi) {
  if (!v.is_number()) fail(field, "must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) fail(field, "must be in " + json(lo).dump() + ".." + json(hi).dump());
  return x;
}

bool get_bool(const json& v, const char* field) {
  if (!v.is_boolean()) fail(field, "must be true or false");
  return v.get<bool>();
}

std::string get_string(const json& v, const char* field) {
  if (!v.is_string()) fail(field, "must be a string");
  return v.get<std::string>();
}

const json& get_array(const json& v, const char* field, size_t max_size) {
  if (!v.is_array()) fail(field, "must be an array");
  if (v.size() > max_size) fail(field, "has more than " + std::to_string(max_size) + " entries");
  return v;
}

void check_fields(const json& j, std::initializer_list<const char*> known) {
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; }))
      fail(it.key(), "unknown field");
}

ParsedLine parse_action(const json& j, ParsedLine out) {
  const std::string action = get_string(j["action"], "action");
  if (action == "quit") {
    check_fields(j, {"id", "action"});
    out.kind = LineKind::QUIT;
  } else if (action == "terminate") {
    check_fields(j, {"id", "action", "terminateId"});
    if (!j.contains("terminateId")) fail("terminateId", "missing (the id of the query to stop)");
    out.terminate_id = get_string(j["terminateId"], "terminateId");
    out.kind = LineKind::TERMINATE;
  } else {
    fail("action", "must be \"terminate\" or \"quit\", got \"" + clipped(action) + "\"");
  }
  return out;
}

Query parse_query(const json& j, const QueryDefaults& d, const std::string& id) {
  check_fields(j, {"id", "fen", "moves", "maxVisits", "analyzePlies", "multiPV", "includePolicy", "searchMoves",
                   "cpuct", "algorithm", "reportDuringSearchEvery"});
  Query q;
  q.id = id;
  q.max_visits = d.max_visits;
  q.search = d.search;
  q.fen = j.contains("fen") ? get_string(j["fen"], "fen") : std::string(Position::kStartFen);
  Game game;
  try {
    game = Game(q.fen);
  } catch (const std::exception& e) {
    fail("fen", e.what());
  }
  if (j.contains("moves")) {
    const json& moves = get_array(j["moves"], "moves", kMaxMoves);
    for (size_t i = 0; i < moves.size(); ++i) {
      const std::string field = "moves[" + std::to_string(i) + "]";
      if (!moves[i].is_string()) fail(field, "must be a string (a move in ICCS, like \"h2e2\")");
      if (game.over()) fail(field, std::string("the game is over before it (") + to_string(game.state().reason) + ")");
      try {
        q.moves.push_back(game.play(moves[i].get<std::string>()));
      } catch (const std::exception& e) {
        fail(field, e.what());
      }
    }
  }
  const int plies = int(q.moves.size());
  if (j.contains("analyzePlies")) {
    const json& a = get_array(j["analyzePlies"], "analyzePlies", size_t(kMaxMoves) + 1);
    if (a.empty()) fail("analyzePlies", "must list at least one ply");
    for (const json& p : a) q.plies.push_back(get_int(p, "analyzePlies", 0, plies));
    std::sort(q.plies.begin(), q.plies.end());
    q.plies.erase(std::unique(q.plies.begin(), q.plies.end()), q.plies.end());
  } else {
    q.plies.push_back(plies);
  }
  if (j.contains("maxVisits")) q.max_visits = get_int(j["maxVisits"], "maxVisits", 1, kMaxVisits);
  if (j.contains("multiPV")) q.multi_pv = get_int(j["multiPV"], "multiPV", 0, MAX_MOVES);
  if (j.contains("includePolicy")) q.include_policy = get_bool(j["includePolicy"], "includePolicy");
  if (j.contains("cpuct")) q.search.c_puct_init = float(get_number(j["cpuct"], "cpuct", 0, 10));
  if (j.contains("algorithm")) {
    const std::string a = get_string(j["algorithm"], "algorithm");
    if (a != "puct" && a != "gumbel") fail("algorithm", "must be \"puct\" or \"gumbel\", got \"" + clipped(a) + "\"");
    q.search.algorithm = a == "gumbel" ? search::RootAlgorithm::GUMBEL : search::RootAlgorithm::PUCT;
  }
  if (j.contains("reportDuringSearchEvery"))
    q.report_every_s = get_number(j["reportDuringSearchEvery"], "reportDuringSearchEvery", 0.001, 3600);
  if (j.contains("searchMoves")) {
    const json& s = get_array(j["searchMoves"], "searchMoves", MAX_MOVES);
    // Each listed move must be legal at every analysed ply (ICCS names squares, so one move
    // value serves every position).
    Game at(q.fen);
    int ply = 0;
    for (int target : q.plies) {
      for (; ply < target; ++ply) at.play(q.moves[size_t(ply)]);
      for (size_t i = 0; i < s.size(); ++i) {
        const std::string field = "searchMoves[" + std::to_string(i) + "]";
        if (!s[i].is_string()) fail(field, "must be a string (a move in ICCS)");
        try {
          const Move m = parse_legal_move(at.position(), s[i].get<std::string>());
          if (target == q.plies.front()) q.search_moves.push_back(m);
        } catch (const std::exception& e) {
          fail(field, std::string(e.what()) + " (at ply " + std::to_string(target) + ")");
        }
      }
    }
  }
  return q;
}

}  // namespace

ParsedLine parse_line(const std::string& line, const QueryDefaults& defaults) {
  ParsedLine out;
  const size_t b = line.find_first_not_of(" \t\r");
  const size_t e = line.find_last_not_of(" \t\r");
  if (b != std::string::npos && line.substr(b, e - b + 1) == "quit") {
    out.kind = LineKind::QUIT;
    return out;
  }
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& ex) {
    out.message = std::string("malformed JSON: ") + ex.what();
    return out;
  }
  try {
    if (!j.is_object()) fail("", "a line must be a JSON object (or quit)");
    if (j.contains("id")) out.id = get_string(j["id"], "id");
    if (j.contains("action")) return parse_action(j, out);
    if (!j.contains("id")) fail("id", "missing (every query needs an id)");
    out.query = parse_query(j, defaults, out.id);
    out.kind = LineKind::QUERY;
  } catch (const FieldError& f) {
    out.kind = LineKind::ERROR;
    out.field = f.field;
    out.message = f.message;
  }
  return out;
}

}  // namespace xq::app::analyse
