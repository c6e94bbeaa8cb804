#include "app/analyse/query.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "config.pb.h"
#include "core/errors.h"
#include "core/move_parse.h"
#include "util/text.h"

namespace xq::app::analyse {

namespace {

using json = nlohmann::ordered_json;  // fields in the order of the line (warnings list them so)

// A field that is wrong: thrown inside parse_line, turned into an ERROR line there.
struct FieldError {
  std::string field, message;
};

[[noreturn]] void fail(const std::string& field, const std::string& message) { throw FieldError{field, message}; }

std::string join(const std::vector<std::string>& words, const char* sep) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : sep) + w;
  return s;
}

int get_int(const json& v, const std::string& field, long long lo, long long hi) {
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

double get_number(const json& v, const std::string& field, double lo, double hi) {
  if (!v.is_number()) fail(field, "must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) fail(field, "must be in " + json(lo).dump() + ".." + json(hi).dump());
  return x;
}

bool get_bool(const json& v, const std::string& field) {
  if (!v.is_boolean()) fail(field, "must be true or false");
  return v.get<bool>();
}

std::string get_string(const json& v, const std::string& field) {
  if (!v.is_string()) fail(field, "must be a string");
  return v.get<std::string>();
}

const json& get_array(const json& v, const std::string& field, size_t max_size) {
  if (!v.is_array()) fail(field, "must be an array");
  if (v.size() > max_size) fail(field, "has more than " + std::to_string(max_size) + " entries");
  return v;
}

// Adds the fields of `j` that are not `known` to `unknown` (they are warned about, not errors).
void note_unknown(const json& j, std::initializer_list<const char*> known, std::vector<std::string>& unknown) {
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; }))
      unknown.push_back(it.key());
}

// A list of plies (analyzePlies, or the plies an action stops): at least one, each in
// 0..max, returned ascending without repeats.
std::vector<int> get_plies(const json& v, const char* field, int max) {
  const json& a = get_array(v, field, size_t(kMaxMoves) + 1);
  if (a.empty()) fail(field, "must list at least one ply");
  std::vector<int> plies;
  for (const json& p : a) plies.push_back(get_int(p, field, 0, max));
  std::sort(plies.begin(), plies.end());
  plies.erase(std::unique(plies.begin(), plies.end()), plies.end());
  return plies;
}

ParsedLine parse_action(const json& j, ParsedLine out) {
  const std::string action = get_string(j["action"], "action");
  std::vector<std::string>& unknown = out.unknown_fields;
  if (action == "quit") {
    note_unknown(j, {"id", "action"}, unknown);
    out.kind = LineKind::QUIT;
  } else if (action == "query_version") {
    note_unknown(j, {"id", "action"}, unknown);
    out.kind = LineKind::QUERY_VERSION;
  } else if (action == "clear_cache") {
    note_unknown(j, {"id", "action"}, unknown);
    out.kind = LineKind::CLEAR_CACHE;
  } else if (action == "terminate" || action == "terminate_all") {
    const bool all = action == "terminate_all";
    if (all)
      note_unknown(j, {"id", "action", "plies"}, unknown);
    else
      note_unknown(j, {"id", "action", "terminateId", "plies"}, unknown);
    if (!all) {
      if (!j.contains("terminateId")) fail("terminateId", "missing (the id of the query to stop)");
      out.terminate_id = get_string(j["terminateId"], "terminateId");
    }
    if (j.contains("plies")) out.plies = get_plies(j["plies"], "plies", kMaxMoves);
    out.kind = all ? LineKind::TERMINATE_ALL : LineKind::TERMINATE;
  } else {
    fail("action",
         "must be one of terminate, terminate_all, query_version, clear_cache, quit; got \"" + clipped(action) + "\"");
  }
  return out;
}

// The search settings overrideSettings may set: search.* fields of proto/config.proto by
// their config names, each with the SearchParams member it sets (algorithm has its own
// code). Ranges and choices come from the fields' options in the proto. The root-noise
// settings (dirichlet_*) are left out: analysis searches run without root noise.
struct Setting {
  const char* name;
  float search::SearchParams::*real = nullptr;
  int search::SearchParams::*integer = nullptr;
  bool search::SearchParams::*flag = nullptr;
};
using P = search::SearchParams;
const Setting kSettings[] = {
    {"algorithm"},
    {"c_puct_init", &P::c_puct_init},
    {"c_puct_base", &P::c_puct_base},
    {"fpu_reduction", &P::fpu_reduction},
    {"fpu_reduction_root", &P::fpu_reduction_root},
    {"gumbel_m", nullptr, &P::gumbel_m},
    {"gumbel_c_visit", &P::gumbel_c_visit},
    {"gumbel_c_scale", &P::gumbel_c_scale},
    {"max_collisions", nullptr, &P::max_collisions},
    {"immediate_wins", nullptr, nullptr, &P::immediate_wins},
    {"gumbel_max_visits", nullptr, &P::gumbel_max_visits},
};

void set_algorithm(const json& v, const std::string& field, const std::vector<std::string>& choices, P& p) {
  const std::string a = get_string(v, field);
  if (std::find(choices.begin(), choices.end(), a) == choices.end())
    fail(field, "must be one of " + join(choices, ", ") + ", got \"" + clipped(a) + "\"");
  p.algorithm = a == "gumbel" ? search::RootAlgorithm::GUMBEL : search::RootAlgorithm::PUCT;
}

