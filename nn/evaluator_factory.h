// Building the evaluator a config names (torch-free header; links the torch backend).
//
// make_evaluator stacks, outermost first:
//   CachingEvaluator     when evaluator.cache_entries > 0 (hits never wait for a batch)
//   BatchingEvaluator    when evaluator.max_batch > 1 (torch and test backends; the uniform
//                        backend answers at once and is never batched)
//   backend              "torch" (network.* on evaluator.device), "uniform" or "test"
// Configs are validated first (nn/net_config.h); bad values throw std::invalid_argument.
#pragma once

#include <memory>

#include "config.pb.h"
#include "nn/evaluator.h"

namespace xq::nn {

std::shared_ptr<Evaluator> make_evaluator(const xqzero::EvaluatorConfig& evaluator,
                                          const xqzero::NetworkConfig& network = xqzero::NetworkConfig());

}  // namespace xq::nn
