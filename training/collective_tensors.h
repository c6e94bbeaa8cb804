// The tensor collectives of data-parallel training (implemented in training/collective.cpp,
// the one translation unit that includes c10d). Include only from torch translation units.
//
// LibTorch has no C++ DistributedDataParallel; this is its core, in a few lines: after each
// rank's backward pass, the gradients of every parameter are copied into one flat float32
// buffer, summed over the ranks by one all-reduce, divided by the world size and copied back,
// so every rank applies the same averaged gradient and the weights stay identical.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "training/collective.h"

namespace xq::training {

// Replaces each parameter's gradient by its mean over the ranks (parameters without a
// gradient contribute zeros).
void average_gradients(Collective& c, const std::vector<torch::Tensor>& parameters);
// Replaces each tensor by its mean over the ranks (BatchNorm running statistics, which each
// rank updates from its own batches).
void average_tensors(Collective& c, const std::vector<torch::Tensor>& tensors);
// Copies rank 0's values into each tensor on every rank.
void broadcast_from_first(Collective& c, const std::vector<torch::Tensor>& tensors);

}  // namespace xq::training
