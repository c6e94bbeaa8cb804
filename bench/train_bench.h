// `xqzero bench train`: trainer throughput with its data path (sampling from the replay
// window, mirroring, building the batch) against a bare forward+backward loop on the same
// batches. With a data-parallel group (world size > 1, every rank running the same command)
// each rank steps on its share of the batch over c10d/Gloo, and the figure is the samples/s
// of all ranks together.
#pragma once

#include <iosfwd>

#include "config.pb.h"
#include "training/collective.h"

namespace xq::bench {

void run_train_bench(std::ostream& out, const xqzero::Config& config, double seconds,
                     const training::DistributedOptions& distributed = {});

}  // namespace xq::bench
