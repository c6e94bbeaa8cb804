// `xqzero bench nn` and `xqzero bench nncheck`: network throughput, and device and precision checks.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "config.pb.h"

namespace xq::bench {

struct NnBenchOptions {
  xqzero::NetworkConfig network;  // the net measured (fresh seeded weights)
  std::string device = "auto";    // evaluator device
  std::string precision = "auto";
  std::optional<bool> fold_batchnorm;  // the backend's form (nn::InferenceForm); unset: its choice
  std::optional<bool> channels_last;
  int threads = 0;         // torch intra-op threads (0 = torch's default)
  int max_batch = 1024;    // largest raw batch size measured (powers of two from 1)
  double seconds = 1.0;    // time per measurement
  int deadline_us = 1000;  // batching wrapper deadline
  std::vector<int> submitters = {1, 2, 4, 8};
  bool breakdown = false;  // also where a batch of min(64, max_batch) spends its time
};

// Prints the parameter count, the operations per position (nn/net_flops.h), a peak measured on
// the same device, precision and threads (bench/peak_flops.h), a raw throughput table
// (forward pass alone, with its GFLOP/s and share of that peak, and the whole torch backend:
// host preparation, transfer, forward, masked softmax, copy back) for batch sizes 1..max_batch, then the batching
// evaluator's throughput with 1, 2, 4 and 8 threads each submitting single positions (max batch = threads), as a
// percentage of the backend at that batch size, and one row with twice as many submitters as the batch size (overlap at
// work). With `breakdown`, between the two: the backend's time for one batch of min(64, max_batch) in its parts (host
// preparation, input planes, tower, policy head, value head, the rest of the forward pass, and
// gather/mask/softmax/copies), each timed alone, with the tower's GFLOP/s.
void run_nn_bench(std::ostream& out, const NnBenchOptions& options);

struct NnCheckOptions {
  xqzero::NetworkConfig network;  // fresh seeded weights, unless `weights` names a checkpoint
  std::string weights;            // checkpoint to check instead (its own architecture)
  std::string device = "auto";    // compared against a float32 CPU reference
  int positions = 256;
  int threads = 0;
  uint64_t seed = 1;
};

// Evaluates the same positions with the same weights on CPU (float32 reference, single
// evaluations) and on the device (batched; through a checkpoint round trip; through the
// batching wrapper with several threads), in every precision the device allows, and on CPU
// in bfloat16 as well. Fresh weights get BatchNorm statistics and affine parameters away from
// their defaults and output layers scaled up, so that priors and W/D/L are as peaked as a
// trained net's rather than near uniform. Prints per row the largest differences in priors
// and W/D/L and the top-1 move agreement rates, checked against the stated tolerance of the
// precision (nn/output_check.h). Returns true when every row is within tolerance.
bool run_nn_check(std::ostream& out, const NnCheckOptions& options);

}  // namespace xq::bench
