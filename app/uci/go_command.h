// `go` (app/uci/uci_engine.h describes the command): its words read into a request, noting
// what was wrong with them, and the request turned into the limits of a search.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/uci/search_thread.h"
#include "core/position.h"
#include "search/time_manager.h"

namespace xq::app::uci {

// `go depth D` searches at most this many times D^2 new visits (D 10: 1,600; D 20: 6,400).
constexpr int64_t kVisitsPerDepthSquared = 16;

// `go mate N` searches at most this many times N^2 new visits (N 1: 2,000; N 3: 18,000)
// unless a win in at most N moves is proven first, and N is at most kMaxMateMoves. (Sparse
// mates in three took 33-153 visits, uniform priors or the bundled net.)
constexpr int64_t kMateVisitsPerMoveSquared = 2000;
constexpr int kMaxMateMoves = 100;

// What `go` asked for, and what was wrong with it.
struct GoRequest {
  search::GoParams go;
  std::vector<std::string> notes;  // info strings: a bad value and what is done instead
  bool bad_value = false;          // a value was bad (its limit ignored or replaced)
  bool perft = false;              // go perft: go.perft is its depth, 0 when that was bad
  std::vector<Move> search_moves;  // go searchmoves: the legal moves listed (empty: every move)
  int mate = 0;                    // go mate N: N moves, 0 when not asked for (or bad)
};

// Reads go's words (words[0] is "go"), the moves after searchmoves checked at `pos`.
// Unknown words, bad values and listed moves that are not legal at `pos` are noted and
// skipped; the rest is kept. A searchmoves list without a legal move searches every move,
// and says so.
GoRequest parse_go(const std::vector<std::string>& words, const Position& pos);

// The limits of the search `r` asks for with `side` to move. A request whose bad values
// left no limit (and that did not ask for infinite) gets one visit, said in `notes`.
SearchLimits go_limits(const GoRequest& r, Color side, int64_t move_overhead_ms, std::vector<std::string>& notes);

}  // namespace xq::app::uci
