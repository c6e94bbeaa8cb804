#include "app/analyse/response.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/uci/score.h"
#include "core/move_parse.h"
#include "core/notation_wxf.h"
#include "core/types.h"

namespace xq::app::analyse {

namespace {

using json = nlohmann::ordered_json;  // keys in the order written: id and ply first
using search::Proven;

// Probabilities and values to 5 decimals (the tree keeps priors to 1/65535).
double rounded(double x) {
  const double r = std::round(x * 1e5) / 1e5;
  return r == 0 ? 0.0 : r;  // no "-0.0"
}

json id_json(const std::string& id) { return id.empty() ? json(nullptr) : json(id); }

// value, wdl, and scoreCp or (a proven result) proven and, for a win or a loss, mate, as
// the UCI engine reports them (app/uci/score.h).
void put_score(json& j, float value, float draw, Proven proven, int proven_plies) {
  const uci::Score s = uci::score_of(value, draw, proven, proven_plies);
  j["value"] = proven == Proven::WIN    ? 1.0
               : proven == Proven::LOSS ? -1.0
               : proven == Proven::DRAW ? 0.0
                                        : rounded(value);
  j["wdl"] = json::array({s.wdl[0], s.wdl[1], s.wdl[2]});
  if (s.mate)
    j["mate"] = s.value;
  else if (proven == Proven::NONE)
    j["scoreCp"] = s.value;
  if (proven != Proven::NONE) j["proven"] = proven == Proven::WIN ? "win" : proven == Proven::LOSS ? "loss" : "draw";
}

// rootInfo: the search's root statistics, the network's own value of the root (once the
// network has evaluated it), the position's Zobrist key and the side to move.
json root_json(const Position& pos, const search::Search& search, const search::SearchResult& r) {
  json root;
  root["visits"] = r.visits;
  put_score(root, r.value, r.draw, r.proven, r.proven_plies);
  const search::Node& node = search.tree().node(search.tree().root());
  if (node.expanded && !node.terminal) root["rawValue"] = rounded(node.net_value);
  root["depth"] = rounded(search.depth().average());
  root["seldepth"] = search.depth().max;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llX", static_cast<unsigned long long>(pos.key()));
  root["thisHash"] = hash;
  root["currentPlayer"] = color_name(pos.side_to_move());
  return root;
}

// One moveInfos entry. playSelectionValue is what the final choice compares: visits under
// PUCT, the improved-policy weight under Gumbel (a proven win is chosen before either; a
// Gumbel query above its gumbel_max_visits searched as PUCT).
json move_json(const Position& pos, const search::Search& search, const search::RootMove& m, int order) {
  json mi;
  mi["move"] = move_to_iccs(m.move);
  mi["wxf"] = move_to_wxf(pos, m.move);
  mi["order"] = order;
  mi["visits"] = m.visits;
  mi["prior"] = rounded(m.prior);
  put_score(mi, m.q, m.draw, m.proven, m.proven_plies);
  mi["lcb"] = m.proven != Proven::NONE ? mi["value"].get<double>() : rounded(value_lcb(m.q, m.draw, m.visits));
  if (search.gumbel())
    mi["playSelectionValue"] = rounded(m.target);
  else
    mi["playSelectionValue"] = m.visits;
  json pv = json::array();
  for (Move x : search.principal_variation(m.move)) pv.push_back(move_to_iccs(x));
  mi["pv"] = pv;
  return mi;
}

}  // namespace

std::string analysis_json(const Query& q, int ply, const Game& game, const search::Search& search, bool during,
                          bool terminated, bool memory_limited) {
  const search::SearchResult r = search.result();
  const Position& pos = game.position();
  json j;
  j["id"] = q.id;
  j["ply"] = ply;
  j["isDuringSearch"] = during;
  if (terminated) j["terminated"] = true;
  if (memory_limited) j["memoryLimited"] = true;
  j["fen"] = pos.fen();
  j["rootInfo"] = root_json(pos, search, r);
  if (!r.best.is_none()) j["bestMove"] = move_to_iccs(r.best);

  // Candidate moves: the choice first, then by visits, then by value; the visited ones, and
  // the choice even when it has no visit (a search that ended at once).
  std::vector<const search::RootMove*> moves;
  for (const search::RootMove& m : r.moves)
    if (m.visits > 0 || m.proven != Proven::NONE || m.move == r.best) moves.push_back(&m);
  std::stable_sort(moves.begin(), moves.end(), [&](const search::RootMove* a, const search::RootMove* b) {
    if ((a->move == r.best) != (b->move == r.best)) return a->move == r.best;
    if (a->visits != b->visits) return a->visits > b->visits;
    return a->q > b->q;
  });
  if (q.multi_pv > 0 && int(moves.size()) > q.multi_pv) moves.resize(size_t(q.multi_pv));
  json infos = json::array();
  int order = 0;
  for (const search::RootMove* m : moves) infos.push_back(move_json(pos, search, *m, order++));
  j["moveInfos"] = infos;
  if (q.include_policy) {
    json policy = json::object();
    for (const search::RootMove& m : r.moves) policy[move_to_iccs(m.move)] = rounded(m.prior);
    j["policy"] = policy;
  }
  return j.dump();
}

std::string game_over_json(const Query& q, int ply, const Game& game) {
  const GameState s = game.state();
  json j;
  j["id"] = q.id;
  j["ply"] = ply;
  j["isDuringSearch"] = false;
  j["fen"] = game.position().fen();
  j["gameOver"] = {{"result", to_string(s.result)}, {"termination", to_string(s.reason)}};
  return j.dump();
}

std::string terminated_json(const std::string& id, int ply) {
  return json{{"id", id}, {"ply", ply}, {"isDuringSearch", false}, {"terminated", true}}.dump();
}

std::string error_json(const std::string& id, int ply, const std::string& field, const std::string& message) {
  json j;
  j["id"] = id_json(id);
  if (ply >= 0) j["ply"] = ply;
  j["error"] = message;
  if (!field.empty()) j["field"] = field;
  // Invalid UTF-8 echoed from the input must not make the line itself invalid.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string warning_json(const std::string& id, const std::string& field, const std::string& message) {
  json j;
  j["id"] = id_json(id);
  j["warning"] = message;
  j["field"] = field;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string terminate_ack_json(const std::string& id, const std::string* terminate_id, const std::vector<int>& plies,
                               int stopped) {
  json j;
  j["id"] = id_json(id);
  j["action"] = terminate_id ? "terminate" : "terminate_all";
  if (terminate_id) j["terminateId"] = *terminate_id;
  if (!plies.empty()) j["plies"] = plies;
  j["positions"] = stopped;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

#ifndef XQZERO_VERSION
#define XQZERO_VERSION "0.1.0"  // project(xqzero VERSION ...) in CMakeLists.txt
#endif

std::string engine_version() { return XQZERO_VERSION; }

std::string version_json(const std::string& id) {
  json j;
  j["id"] = id_json(id);
  j["action"] = "query_version";
  j["version"] = engine_version();
#ifdef XQZERO_GIT_HASH
  j["gitHash"] = XQZERO_GIT_HASH;
#endif
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string clear_cache_ack_json(const std::string& id) {
  return json{{"id", id_json(id)}, {"action", "clear_cache"}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

double value_lcb(double q, double draw, unsigned visits) {
  if (visits == 0) return -1;
  // 1 - draw - q^2 is the variance of one game result drawn with the mean W/D/L, and bounds
  // that of the evaluations averaged into q: (w - l)^2 <= w + l for each of them.
  const double variance = std::max(0.0, 1.0 - draw - q * q);
  return std::clamp(q - 1.96 * std::sqrt(variance / double(visits)), -1.0, 1.0);
}

}  // namespace xq::app::analyse
