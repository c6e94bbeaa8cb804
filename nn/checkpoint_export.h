// A checkpoint's weights alone (no optimiser or RNG sections): the form nets/ ships, about
// half a training checkpoint's size. Torch-free header; defined in checkpoint.cpp.
#pragma once

#include <string>

#include "checkpoint.pb.h"

namespace xq::nn {

// Reads and validates `from`, writes its weights, architecture and step to `to` (atomically)
// with `note` (the source's note when empty). Throws CheckpointError naming the file when
// `from` is not a valid checkpoint, std::runtime_error when `to` exists. Returns the metadata
// written.
xqzero::CheckpointMeta export_weights(const std::string& from, const std::string& to, const std::string& note);

}  // namespace xq::nn
