// A fresh network whose BatchNorm layers are away from their initial state, so that tests
// exercise real eval-mode arithmetic (and BatchNorm folding has work to do): running means
// and variances drawn at random, and with `affine` the BatchNorm scales and shifts too.
// Include only from torch test files.
#pragma once

#include <string>

#include "nn/network.h"

namespace xq::test {

inline nn::Network perturbed_net(const xqzero::NetworkConfig& c, uint64_t seed, bool affine) {
  nn::Network net = nn::make_network(c, seed);
  torch::NoGradGuard no_grad;
  for (auto& b : net->named_buffers()) {
    if (b.key().find("running_mean") != std::string::npos) b.value().uniform_(-0.2, 0.2);
    if (b.key().find("running_var") != std::string::npos) b.value().uniform_(0.5, 1.5);
  }
  if (affine)
    for (auto& p : net->named_parameters()) {
      if (p.key().find("bn") == std::string::npos) continue;
      if (p.key().find(".weight") != std::string::npos) p.value().uniform_(0.5, 1.5);
      if (p.key().find(".bias") != std::string::npos) p.value().uniform_(-0.2, 0.2);
    }
  return net;
}

}  // namespace xq::test
