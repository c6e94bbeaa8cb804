// `go` (app/uci/uci_engine.h describes the command): its words read into a request, noting
// what was wrong with them, and the request turned into the limits of a search.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/uci/search_thread.h"
#include "core/types.h"
#include "search/time_manager.h"

namespace xq::app::uci {

// `go depth D` searches at most this many times D^2 new visits (D 10: 1,600; D 20: 6,400).
constexpr int64_t kVisitsPerDepthSquared = 16;

// What `go` asked for, and what was wrong with it.
struct GoRequest {
  search::GoParams go;
  std::vector<std::string> notes;  // info strings: a bad value and what is done instead
  bool bad_value = false;          // a value was bad (its limit ignored or replaced)
  bool perft = false;              // go perft: go.perft is its depth, 0 when that was bad
};

// Reads go's words (words[0] is "go"). Unknown words and bad values are noted and skipped;
// the rest is kept.
GoRequest parse_go(const std::vector<std::string>& words);

// The limits of the search `r` asks for with `side` to move. A request whose bad values
// left no limit (and that did not ask for infinite) gets one visit, said in `notes`.
SearchLimits go_limits(const GoRequest& r, Color side, int64_t move_overhead_ms, std::vector<std::string>& notes);

}  // namespace xq::app::uci
