// Checking the training section of a configuration (proto/config.proto TrainingConfig).
#pragma once

#include "config.pb.h"

namespace xq::training {

// Throws std::invalid_argument naming the first bad field, e.g.
// "training.batch_size = 0 is out of range 1..65536".
void validate(const xqzero::TrainingConfig& config);

}  // namespace xq::training
