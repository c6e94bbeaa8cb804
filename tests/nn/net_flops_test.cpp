// nn/net_flops.h: the operation count of a forward pass, checked against the network's own
// weights (every convolution weight is applied at each of the 90 squares, every fully
// connected weight once; two operations per multiply-add) and against a count by hand.
#include <gtest/gtest.h>

#include "nn/net_flops.h"
#include "nn/network.h"

namespace xq::nn {
namespace {

// 2 * (90 * convolution weights + fully connected weights) of a real network.
double flops_from_weights(const xqzero::NetworkConfig& config) {
  Network net = make_network(config, 1);
  double n = 0;
  for (const auto& p : net->named_parameters()) {
    const torch::Tensor& w = p.value();
    if (w.dim() == 4) n += 90.0 * double(w.numel());
    if (w.dim() == 2) n += double(w.numel());
  }
  return 2 * n;
}

xqzero::NetworkConfig config(int blocks, int channels, bool se, bool gp, bool material, bool attacks, int history) {
  xqzero::NetworkConfig c;
  c.set_blocks(blocks);
  c.set_channels(channels);
  c.set_se(se);
  c.set_global_pool(gp);
  c.set_material_head(material);
  c.set_attack_planes(attacks);
  c.set_history(history);
  return c;
}

TEST(NetFlops, MatchesTheNetworksWeightsForEveryOption) {
  for (const xqzero::NetworkConfig& c :
       {config(3, 32, false, true, true, true, 0), config(2, 16, true, false, false, false, 0),
        config(1, 8, true, true, true, false, 2), config(6, 64, false, false, true, true, 1)}) {
    const NetFlops f = net_flops(c);
    EXPECT_DOUBLE_EQ(f.total(), flops_from_weights(c)) << c.ShortDebugString();
    EXPECT_DOUBLE_EQ(f.total(), f.stem + f.blocks + f.policy + f.value);
    EXPECT_GT(f.tower(), f.policy + f.value) << "the tower dominates";
  }
}

// The tiny config's net (3 blocks of 32 channels, global pooling, material head, attack
// planes: 22 input planes; value head 4 channels, 128 hidden), counted by hand:
//   stem 2*90*22*32*9 = 1,140,480; blocks 3 * 2 * (2*90*32*32*9) = 9,953,280;
//   policy 2*90*32*32*9 + 2*90*32*50 = 1,946,880;
//   value 2*90*32*4 + 2*(4*90 + 64)*128 + 2*128*3 + 2*128 = 132,608;
//   13,173,248 in all, about 13.2 MFLOP per position.
TEST(NetFlops, TheTinyNetByHand) {
  const NetFlops f = net_flops(config(3, 32, false, true, true, true, 0));
  EXPECT_DOUBLE_EQ(f.stem, 1140480);
  EXPECT_DOUBLE_EQ(f.blocks, 9953280);
  EXPECT_DOUBLE_EQ(f.policy, 1946880);
  EXPECT_DOUBLE_EQ(f.value, 132608);
  EXPECT_DOUBLE_EQ(f.total(), 13173248);
}

TEST(NetFlops, RefusesAnInvalidConfig) {
  xqzero::NetworkConfig c;
  c.set_blocks(0);
  EXPECT_THROW(net_flops(c), std::invalid_argument);
}

}  // namespace
}  // namespace xq::nn
