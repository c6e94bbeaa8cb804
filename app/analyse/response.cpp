#include "app/analyse/response.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "app/uci/score.h"
#include "core/move_parse.h"
#include "core/notation_wxf.h"

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

}  // namespace

std::string analysis_json(const Query& q, int ply, const Game& game, const search::Search& search, bool during,
                          bool terminated) {
  const search::SearchResult r = search.result();
  const Position& pos = game.position();
  json j;
  j["id"] = q.id;
  j["ply"] = ply;
  j["isDuringSearch"] = during;
  if (terminated) j["terminated"] = true;
  j["fen"] = pos.fen();
  json root;
  root["visits"] = r.visits;
  put_score(root, r.value, r.draw, r.proven, r.proven_plies);
  root["depth"] = rounded(search.depth().average());
  root["seldepth"] = search.depth().max;
  j["rootInfo"] = root;
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
  for (const search::RootMove* m : moves) {
    json mi;
    mi["move"] = move_to_iccs(m->move);
    mi["wxf"] = move_to_wxf(pos, m->move);
    mi["order"] = order++;
    mi["visits"] = m->visits;
    mi["prior"] = rounded(m->prior);
    put_score(mi, m->q, m->draw, m->proven, m->proven_plies);
    json pv = json::array();
    for (Move x : search.principal_variation(m->move)) pv.push_back(move_to_iccs(x));
    mi["pv"] = pv;
    infos.push_back(mi);
  }
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

std::string terminate_ack_json(const std::string& id, const std::string& terminate_id, int stopped) {
  return json{{"id", id_json(id)}, {"action", "terminate"}, {"terminateId", terminate_id}, {"positions", stopped}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

}  // namespace xq::app::analyse
