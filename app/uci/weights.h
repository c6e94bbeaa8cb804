// The evaluator that a "weights" setting names, for the UCI engine and match players:
// "uniform" (or empty) gives uniform priors and no network; anything else is a checkpoint
// path, loaded into a torch backend of the checkpoint's own architecture, with the rest of
// `base` (device, batching, cache, threads) as given.
#pragma once

#include <memory>
#include <string>

#include "config.pb.h"
#include "nn/evaluator.h"

namespace xq::app::uci {

bool is_uniform_weights(const std::string& weights);

// Throws (nn::CheckpointError, FileError, std::invalid_argument) naming the file and the problem.
std::shared_ptr<nn::Evaluator> make_weights_evaluator(const std::string& weights, xqzero::EvaluatorConfig base);

}  // namespace xq::app::uci
