// The data-parallel options of `xqzero train` and `xqzero bench train`: torchrun's
// environment variables (WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT), then the flags
// --world-size, --rank, --master HOST:PORT and --dist-timeout S over them.
#pragma once

#include <string>
#include <vector>

#include "app/args.h"
#include "training/collective.h"

namespace xq::app {

// The option names, for an Args' value options.
const std::vector<std::string>& distributed_option_names();

// The options from the environment and `args`, validated; a UsageError names what is wrong.
training::DistributedOptions distributed_options(const Args& args);

}  // namespace xq::app
