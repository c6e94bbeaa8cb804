// How long to think, from the `go` command's clock fields (docs/architecture.md §6).
//
// movetime M: exactly M minus the move overhead (at least 1 ms).
// Clock (wtime/btime, winc/binc, movestogo): with `left` our remaining time less the move
// overhead, `inc` our increment and `mtg` the moves to go (movestogo, else 30 assumed):
//     soft = left / mtg + 3/4 inc       the normal stop
//     hard = min(2 soft, cap)            stop at the latest, even when the best move is unclear
//     cap  = 0.8 left when mtg = 1 (the last move before the control), else 0.4 left
// and soft <= hard. Because both are fractions of the time left after the overhead, the
// clock can never run out: each move spends at most 40% (80% for the last move before a
// time control) of what is left, and the overhead covers the latency of one search round
// plus the GUI's. When both movetime and a clock are given, the smaller budget wins.
// Without either the search has no time limit (nodes, depth, infinite, or until stop).
#pragma once

#include <cstdint>

#include "core/types.h"

namespace xq::search {

struct GoParams {
  int64_t wtime = -1, btime = -1;  // -1: not given
  int64_t winc = 0, binc = 0;
  int movestogo = 0;
  int64_t movetime = 0;
  int64_t nodes = 0;
  int depth = 0;
  bool infinite = false;
  bool ponder = false;
  int perft = 0;  // go perft N
};

struct TimeBudget {
  int64_t soft_ms = 0;  // 0: no time limit
  int64_t hard_ms = 0;
  bool limited() const { return hard_ms > 0; }
};

TimeBudget compute_time_budget(const GoParams& go, Color us, int64_t move_overhead_ms);

}  // namespace xq::search
