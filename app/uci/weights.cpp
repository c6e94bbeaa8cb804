#include "app/uci/weights.h"

#include <cctype>

#include "nn/checkpoint.h"
#include "nn/evaluator_factory.h"

namespace xq::app::uci {

bool is_uniform_weights(const std::string& weights) {
  std::string w;
  for (char c : weights) w += char(std::tolower(static_cast<unsigned char>(c)));
  return w.empty() || w == "uniform" || w == "<uniform>";
}

std::shared_ptr<nn::Evaluator> make_weights_evaluator(const std::string& weights, xqzero::EvaluatorConfig base) {
  if (is_uniform_weights(weights)) {
    base.set_name("uniform");
    base.set_weights("");
    base.set_cache_entries(0);  // answering uniformly is cheaper than a cache lookup
    return nn::make_evaluator(base);
  }
  const xqzero::CheckpointMeta meta = nn::read_checkpoint(weights);
  base.set_name("torch");
  base.set_weights(weights);
  return nn::make_evaluator(base, meta.network());
}

}  // namespace xq::app::uci
