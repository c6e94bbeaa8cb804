// `xqzero bench train`: trainer throughput with its data path (sampling from the replay
// window, mirroring, building the batch) against a bare forward+backward loop on the same
// batches.
#pragma once

#include <iosfwd>

#include "config.pb.h"

namespace xq::bench {

void run_train_bench(std::ostream& out, const xqzero::Config& config, double seconds);

}  // namespace xq::bench
