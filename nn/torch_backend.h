// Torch-free entry point to the torch backend, for the evaluator factory.
#pragma once

#include <memory>

#include "config.pb.h"
#include "nn/evaluator.h"

namespace xq::nn {

// The torch backend the config names: loads evaluator.weights when set (the checkpoint's
// own architecture), otherwise builds `network` with fresh weights from evaluator.init_seed.
std::shared_ptr<Evaluator> make_torch_backend(const xqzero::EvaluatorConfig& evaluator,
                                              const xqzero::NetworkConfig& network);

}  // namespace xq::nn
