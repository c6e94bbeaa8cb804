#include "selfplay/selfplay_config.h"

#include "proto/config_check.h"

namespace xq::selfplay {

using config::check_choice;
using config::check_range;

void validate(const xqzero::SearchConfig& c) {
  check_choice("search.algorithm", c.algorithm(), {"puct", "gumbel"});
  check_range("search.c_puct_init", c.c_puct_init(), 0, 10);
  check_range("search.c_puct_base", c.c_puct_base(), 1, 1e7);
  check_range("search.fpu_reduction", c.fpu_reduction(), 0, 2);
  check_range("search.fpu_reduction_root", c.fpu_reduction_root(), 0, 2);
  check_range("search.dirichlet_alpha", c.dirichlet_alpha(), 0.01, 10);
  check_range("search.dirichlet_fraction", c.dirichlet_fraction(), 0, 1);
  check_range("search.gumbel_m", c.gumbel_m(), 1, 256);
  check_range("search.gumbel_c_visit", c.gumbel_c_visit(), 0, 1000);
  check_range("search.gumbel_c_scale", c.gumbel_c_scale(), 0, 100);
  check_range("search.leaves_per_batch", c.leaves_per_batch(), 1, 256);
  check_range("search.max_collisions", c.max_collisions(), 1, 1024);
}

void validate(const xqzero::SelfplayConfig& c) {
  check_range("selfplay.threads", c.threads(), 0, 256);
  check_range("selfplay.games_per_thread", c.games_per_thread(), 1, 4096);
  check_range("selfplay.full_visits", c.full_visits(), 1, 1000000);
  check_range("selfplay.fast_visits", c.fast_visits(), 1, 1000000);
  check_range("selfplay.full_fraction", c.full_fraction(), 0, 1);
  check_range("selfplay.temperature", c.temperature(), 0, 10);
  check_range("selfplay.temperature_plies", c.temperature_plies(), 0, 1000);
  check_range("selfplay.resign_threshold", c.resign_threshold(), -1, 0);
  check_range("selfplay.resign_consecutive", c.resign_consecutive(), 1, 100);
  check_range("selfplay.no_resign_fraction", c.no_resign_fraction(), 0, 1);
  check_range("selfplay.max_plies", c.max_plies(), 0, 10000);
  check_range("selfplay.repetitions", c.repetitions(), 1, 10);
  check_range("selfplay.games_per_file", c.games_per_file(), 1, 100000);
}

SearchParams search_params(const xqzero::SearchConfig& c) {
  validate(c);
  SearchParams p;
  p.algorithm = c.algorithm() == "gumbel" ? RootAlgorithm::GUMBEL : RootAlgorithm::PUCT;
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
  return p;
}

SelfplayOptions selfplay_options(const xqzero::Config& config) {
  const xqzero::SelfplayConfig& c = config.selfplay();
  validate(c);
  SelfplayOptions o;
  o.search = search_params(config.search());
  o.leaves_per_batch = config.search().leaves_per_batch();
  o.threads = c.threads();
  o.games_per_thread = c.games_per_thread();
  o.full_visits = c.full_visits();
  o.fast_visits = c.fast_visits();
  o.full_fraction = c.full_fraction();
  o.temperature = c.temperature();
  o.fast_exploration = c.fast_exploration();
  o.temperature_plies = c.temperature_plies();
  o.resign_threshold = c.resign_threshold();
  o.resign_consecutive = c.resign_consecutive();
  o.no_resign_fraction = c.no_resign_fraction();
  o.game.length_cap = c.max_plies();
  o.game.repetitions = c.repetitions();
  o.tree_reuse = c.tree_reuse();
  o.seed = uint64_t(c.seed());
  return o;
}

}  // namespace xq::selfplay
