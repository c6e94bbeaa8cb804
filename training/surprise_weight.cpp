#include "training/surprise_weight.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace xq::training {

namespace {

// A uniform number in [0, 1) from the game's seed and a ply (splitmix64's finaliser).
double uniform_of(uint64_t seed, uint64_t ply) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (ply + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53;
}

// Each training sample's surprise weight (surprise_weights below) and the index of its move.
struct SampleWeights {
  std::vector<double> weight;
  std::vector<int> ply;
};

SampleWeights weights_and_plies(const xqzero::GameRecord& game, bool fast_value_targets, double weight) {
  SampleWeights w;
  double sum = 0;
  int policy_samples = 0;
  bool recorded = true;
  for (int i = 0; i < game.moves_size(); ++i) {
    const xqzero::MoveRecord& m = game.moves(i);
    if (!is_training_sample(m, fast_value_targets)) continue;
    w.weight.push_back(1);
    w.ply.push_back(i);
    if (!has_policy_target(m)) continue;
    ++policy_samples;
    if (!m.has_surprise() || !std::isfinite(m.surprise()) || m.surprise() < 0) recorded = false;
    sum += m.has_surprise() ? double(m.surprise()) : 0.0;
  }
  if (!(weight > 0) || policy_samples == 0 || !recorded || !(sum > 0)) return w;
  const double mean = sum / policy_samples;
  for (size_t s = 0; s < w.weight.size(); ++s) {
    const xqzero::MoveRecord& m = game.moves(w.ply[s]);
    if (has_policy_target(m)) w.weight[s] = (1 - weight) + weight * double(m.surprise()) / mean;
  }
  return w;
}

}  // namespace

std::vector<double> surprise_weights(const xqzero::GameRecord& game, bool fast_value_targets, double weight) {
  return weights_and_plies(game, fast_value_targets, weight).weight;
}

std::vector<int> surprise_copies(const xqzero::GameRecord& game, bool fast_value_targets, double weight) {
  const SampleWeights w = weights_and_plies(game, fast_value_targets, weight);
  std::vector<int> copies(w.weight.size(), 1);
  if (!(weight > 0)) return copies;
  for (size_t s = 0; s < w.weight.size(); ++s) {
    const double whole = std::floor(w.weight[s]);
    copies[s] = int(whole) + (uniform_of(game.seed(), uint64_t(w.ply[s])) < w.weight[s] - whole ? 1 : 0);
  }
  return copies;
}

void set_surprise_weights(const xqzero::GameRecord& game, bool fast_value_targets, double weight,
                          std::vector<TrainingPosition>& positions) {
  const std::vector<double> weights = surprise_weights(game, fast_value_targets, weight);
  if (weights.size() != positions.size())
    throw std::logic_error("set_surprise_weights: " + std::to_string(weights.size()) + " weights for " +
                           std::to_string(positions.size()) + " samples");
  for (size_t i = 0; i < positions.size(); ++i)
    positions[i].policy_weight =
        uint16_t(std::lround(std::clamp(weights[i] * kUnitPolicyWeight, 0.0, 65535.0)));
}

std::vector<TrainingPosition> with_copies(const std::vector<TrainingPosition>& positions,
                                          const std::vector<int>& copies) {
  if (copies.size() != positions.size())
    throw std::logic_error("with_copies: " + std::to_string(copies.size()) + " copy counts for " +
                           std::to_string(positions.size()) + " samples");
  std::vector<TrainingPosition> out;
  size_t total = 0;
  for (int c : copies) total += size_t(std::max(c, 0));
  out.reserve(total);
  for (size_t i = 0; i < positions.size(); ++i)
    for (int c = 0; c < copies[i]; ++c) out.push_back(positions[i]);
  return out;
}

}  // namespace xq::training
