#include "nn/evaluator_factory.h"

#include <algorithm>
#include <stdexcept>

#include "nn/batching_evaluator.h"
#include "nn/bundled_net.h"
#include "nn/eval_cache.h"
#include "nn/net_config.h"
#include "nn/torch_backend.h"
#include "util/text.h"

namespace xq::nn {

std::shared_ptr<Evaluator> make_evaluator(const xqzero::EvaluatorConfig& ec, const xqzero::NetworkConfig& nc,
                                          Callers callers) {
  validate(ec);
  std::shared_ptr<Evaluator> e;
  if (ec.name() == "uniform") {
    e = std::make_shared<UniformEvaluator>();
  } else {
    if (ec.name() == "test") {
      e = std::make_shared<TestEvaluator>(uint64_t(ec.init_seed()));
    } else {
      if (ec.weights().empty()) validate(nc);
      e = make_torch_backend(ec, nc);
    }
    const int max_batch = callers.max_in_flight > 0 ? std::min(ec.max_batch(), callers.max_in_flight) : ec.max_batch();
    if (max_batch > 1) {
      BatchingEvaluator::Options o;
      o.max_batch = max_batch;
      o.deadline_us = ec.deadline_us();
      o.callers = callers.threads;
      e = std::make_shared<BatchingEvaluator>(e, o);
    }
  }
  if (ec.cache_entries() > 0) e = std::make_shared<CachingEvaluator>(e, size_t(ec.cache_entries()));
  return e;
}

bool is_uniform_weights(const std::string& weights) {
  const std::string w = to_lower(weights);
  return w == "uniform" || w == "<uniform>";
}

std::shared_ptr<Evaluator> make_weights_evaluator(const std::string& weights, xqzero::EvaluatorConfig base,
                                                  Callers callers) {
  if (is_uniform_weights(weights)) {
    base.set_name("uniform");
    base.set_weights("");
    base.set_cache_entries(0);  // answering uniformly is cheaper than a cache lookup
  } else {
    base.set_name("torch");
    base.set_weights(resolve_weights(weights));
  }
  return make_evaluator(base, xqzero::NetworkConfig(), callers);
}

namespace {

// `build` on each device of `ec`, with its share of the callers.
template <class Build>
std::vector<std::shared_ptr<Evaluator>> per_device(const xqzero::EvaluatorConfig& ec, Callers callers, Build build) {
  const std::vector<std::string> devices = evaluator_devices(ec);
  const int n = int(devices.size());
  const Callers share((callers.max_in_flight + n - 1) / n, (callers.threads + n - 1) / n);
  std::vector<std::shared_ptr<Evaluator>> out;
  for (const std::string& device : devices) {
    xqzero::EvaluatorConfig one = ec;
    one.set_device(device);
    one.clear_devices();
    out.push_back(build(one, share));
  }
  return out;
}

}  // namespace

std::vector<std::shared_ptr<Evaluator>> make_evaluators(const xqzero::EvaluatorConfig& ec,
                                                        const xqzero::NetworkConfig& nc, Callers callers) {
  return per_device(ec, callers,
                    [&](const xqzero::EvaluatorConfig& one, Callers share) { return make_evaluator(one, nc, share); });
}

std::vector<std::shared_ptr<Evaluator>> make_weights_evaluators(const std::string& weights,
                                                                const xqzero::EvaluatorConfig& base, Callers callers) {
  return per_device(base, callers, [&](const xqzero::EvaluatorConfig& one, Callers share) {
    return make_weights_evaluator(weights, one, share);
  });
}

}  // namespace xq::nn
