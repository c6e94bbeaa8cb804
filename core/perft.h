// Perft: counts the leaf nodes of the legal move tree, the rules' truth test.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/position.h"

namespace xq {

// The deepest perft that `xqzero perft` and the UCI `go perft` accept.
constexpr int kMaxPerftDepth = 10;

// Leaves at `depth` plies (depth 0 = 1). The last ply is counted without being made.
uint64_t perft(Position& pos, int depth);

// Per legal root move, its subtree's leaf count at depth - 1 below it.
std::vector<std::pair<Move, uint64_t>> perft_divide(Position& pos, int depth);

}  // namespace xq
