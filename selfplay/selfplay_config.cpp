#include "selfplay/selfplay_config.h"

#include <algorithm>

#include "proto/config_check.h"

namespace xq::selfplay {

// The ranges and choices are beside each field in proto/config.proto.
void validate(const xqzero::SearchConfig& c) { config::check_fields(c, "search"); }

void validate(const xqzero::SelfplayConfig& c) { config::check_fields(c, "selfplay"); }

search::SearchParams search_params(const xqzero::SearchConfig& c) {
  validate(c);
  search::SearchParams p;
  p.algorithm = c.algorithm() == "gumbel" ? search::RootAlgorithm::GUMBEL : search::RootAlgorithm::PUCT;
  p.c_puct_init = c.c_puct_init();
  p.c_puct_base = c.c_puct_base();
  p.fpu_reduction = c.fpu_reduction();
  p.fpu_reduction_root = c.fpu_reduction_root();
  p.dirichlet_alpha = c.dirichlet_alpha();
  p.dirichlet_fraction = c.dirichlet_fraction();
  p.gumbel_m = c.gumbel_m();
  p.gumbel_c_visit = c.gumbel_c_visit();
  p.gumbel_c_scale = c.gumbel_c_scale();
  p.max_collisions = c.max_collisions();
  p.immediate_wins = c.immediate_wins();
  p.gumbel_max_visits = c.gumbel_max_visits();
  return p;
}

SelfplayOptions selfplay_options(const xqzero::Config& config) {
  const xqzero::SelfplayConfig& c = config.selfplay();
  validate(c);
  SelfplayOptions o;
  o.search = search_params(config.search());
  o.search.gumbel_max_visits = 0;  // self-play's targets are Gumbel's at any budget
  o.leaves_per_batch = config.search().leaves_per_batch();
  o.threads = c.threads();
  o.games_per_thread = c.games_per_thread();
  o.full_visits = c.full_visits();
  o.fast_visits = c.fast_visits();
  o.full_fraction = c.full_fraction();
  o.temperature = c.temperature();
  o.fast_exploration = c.fast_exploration();
  o.temperature_plies = c.temperature_plies();
  o.random_opening_plies = c.random_opening_plies();
  o.visit_ramp_steps = c.visit_ramp_steps();
  o.visit_ramp_start = c.visit_ramp_start();
  o.decisive_value = c.decisive_value();
  o.decisive_plies = c.decisive_plies();
  o.resign_threshold = c.resign_threshold();
  o.resign_consecutive = c.resign_consecutive();
  o.no_resign_fraction = c.no_resign_fraction();
  o.game.length_cap = c.max_plies();
  o.game.repetitions = c.repetitions();
  o.tree_reuse = c.tree_reuse();
  o.seed = uint64_t(c.seed());
  return o;
}

nn::Callers selfplay_callers(const xqzero::Config& config) {
  const int threads = std::max(1, config.selfplay().threads());
  return nn::Callers(threads * config.selfplay().games_per_thread() * config.search().leaves_per_batch(), threads);
}

}  // namespace xq::selfplay
