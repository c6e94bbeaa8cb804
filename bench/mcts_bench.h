// `xqzero bench mcts`: self-play search throughput with the torch network, against the raw
// batched network throughput for the same net and batch size.
#pragma once

#include <iosfwd>
#include <string>

#include "config.pb.h"

namespace xq::bench {

// Runs self-play (config's search and selfplay sections, its network with fresh weights on
// its evaluator device, no evaluation cache so every leaf reaches the net) for `seconds`,
// then times the bare torch backend on batches of the size self-play produced. Prints
// simulations/s, leaf evaluations/s, batch fill, the ratio of the two throughputs, the leaf
// evaluations' GFLOP/s against a peak measured on the same device and precision
// (bench/peak_flops.h), and the tree's memory per node and edge.
void run_mcts_bench(std::ostream& out, const xqzero::Config& config, double seconds);

// `xqzero bench mcts --tree-visits N`: one search of `visits` visits from the start position
// with the uniform evaluator (no network; PUCT or Gumbel as `algorithm` says), then the
// tree's size: nodes, edges, bytes in use and bytes per node. Deterministic.
void run_tree_memory_bench(std::ostream& out, int visits, const std::string& algorithm);

}  // namespace xq::bench
