// Checking network and evaluator configs, and comparing architectures (torch-free).
#pragma once

#include <string>
#include <vector>

#include "config.pb.h"
#include "nn/planes.h"

namespace xq::nn {

// Throws std::invalid_argument naming the first field out of range, e.g.
// "network.blocks = 0 is out of range 1..64".
void validate(const xqzero::NetworkConfig& config);
void validate(const xqzero::EvaluatorConfig& config);

// The devices self-play spreads over: evaluator.devices split at commas (blanks ignored), or
// evaluator.device alone when that is empty. Throws std::invalid_argument naming the field
// for an empty entry or more than 64.
std::vector<std::string> evaluator_devices(const xqzero::EvaluatorConfig& evaluator);

// "" when the two architectures are equal; otherwise every differing field, e.g.
// "blocks: 6 vs 10; se: false vs true" (a's value first). Unset fields count as their default.
std::string architecture_difference(const xqzero::NetworkConfig& a, const xqzero::NetworkConfig& b);

// What the input planes of a net of this architecture hold (nn/planes.h).
inline PlaneLayout plane_layout(const xqzero::NetworkConfig& config) {
  return PlaneLayout{config.history(), config.attack_planes()};
}

// A short name such as "6x64" or "10x128 se gp h2".
std::string short_name(const xqzero::NetworkConfig& config);

}  // namespace xq::nn
