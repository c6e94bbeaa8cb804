// Building the evaluator a config names (torch-free header; links the torch backend).
//
// make_evaluator stacks, outermost first:
//   CachingEvaluator     when evaluator.cache_entries > 0 (hits never wait for a batch)
//   BatchingEvaluator    when evaluator.max_batch > 1 (torch and test backends; the uniform
//                        backend answers at once and is never batched)
//   backend              "torch" (network.* on evaluator.device), "uniform" or "test"
// Configs are validated first (nn/net_config.h); bad values throw std::invalid_argument.
#pragma once

// A checkpoint (evaluator.weights) is read once and builds the net of its own architecture;
// `network` is the architecture of fresh weights (no checkpoint), from evaluator.init_seed.
#include <memory>
#include <string>
#include <vector>

#include "config.pb.h"
#include "nn/evaluator.h"
#include "nn/net_config.h"  // evaluator_devices

namespace xq::nn {

std::shared_ptr<Evaluator> make_evaluator(const xqzero::EvaluatorConfig& evaluator,
                                          const xqzero::NetworkConfig& network = xqzero::NetworkConfig(),
                                          Callers callers = Callers());

// "uniform" (any case, or "<uniform>"): uniform priors, no network. Only by name: an empty
// setting means the bundled net (nn/bundled_net.h).
bool is_uniform_weights(const std::string& weights);

// The evaluator a weights setting names (the UCI engine's WeightsFile, match players, the
// analysis engine): uniform priors, the bundled net (empty, "bundled" or "net"), or that
// checkpoint on the torch backend, with the rest
// of `base` (device, precision, batching, cache, threads) as given. Throws
// (CheckpointError, FileError, std::invalid_argument) naming the file and the problem.
std::shared_ptr<Evaluator> make_weights_evaluator(const std::string& weights, xqzero::EvaluatorConfig base,
                                                  Callers callers = Callers());

// One evaluator per device of evaluator_devices(), each as make_evaluator (or
// make_weights_evaluator) builds it on that device; `callers` are the totals over all devices
// (each gets its even share, rounded up).
std::vector<std::shared_ptr<Evaluator>> make_evaluators(const xqzero::EvaluatorConfig& evaluator,
                                                        const xqzero::NetworkConfig& network = xqzero::NetworkConfig(),
                                                        Callers callers = Callers());
std::vector<std::shared_ptr<Evaluator>> make_weights_evaluators(const std::string& weights,
                                                                const xqzero::EvaluatorConfig& base,
                                                                Callers callers = Callers());

}  // namespace xq::nn
