#include "training/player_factory.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "nn/bundled_net.h"
#include "nn/evaluator_factory.h"
#include "selfplay/selfplay_config.h"

namespace xq::training {

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::unique_ptr<selfplay::Player> make_player(const std::string& spec, const xqzero::Config& config, int concurrency,
                                              uint64_t seed, selfplay::UciEngineOptions engine,
                                              const std::string& name) {
  if (spec == "random") return std::make_unique<selfplay::RandomPlayer>(seed);
  if (spec == "greedy") return std::make_unique<selfplay::GreedyPlayer>(seed);
  if (spec.rfind("uci:", 0) == 0) {
    engine.command = spec.substr(4);
    if (engine.command.empty()) throw std::invalid_argument("uci: needs a command");
    if (!name.empty()) engine.name = name;
    return std::make_unique<selfplay::UciEnginePlayer>(engine);
  }
  const bool uniform = nn::is_uniform_weights(spec);
  const std::string weights = uniform ? spec : nn::resolve_weights(spec);  // "net": the bundled net
  if (!uniform && !std::ifstream(weights))
    throw std::invalid_argument("'" + spec +
                                "' is neither random, greedy, uniform, net, uci:COMMAND nor a readable checkpoint");
  selfplay::MctsPlayerOptions o;
  o.search = selfplay::search_params(config.search());
  o.leaves_per_batch = config.search().leaves_per_batch();
  o.seed = seed;
  o.name = !name.empty() ? name : uniform ? "uniform" : base_name(weights);
  const int in_flight = std::max(1, concurrency) * o.leaves_per_batch;
  return std::make_unique<selfplay::MctsPlayer>(nn::make_weights_evaluator(weights, config.evaluator(), in_flight), o);
}

}  // namespace xq::training
