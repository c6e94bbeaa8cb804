// Root parallelism's merge: several searches of one position (each with its own tree) give
// one set of root statistics and one move to play.
//
// Each search's root moves become RootStats, whose q and d are sums over visits so that
// trees add up: visits are summed and values visit-weighted. A proof found by any search is
// kept (the shortest proven win when two searches prove one). The move to play follows the
// search's own rule (search/search.h): a proven result first; else, with a single search,
// that search's own choice (Gumbel's pick included); else the most visited move.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/types.h"
#include "search/search.h"

namespace xq::search {

// One root move's statistics in one tree.
struct RootStat {
  Move move;
  float prior = 0;
  uint32_t visits = 0;
  double q_sum = 0, d_sum = 0;
  Proven proven = Proven::NONE;  // for the side to move at the root (the mover into the child)
  int proven_plies = 0;          // with proven: plies from the root to the proven end
  double q() const { return visits ? q_sum / visits : 0.0; }
  double d() const { return visits ? d_sum / visits : 0.0; }
};

// The root statistics of `search` (empty before its root is expanded), the moves its root
// filter allows (Search::set_root_filter) only. `nodes_read`
// (optional) grows by the tree nodes read: the root's moves and the line of the search's
// choice.
std::vector<RootStat> root_stats(const Search& search, std::atomic<uint64_t>* nodes_read = nullptr);

// Adds `from`'s statistics to `into`'s (moves missing from `into` are appended).
void merge_into(std::vector<RootStat>& into, const std::vector<RootStat>& from);

// The move to play from merged statistics. `own_choice`: the search's own best move when a
// single search made them (none otherwise). None when `stats` is empty.
Move merged_best(const std::vector<RootStat>& stats, Move own_choice);

}  // namespace xq::search
