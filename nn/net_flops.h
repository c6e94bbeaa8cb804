// Floating-point operations of one forward pass per position (torch-free), for the
// benchmarks' achieved GFLOP/s (xqzero bench nn, bench mcts). A multiply-add counts as two
// operations; every convolution is counted over all 90 squares (the zero padding at the edges
// included, as oneDNN computes it); BatchNorm, ReLU, the plane expansion and the softmax are
// not counted (they are not multiply-adds, and next to the convolutions they are small).
#pragma once

#include "config.pb.h"

namespace xq::nn {

struct NetFlops {
  double stem = 0;    // the first 3x3 convolution, input planes -> channels
  double blocks = 0;  // the residual blocks: two 3x3 convolutions each, and squeeze-excitation
  double policy = 0;  // policy head: 3x3 convolution and the 1x1 to the move-type planes
  double value = 0;   // value head: 1x1 convolution and the fully connected layers (material too)
  double tower() const { return stem + blocks; }
  double total() const { return stem + blocks + policy + value; }
};

// Throws std::invalid_argument for a config that nn::validate refuses.
NetFlops net_flops(const xqzero::NetworkConfig& config);

}  // namespace xq::nn
