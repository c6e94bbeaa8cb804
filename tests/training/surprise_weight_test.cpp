// Sampling by surprise (training.surprise_weight): the surprise self-play records, the
// copies of each sample in the replay window (surprise_by "copies") and the policy loss
// weights (surprise_by "loss").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "tests/support/tiny_net.h"
#include "tests/support/training_data.h"
#include "training/surprise_weight.h"
#include "training/trainer.h"

namespace xq::training {
namespace {

using test::cpu_training;
using test::some_games;

// Self-play records each full search's KL(target || prior) and leaves fast searches without one.
TEST(SurpriseWeight, SelfplayRecordsTheSurpriseOfFullSearches) {
  int full = 0, positive = 0;
  for (const auto& g : some_games(4, 0.5f))
    for (const auto& m : g.moves()) {
      EXPECT_EQ(m.has_surprise(), m.training_target()) << m.move();
      if (!m.training_target()) continue;
      ++full;
      EXPECT_GE(m.surprise(), 0.0f);
      EXPECT_TRUE(std::isfinite(m.surprise()));
      positive += m.surprise() > 0;
    }
  ASSERT_GT(full, 10);
  EXPECT_GT(positive, 0) << "search never moved a target from the prior";
}

// One copy count per sample of positions_of, with and without value-only samples; value-only
// samples, and every sample at weight 0, enter once.
TEST(SurpriseWeight, OneCountPerSampleAndValueOnlySamplesOnce) {
  for (const auto& g : some_games(4, 0.5f))
    for (bool fast : {false, true}) {
      const auto positions = positions_of(g, fast);
      const auto zero = surprise_copies(g, fast, 0.0);
      ASSERT_EQ(zero.size(), positions.size());
      for (int c : zero) EXPECT_EQ(c, 1);
      const auto half = surprise_copies(g, fast, 0.5);
      ASSERT_EQ(half.size(), positions.size());
      for (size_t i = 0; i < positions.size(); ++i) {
        if (positions[i].n_policy == 0) {
          EXPECT_EQ(half[i], 1) << "value-only sample " << i;
        }
      }
    }
}

// A game whose moves have these surprises, in order; a negative one marks a fast move (no
// policy target, no surprise).
xqzero::GameRecord game_with_surprises(uint64_t seed, const std::vector<float>& surprises) {
  xqzero::GameRecord g;
  g.set_seed(seed);
  for (float k : surprises) {
    xqzero::MoveRecord* m = g.add_moves();
    m->set_training_target(k >= 0);
    if (k < 0) continue;
    m->add_policy_label(0);
    m->add_policy_weight(1.0f);
    m->set_surprise(k);
  }
  return g;
}

// A game of four full searches with surprises 0, 1, 2 and 5 (mean 2), and a fast move.
xqzero::GameRecord surprising_game(uint64_t seed) {
  return game_with_surprises(seed, {0.0f, 1.0f, 2.0f, 5.0f, -1.0f});
}

// Each policy sample gets floor(w) or floor(w) + 1 copies, w = (1 - s) + s k / mean(k), the
// same on every call, and over many games the mean of each is w (the draws are hashes of
// the seed and the ply, so this is the same on every machine).
TEST(SurpriseWeight, CopiesFollowTheWeightInExpectation) {
  for (double s : {0.5, 1.0}) {
    const double w[] = {1 - s, (1 - s) + s * 0.5, 1.0, (1 - s) + s * 2.5};
    double sum[4] = {0, 0, 0, 0};
    const int games = 4000;
    for (int seed = 0; seed < games; ++seed) {
      const auto g = surprising_game(uint64_t(seed) * 7919 + 3);
      const auto copies = surprise_copies(g, true, s);
      ASSERT_EQ(copies.size(), 5u);
      EXPECT_EQ(copies, surprise_copies(g, true, s)) << "not deterministic";
      EXPECT_EQ(copies[4], 1) << "the value-only sample";
      for (int i = 0; i < 4; ++i) {
        EXPECT_GE(copies[size_t(i)], int(std::floor(w[i])));
        EXPECT_LE(copies[size_t(i)], int(std::floor(w[i])) + 1);
        sum[i] += copies[size_t(i)];
      }
    }
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(sum[i] / games, w[i], 0.03) << "sample " << i << " at s " << s;
  }
}

// Copies line up with the samples whichever way fast moves count: a fast (value-only) move
// between full searches with surprises 2, 4, 0 and 2 (mean 2; at s = 1 the copies are exactly
// 1, 2, 0 and 1) keeps one copy as a value sample, and is no sample at all without
// fast_value_targets.
TEST(SurpriseWeight, CopiesLineUpWithTheSamplesAroundAFastMove) {
  const xqzero::GameRecord g = game_with_surprises(11, {2.0f, 4.0f, -1.0f, 0.0f, 2.0f});  // -1: the fast move
  EXPECT_EQ(surprise_copies(g, true, 1.0), (std::vector<int>{1, 2, 1, 0, 1}));
  EXPECT_EQ(surprise_copies(g, false, 1.0), (std::vector<int>{1, 2, 0, 1}));
  EXPECT_EQ(surprise_copies(g, true, 0.0), (std::vector<int>{1, 1, 1, 1, 1}));
}

// The weights are the copies' expectations: exactly w = (1 - s) + s k / mean(k) per policy
// sample (surprises 2, 4, 0 and 2 around a fast move), 1 for the value-only sample.
TEST(SurpriseWeight, WeightsAreTheCopiesExpectation) {
  const xqzero::GameRecord g = game_with_surprises(11, {2.0f, 4.0f, -1.0f, 0.0f, 2.0f});  // -1: the fast move
  EXPECT_EQ(surprise_weights(g, true, 1.0), (std::vector<double>{1, 2, 1, 0, 1}));
  EXPECT_EQ(surprise_weights(g, true, 0.5), (std::vector<double>{1, 1.5, 1, 0.5, 1}));
  EXPECT_EQ(surprise_weights(g, false, 0.25), (std::vector<double>{1, 1.25, 0.75, 1}));
  EXPECT_EQ(surprise_weights(g, true, 0.0), (std::vector<double>(5, 1.0)));
}

// set_surprise_weights puts each sample's weight in its policy_weight (1/1024 steps) and
// nothing else; value-only samples keep weight 1; a count that does not match is an error.
TEST(SurpriseWeight, SetWeightsMarksEachSample) {
  for (const auto& g : some_games(3, 0.5f)) {
    const auto plain = positions_of(g, true);
    for (const auto& p : plain) EXPECT_EQ(p.policy_weight, kUnitPolicyWeight);
    auto weighted = plain;
    set_surprise_weights(g, true, 0.5, weighted);
    const auto w = surprise_weights(g, true, 0.5);
    ASSERT_EQ(weighted.size(), w.size());
    bool some_differ = false;
    for (size_t i = 0; i < w.size(); ++i) {
      EXPECT_EQ(weighted[i].policy_weight, uint16_t(std::lround(w[i] * kUnitPolicyWeight))) << i;
      if (plain[i].n_policy == 0) {
        EXPECT_EQ(weighted[i].policy_weight, kUnitPolicyWeight) << i;
      }
      some_differ |= weighted[i].policy_weight != kUnitPolicyWeight;
      TrainingPosition back = weighted[i];
      back.policy_weight = kUnitPolicyWeight;
      EXPECT_EQ(std::memcmp(&back, &plain[i], sizeof back), 0) << "only the weight changes, sample " << i;
    }
    EXPECT_TRUE(some_differ);
    auto fewer = plain;
    fewer.pop_back();
    EXPECT_THROW(set_surprise_weights(g, true, 0.5, fewer), std::logic_error);
  }
}

// A weight past the field's range is capped, not wrapped: one surprising move among 80 at
// s = 1 weighs 80, stored as 65535 / kUnitPolicyWeight; the others weigh 0.
TEST(SurpriseWeight, LargeWeightsAreCapped) {
  std::vector<float> surprises(80, 0.0f);
  surprises[0] = 1.0f;
  const xqzero::GameRecord g = game_with_surprises(5, surprises);
  EXPECT_EQ(surprise_weights(g, false, 1.0)[0], 80.0);
  ASSERT_GT(80.0 * kUnitPolicyWeight, 65535.0);
  std::vector<TrainingPosition> positions(80);
  set_surprise_weights(g, false, 1.0, positions);
  EXPECT_EQ(positions[0].policy_weight, 65535);
  for (size_t i = 1; i < positions.size(); ++i) EXPECT_EQ(positions[i].policy_weight, 0) << i;
}

// The trainer's policy losses (and their entropy floor) weigh each sample by its
// policy_weight: doubling every weight doubles them; weight 0 on the second half of a batch
// leaves the first half's sum (the losses are means over the samples with a policy target).
TEST(SurpriseWeight, PolicyLossesWeighEachSample) {
  std::vector<TrainingPosition> batch = test::some_batch(4, 32);
  ASSERT_EQ(batch.size(), 32u);
  xqzero::NetworkConfig net = ::xq::test::tiny_net_config();
  net.set_soft_policy_head(true);
  xqzero::TrainingConfig t = cpu_training();  // float32: the same kernels on every machine
  Trainer trainer(net, t);
  const StepLosses one = trainer.measure(batch);
  auto doubled = batch;
  for (auto& p : doubled) p.policy_weight = 2 * kUnitPolicyWeight;
  const StepLosses two = trainer.measure(doubled);
  EXPECT_NEAR(two.policy, 2 * one.policy, 1e-4 * one.policy);
  EXPECT_NEAR(two.soft_policy, 2 * one.soft_policy, 1e-4 * one.soft_policy);
  EXPECT_NEAR(two.policy_entropy, 2 * one.policy_entropy, 1e-6 * one.policy_entropy);
  EXPECT_NEAR(two.value, one.value, 1e-6) << "the value loss keeps its weight";
  auto halved = batch;
  for (size_t i = 16; i < 32; ++i) halved[i].policy_weight = 0;
  const std::vector<TrainingPosition> first_half(batch.begin(), batch.begin() + 16);
  const StepLosses half = trainer.measure(halved), front = trainer.measure(first_half);
  EXPECT_NEAR(half.policy * 32, front.policy * 16, 1e-3 * front.policy * 16);
  EXPECT_NEAR(half.soft_policy * 32, front.soft_policy * 16, 1e-3 * front.soft_policy * 16);
  EXPECT_EQ(trainer.steps(), 0);
}

// Records written before the field (no surprise), and games whose surprises are all 0,
// weigh every sample alike.
TEST(SurpriseWeight, GamesWithoutSurpriseWeighAlike) {
  for (const auto& recorded : some_games(2, 0.5f)) {
    xqzero::GameRecord g = recorded;
    for (auto& m : *g.mutable_moves()) m.clear_surprise();
    for (int c : surprise_copies(g, true, 1.0)) EXPECT_EQ(c, 1);
    for (auto& m : *g.mutable_moves())
      if (m.training_target()) m.set_surprise(0.0f);
    for (int c : surprise_copies(g, false, 1.0)) EXPECT_EQ(c, 1);
  }
}

TEST(SurpriseWeight, WithCopiesRepeatsInOrder) {
  std::vector<TrainingPosition> p(3);
  for (int i = 0; i < 3; ++i) p[size_t(i)].result = int8_t(i - 1);
  const auto out = with_copies(p, {2, 0, 1});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].result, -1);
  EXPECT_EQ(out[1].result, -1);
  EXPECT_EQ(out[2].result, 1);
  EXPECT_THROW(with_copies(p, {1, 1}), std::logic_error);
}

}  // namespace
}  // namespace xq::training
