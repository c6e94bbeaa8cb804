#include "nn/evaluator_factory.h"

#include "nn/batching_evaluator.h"
#include "nn/eval_cache.h"
#include "nn/net_config.h"
#include "nn/torch_backend.h"

namespace xq::nn {

std::shared_ptr<Evaluator> make_evaluator(const xqzero::EvaluatorConfig& ec, const xqzero::NetworkConfig& nc) {
  validate(ec);
  std::shared_ptr<Evaluator> e;
  if (ec.name() == "uniform") {
    e = std::make_shared<UniformEvaluator>();
  } else {
    if (ec.name() == "test") {
      e = std::make_shared<TestEvaluator>(uint64_t(ec.init_seed()));
    } else {
      validate(nc);
      e = make_torch_backend(ec, nc);
    }
    if (ec.max_batch() > 1) {
      BatchingEvaluator::Options o;
      o.max_batch = ec.max_batch();
      o.deadline_us = ec.deadline_us();
      e = std::make_shared<BatchingEvaluator>(e, o);
    }
  }
  if (ec.cache_entries() > 0) e = std::make_shared<CachingEvaluator>(e, size_t(ec.cache_entries()));
  return e;
}

}  // namespace xq::nn