void set_setting(const Setting& s, const json& v, P& p) {
  using FD = google::protobuf::FieldDescriptor;
  const std::string field = std::string("overrideSettings.") + s.name;
  const FD* f = xqzero::SearchConfig::descriptor()->FindFieldByName(s.name);
  if (!f) throw std::logic_error("overrideSettings: proto/config.proto has no search." + std::string(s.name));
  const google::protobuf::FieldOptions& o = f->options();
  const xqzero::FieldRange range = o.GetExtension(xqzero::range);
  const double lo = range.has_min() ? range.min() : -1e300, hi = range.has_max() ? range.max() : 1e300;
  if (f->cpp_type() == FD::CPPTYPE_STRING && std::string(s.name) == "algorithm") {
    set_algorithm(v, field, split_fields(o.GetExtension(xqzero::choices), '|'), p);
  } else if (s.real && f->cpp_type() == FD::CPPTYPE_FLOAT) {
    p.*s.real = float(get_number(v, field, lo, hi));
  } else if (s.integer && f->cpp_type() == FD::CPPTYPE_INT32) {
    p.*s.integer =
        get_int(v, field, std::llround(std::max(lo, double(INT_MIN))), std::llround(std::min(hi, double(INT_MAX))));
  } else if (s.flag && f->cpp_type() == FD::CPPTYPE_BOOL) {
    p.*s.flag = get_bool(v, field);
  } else {
    throw std::logic_error("overrideSettings: search." + std::string(s.name) + " has another type in the proto");
  }
}

void apply_overrides(const json& o, P& p) {
  if (!o.is_object()) fail("overrideSettings", "must be an object of setting names and values");
  std::vector<std::string> unknown;
  for (auto it = o.begin(); it != o.end(); ++it)
    if (std::none_of(std::begin(kSettings), std::end(kSettings), [&](const Setting& s) { return it.key() == s.name; }))
      unknown.push_back(clipped(it.key()));
  if (!unknown.empty())
    fail("overrideSettings", "unknown setting(s): " + join(unknown, ", ") + " (the settings are " +
                                 join(override_setting_names(), ", ") + ")");
  for (const Setting& s : kSettings)
    if (o.contains(s.name)) set_setting(s, o[s.name], p);
}

// Checks the FEN and plays `moves` from it.
void parse_moves(const json& j, Query& q) {
  Game game;
  try {
    game = Game(q.fen);
  } catch (const std::exception& e) {
    fail("fen", e.what());
  }
  if (!j.contains("moves")) return;
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

// Each listed move must be legal at every analysed ply (ICCS names squares, so one move
// value serves every position).
void parse_search_moves(const json& s, Query& q) {
  get_array(s, "searchMoves", MAX_MOVES);
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

// The limits and settings of the searches; overrideSettings last, so it wins.
void parse_settings(const json& j, Query& q) {
  if (j.contains("maxVisits")) q.max_visits = get_int(j["maxVisits"], "maxVisits", 1, kMaxVisits);
  if (j.contains("maxTime")) q.max_time_s = get_number(j["maxTime"], "maxTime", 0.001, kMaxTimeSeconds);
  if (j.contains("multiPV")) q.multi_pv = get_int(j["multiPV"], "multiPV", 0, MAX_MOVES);
  if (j.contains("includePolicy")) q.include_policy = get_bool(j["includePolicy"], "includePolicy");
  if (j.contains("priority")) q.priority = get_int(j["priority"], "priority", INT_MIN, INT_MAX);
  if (j.contains("cpuct")) q.search.c_puct_init = float(get_number(j["cpuct"], "cpuct", 0, 10));
  if (j.contains("algorithm")) set_algorithm(j["algorithm"], "algorithm", {"puct", "gumbel"}, q.search);
  if (j.contains("reportDuringSearchEvery"))
    q.report_every_s = get_number(j["reportDuringSearchEvery"], "reportDuringSearchEvery", 0.001, 3600);
  if (j.contains("overrideSettings")) apply_overrides(j["overrideSettings"], q.search);
}

Query parse_query(const json& j, const QueryDefaults& d, const std::string& id) {
  Query q;
  q.id = id;
  q.max_visits = d.max_visits;
  q.search = d.search;
  q.fen = j.contains("fen") ? get_string(j["fen"], "fen") : std::string(Position::kStartFen);
  parse_moves(j, q);
  const int plies = int(q.moves.size());
  if (j.contains("analyzePlies"))
    q.plies = get_plies(j["analyzePlies"], "analyzePlies", plies);
  else
    q.plies.push_back(plies);
  parse_settings(j, q);
  if (j.contains("searchMoves")) parse_search_moves(j["searchMoves"], q);
  return q;
}

}  // namespace

const std::vector<std::string>& override_setting_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Setting& s : kSettings) v.push_back(s.name);
    return v;
  }();
  return names;
}

std::string unknown_field_message(const std::string& field) {
  if (field == "analyzeTurns") return "unknown field, ignored (analyzePlies lists the plies to analyse)";
  if (field == "turnNumbers") return "unknown field, ignored (plies restricts a terminate action)";
  return "unknown field, ignored";
}

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
    note_unknown(j,
                 {"id", "fen", "moves", "maxVisits", "maxTime", "analyzePlies", "multiPV", "includePolicy",
                  "searchMoves", "cpuct", "algorithm", "reportDuringSearchEvery", "priority", "overrideSettings"},
                 out.unknown_fields);
    out.query = parse_query(j, defaults, out.id);
    out.kind = LineKind::QUERY;
  } catch (const FieldError& f) {
    out.kind = LineKind::ERROR;
    out.field = f.field;
    out.message = f.message;
    out.unknown_fields.clear();  // a line that fails is answered with its error alone
  }
  return out;
}

}  // namespace xq::app::analyse
