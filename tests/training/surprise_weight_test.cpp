// Sampling by surprise (training.surprise_weight): the surprise self-play records, and the
// copies of each sample in the replay window.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tests/support/training_data.h"
#include "training/surprise_weight.h"

namespace xq::training {
namespace {

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

// A game of four full searches with surprises 0, 1, 2 and 5 (mean 2), and a fast move.
xqzero::GameRecord surprising_game(uint64_t seed) {
  xqzero::GameRecord g;
  g.set_seed(seed);
  const float surprise[] = {0.0f, 1.0f, 2.0f, 5.0f};
  for (int i = 0; i < 5; ++i) {
    xqzero::MoveRecord* m = g.add_moves();
    m->set_training_target(i < 4);
    if (i == 4) continue;
    m->add_policy_label(0);
    m->add_policy_weight(1.0f);
    m->set_surprise(surprise[i]);
  }
  return g;
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
  xqzero::GameRecord g;
  g.set_seed(11);
  const float surprise[] = {2.0f, 4.0f, -1.0f, 0.0f, 2.0f};  // -1: the fast move
  for (float k : surprise) {
    xqzero::MoveRecord* m = g.add_moves();
    m->set_training_target(k >= 0);
    if (k < 0) continue;
    m->add_policy_label(0);
    m->add_policy_weight(1.0f);
    m->set_surprise(k);
  }
  EXPECT_EQ(surprise_copies(g, true, 1.0), (std::vector<int>{1, 2, 1, 0, 1}));
  EXPECT_EQ(surprise_copies(g, false, 1.0), (std::vector<int>{1, 2, 0, 1}));
  EXPECT_EQ(surprise_copies(g, true, 0.0), (std::vector<int>{1, 1, 1, 1, 1}));
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
