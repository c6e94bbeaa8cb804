// Comparing networks in tests: every parameter and floating buffer of a net, in order, and
// the largest difference between two such lists. Shared by the nn and training tests.
#pragma once

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

#include "nn/network.h"

namespace xq::test {

inline std::vector<torch::Tensor> net_state(const nn::Network& net) {
  std::vector<torch::Tensor> t = net->parameters();
  for (const torch::Tensor& b : net->buffers())
    if (b.is_floating_point()) t.push_back(b);
  return t;
}

// The largest absolute difference between matching tensors; a failure when the lists differ
// in length.
inline double max_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    worst = std::max(worst, (a[i].to(torch::kDouble) - b[i].to(torch::kDouble)).abs().max().item<double>());
  return worst;
}

inline double max_difference(const nn::Network& x, const nn::Network& y) {
  return max_difference(net_state(x), net_state(y));
}

}  // namespace xq::test
