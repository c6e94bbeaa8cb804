// One line of `xqzero analyse` input, parsed and checked (docs/analysis.md gives the
// protocol). A line is a query (a position, optionally with plies along a move list to
// analyse), an action (terminate, terminate_all, query_version, clear_cache, quit), or an
// error naming the field that is wrong and, when it could be read, the query's id. Fields
// the protocol does not know are not errors: the line is carried out and each such field
// is listed (the engine answers it with a warning line).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/game.h"
#include "search/search.h"

namespace xq::app::analyse {

// What a query may leave out, from the command line.
struct QueryDefaults {
  int max_visits = 400;
  search::SearchParams search;
};

struct Query {
  std::string id;
  std::string fen;                 // the start position (the standard one by default)
  std::vector<Move> moves;         // played from it, each legal
  std::vector<int> plies;          // positions to analyse: plies along `moves`, ascending
  int max_visits = 400;            // new root visits per position
  double max_time_s = 0;           // > 0: each position's search ends after this many seconds
  int multi_pv = 0;                // move entries per response, best first (0: every legal move)
  bool include_policy = false;     // the raw policy over the legal moves
  std::vector<Move> search_moves;  // root restriction (empty: all), legal at every analysed ply
  double report_every_s = 0;       // > 0: intermediate responses that often during a search
  int priority = 0;                // queued positions of higher priority are searched first
  search::SearchParams search;     // the defaults with the query's overrides
};

enum class LineKind { QUERY, TERMINATE, TERMINATE_ALL, QUERY_VERSION, CLEAR_CACHE, QUIT, ERROR };

struct ParsedLine {
  LineKind kind = LineKind::ERROR;
  Query query;                              // QUERY
  std::string id;                           // every kind but QUERY (empty when not given)
  std::string terminate_id;                 // TERMINATE: the query to stop
  std::vector<int> plies;                   // TERMINATE, TERMINATE_ALL: only these plies (empty: all)
  std::vector<std::string> unknown_fields;  // not ERROR: fields ignored, in the line's order
  std::string field;                        // ERROR: the field at fault (empty for malformed JSON)
  std::string message;                      // ERROR
};

// Never throws for bad input: every problem becomes an ERROR line.
ParsedLine parse_line(const std::string& line, const QueryDefaults& defaults);

// The warning for an unknown field: "unknown field, ignored", with the protocol's name for
// it when the field is KataGo's name of one (analyzeTurns, turnNumbers).
std::string unknown_field_message(const std::string& field);

// The names overrideSettings accepts (search.* fields of proto/config.proto), in order.
const std::vector<std::string>& override_setting_names();

// Field limits, shared with the help text.
constexpr int kMaxVisits = 10000000;
constexpr int kMaxMoves = 2000;
constexpr double kMaxTimeSeconds = 86400;

}  // namespace xq::app::analyse
