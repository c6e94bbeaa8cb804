// The training-only auxiliary heads: the short-term value (network.short_value_head), whose
// target is the exponentially weighted mean of the search's root values over the plies ahead,
// and the soft policy (network.soft_policy_head), whose target is the search's target raised
// to the power 1/4.
#include <gtest/gtest.h>
#include "tests/support/tiny_net.h"
#include "tests/support/training_data.h"

#include <cmath>

#include "core/game.h"
#include "nn/network.h"
#include "records/record_io.h"
#include "training/trainer.h"

namespace xq::training {
namespace {

using test::cpu_training;
using test::some_games;

// The target written out as a sum (the code computes it backwards): the root values of plies
// t, t+1, ... weighted (1 - L) L^k with the sign of the mover at t, then the result in the
// view of the side to move at the end, weighted L^(T - t).
double expected_short_value(const std::vector<double>& roots, double end_value, size_t t) {
  const double lambda = kShortValueLambda;
  double sum = 0, weight = 1, sign = 1;
  for (size_t j = t; j < roots.size(); ++j) {
    sum += (1 - lambda) * weight * sign * roots[j];
    weight *= lambda;
    sign = -sign;
  }
  return sum + weight * sign * end_value;
}

TEST(TrainingPosition, ShortValueTargetWeighsTheRootValuesAhead) {
  for (const char* result : {"1-0", "0-1", "1/2-1/2"}) {
    xqzero::GameRecord g = some_games(1, 1.0f)[0];
    ASSERT_GE(g.moves_size(), 10);
    g.set_result(result);
    std::vector<double> roots;
    for (int i = 0; i < g.moves_size(); ++i) {
      const double v = std::sin(0.7 * i + 0.3);  // distinct values of both signs
      g.mutable_moves(i)->set_root_value(float(v));
      roots.push_back(float(v));
    }
    // The side to move after the last ply.
    const Game start(g.start_fen(), records::record_settings(g));
    const bool red_at_end = (start.side_to_move() == RED) == (g.moves_size() % 2 == 0);
    const double red_result = std::string(result) == "1-0" ? 1.0 : std::string(result) == "0-1" ? -1.0 : 0.0;
    const double end_value = red_at_end ? red_result : -red_result;
    const auto positions = positions_of(g, true);
    ASSERT_EQ(positions.size(), size_t(g.moves_size()));
    for (size_t t = 0; t < positions.size(); ++t)
      EXPECT_NEAR(positions[t].short_value / 32767.0, expected_short_value(roots, end_value, t), 1e-4)
          << result << " ply " << t;
    // The last ply's target leans on the result: the mover who ends a won game sees it positive.
    if (red_result != 0) {
      EXPECT_EQ(positions.back().short_value < 0, red_at_end == (red_result > 0)) << result;
    }
  }
}

TEST(Trainer, ShortValueHeadLearnsOnAFixedBatch) {
  std::vector<TrainingPosition> batch = test::some_batch(6, 64, 0.5f, true);
  ASSERT_GE(batch.size(), 32u);
  int distinct = 0;
  for (const auto& p : batch) distinct += p.short_value != batch[0].short_value;
  ASSERT_GT(distinct, 0) << "the targets should differ";
  xqzero::NetworkConfig net = ::xq::test::tiny_net_config();
  net.set_short_value_head(true);
  const auto [first, last] = test::train_on(net, batch);
  EXPECT_GT(first.short_value, 0.0);
  EXPECT_LT(last.short_value, 0.5 * first.short_value);
  // Without the head, no short-term loss is reported.
  Trainer plain(::xq::test::tiny_net_config(), cpu_training());
  EXPECT_EQ(plain.step(batch).short_value, 0.0);
}

TEST(Network, ShortValueHeadIsTrainingOnly) {
  xqzero::NetworkConfig c = ::xq::test::tiny_net_config();
  c.set_short_value_head(true);
  nn::Network net = nn::make_network(c, 3);
  net->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor features = torch::randn({5, c.channels(), 10, 9});
  const nn::NetworkImpl::Heads with = net->value_heads(features, true);
  ASSERT_TRUE(with.short_value.defined());
  EXPECT_EQ(with.short_value.size(0), 5);
  EXPECT_LE(with.short_value.abs().max().item<float>(), 1.0f);
  EXPECT_FALSE(net->value_heads(features, false).short_value.defined()) << "search never computes it";
}

TEST(Trainer, SoftPolicyHeadLearnsOnAFixedBatch) {
  std::vector<TrainingPosition> batch = test::some_batch(6, 64);
  ASSERT_GE(batch.size(), 32u);
  xqzero::NetworkConfig net = ::xq::test::tiny_net_config();
  net.set_soft_policy_head(true);
  const auto [first, last] = test::train_on(net, batch);
  EXPECT_GT(first.soft_policy, 0.0);
  EXPECT_LT(last.soft_policy, first.soft_policy);
  // The soft target is flatter than the target: its cross-entropy stays above the policy's
  // floor (the target's own entropy) once both heads have learned the batch.
  EXPECT_GT(last.soft_policy, last.policy_entropy);
  Trainer plain(::xq::test::tiny_net_config(), cpu_training());
  EXPECT_EQ(plain.step(batch).soft_policy, 0.0);
}

TEST(Network, SoftPolicyHeadIsTrainingOnly) {
  xqzero::NetworkConfig c = ::xq::test::tiny_net_config();
  c.set_soft_policy_head(true);
  nn::Network net = nn::make_network(c, 5);
  net->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor features = torch::randn({3, c.channels(), 10, 9});
  const nn::NetworkImpl::Heads with = net->heads(features, true);
  ASSERT_TRUE(with.soft_policy.defined());
  EXPECT_TRUE(with.soft_policy.sizes() == with.policy.sizes());
  EXPECT_FALSE(torch::equal(with.soft_policy, with.policy)) << "its own output layer";
  EXPECT_FALSE(net->heads(features, false).soft_policy.defined()) << "search never computes it";
  EXPECT_TRUE(torch::equal(net->policy_head(features), with.policy));
}

}  // namespace
}  // namespace xq::training
