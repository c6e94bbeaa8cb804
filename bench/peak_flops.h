// A peak the benchmarks compare the network with: the better GFLOP/s of a large LibTorch
// matrix product and a wide 3x3 convolution on the evaluator's own device, in its precision,
// with its torch threads (torch-free header). `xqzero bench nn` and `bench mcts` print the
// net's achieved GFLOP/s (nn/net_flops.h) as a share of it, so any machine shows how far from
// its limit the net runs.
#pragma once

#include <string>

#include "nn/evaluator.h"

namespace xq::bench {

struct PeakFlops {
  double gflops = 0;  // 0 when `backend` is not the torch backend
  std::string what;   // both figures, the precision, device and threads
};

// `backend` must be an nn::TorchEvaluator (else a zero peak). Square products of `n` and the
// convolution, timed in a thread of its own with `threads` torch threads (0: torch's default),
// each the best of three runs of about seconds / 3 after a warm-up.
PeakFlops measure_peak(const nn::Evaluator& backend, int threads, double seconds = 0.6, int n = 1024);

}  // namespace xq::bench
