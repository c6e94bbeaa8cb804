#include "selfplay/selfplay_config.h"

#include <sstream>
#include <stdexcept>

namespace xq::selfplay {

namespace {

template <typename T>
void check(const char* name, T value, double lo, double hi) {
  if (double(value) < lo || double(value) > hi) {
    std::ostringstream s;
    s << name << " = " << value << " is out of range " << lo << ".." << hi;
    throw std::invalid_argument(s.str());
  }
}

}  // namespace

void validate(const xqzero::SearchConfig& c) {
  if (c.algorithm() != "puct" && c.algorithm() != "gumbel")
    throw std::invalid_argument("search.algorithm = \"" + c.algorithm() + "\" is not one of puct, gumbel");
  check("search.c_puct_init", c.c_puct_init(), 0, 10);
  check("search.c_puct_base", c.c_puct_base(), 1, 1e7);
  check("search.fpu_reduction", c.fpu_reduction(), 0, 2);
  check("search.fpu_reduction_root", c.fpu_reduction_root(), 0, 2);
  check("search.dirichlet_alpha", c.dirichlet_alpha(), 0.01, 10);
  check("search.dirichlet_fraction", c.dirichlet_fraction(), 0, 1);
  check("search.gumbel_m", c.gumbel_m(), 1, 256);
  check("search.gumbel_c_visit", c.gumbel_c_visit(), 0, 1000);
  check("search.gumbel_c_scale", c.gumbel_c_scale(), 0, 100);
  check("search.leaves_per_batch", c.leaves_per_batch(), 1, 256);
  check("search.max_collisions", c.max_collisions(), 1, 1024);
}

void validate(const xqzero::SelfplayConfig& c) {
  check("selfplay.threads", c.threads(), 1, 256);
  check("selfplay.games_per_thread", c.games_per_thread(), 1, 4096);
  check("selfplay.full_visits", c.full_visits(), 1, 1000000);
  check("selfplay.fast_visits", c.fast_visits(), 1, 1000000);
  check("selfplay.full_fraction", c.full_fraction(), 0, 1);
  check("selfplay.temperature", c.temperature(), 0, 10);
  check("selfplay.temperature_plies", c.temperature_plies(), 0, 1000);
  check("selfplay.resign_threshold", c.resign_threshold(), -1, 0);
  check("selfplay.resign_consecutive", c.resign_consecutive(), 1, 100);
  check("selfplay.no_resign_fraction", c.no_resign_fraction(), 0, 1);
  check("selfplay.max_plies", c.max_plies(), 0, 10000);
  check("selfplay.repetitions", c.repetitions(), 1, 10);
  check("selfplay.games_per_file", c.games_per_file(), 1, 100000);
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
