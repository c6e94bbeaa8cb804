// Evaluator inputs for benchmarks and timings (torch-free): the positions of seeded random
// games from the start position, one input per position, a new game after a position with no
// legal move or after `max_plies` plies. The same count and seed give the same inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "nn/evaluator.h"

namespace xq::nn {

std::vector<EvalInput> random_walk_inputs(int count, uint64_t seed, int max_plies = 150);

}  // namespace xq::nn
