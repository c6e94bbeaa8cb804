// libFuzzer target for the analysis engine's query parser (app/analyse/query.h): the input
// is one line of `xqzero analyse` input, parsed exactly as the engine reads it.
//
// Checks, beyond "no crash, no hang, no sanitizer report":
//   - parse_line never throws (bad input is an ERROR line, with a message);
//   - a query it accepts is one the engine can carry out: its FEN loads, its moves replay
//     legally from it, its plies are ascending, distinct and along the move list, its limits
//     are within the documented ranges, and each search move is legal at every analysed ply;
//   - an action's plies are ascending and distinct.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "app/analyse/query.h"
#include "core/game.h"
#include "core/movegen.h"

namespace {

using namespace xq;
using namespace xq::app::analyse;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_query: %s\n", what.c_str());
  std::abort();
}

bool ascending_distinct(const std::vector<int>& v) {
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] <= v[i - 1]) return false;
  return true;
}

void check_query(const Query& q) {
  if (q.max_visits < 1 || q.max_visits > kMaxVisits) fail("maxVisits out of range: " + std::to_string(q.max_visits));
  if (!(q.max_time_s >= 0 && q.max_time_s <= kMaxTimeSeconds)) fail("maxTime out of range");
  if (q.multi_pv < 0) fail("negative multiPV");
  if (!(q.report_every_s >= 0)) fail("negative report interval");
  if (q.moves.size() > size_t(kMaxMoves)) fail("more moves than allowed");
  if (q.plies.empty() || !ascending_distinct(q.plies)) fail("plies empty or not ascending and distinct");
  if (q.plies.front() < 0 || q.plies.back() > int(q.moves.size())) fail("a ply off the move list");
  Game game(q.fen);  // throws (and so fails the target) if an accepted FEN does not load
  size_t next = 0;
  for (int ply = 0; ply <= int(q.moves.size()); ++ply) {
    if (next < q.plies.size() && q.plies[next] == ply) {
      ++next;
      for (Move m : q.search_moves)
        if (!is_legal(game.position(), m)) fail("a search move is illegal at ply " + std::to_string(ply));
    }
    if (ply == int(q.moves.size())) break;
    if (!is_legal(game.position(), q.moves[size_t(ply)]))
      fail("an accepted move is illegal at ply " + std::to_string(ply));
    game.play(q.moves[size_t(ply)]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;  // the parser is linear; longer lines add only time
  const std::string line(reinterpret_cast<const char*>(data), size);
  static const QueryDefaults defaults;
  ParsedLine p;
  try {
    p = parse_line(line, defaults);
  } catch (const std::exception& e) {
    fail(std::string("parse_line threw: ") + e.what());
  }
  try {
    switch (p.kind) {
      case LineKind::ERROR:
        if (p.message.empty()) fail("an error without a message");
        break;
      case LineKind::QUERY: check_query(p.query); break;
      case LineKind::TERMINATE:
      case LineKind::TERMINATE_ALL:
        if (!ascending_distinct(p.plies)) fail("action plies not ascending and distinct");
        break;
      default: break;
    }
  } catch (const std::exception& e) {
    fail(std::string("an accepted line does not replay: ") + e.what());
  }
  return 0;
}
