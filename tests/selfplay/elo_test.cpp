// Elo estimate and 95% interval from wins, draws and losses (selfplay/elo.h).
#include <gtest/gtest.h>

#include <cstdio>

#include <cmath>

#include "selfplay/elo.h"

namespace xq::selfplay {
namespace {

TEST(Elo, ScoreAndEloAreInverse) {
  for (double s : {0.01, 0.1, 0.25, 0.5, 0.64, 0.9, 0.99}) EXPECT_NEAR(score_from_elo(elo_from_score(s)), s, 1e-12);
  EXPECT_NEAR(elo_from_score(0.5), 0.0, 1e-12);
  EXPECT_NEAR(elo_from_score(0.75), 400.0 * std::log10(3.0), 1e-9);  // 190.8
  EXPECT_TRUE(std::isinf(elo_from_score(0.0)) && elo_from_score(0.0) < 0);
  EXPECT_TRUE(std::isinf(elo_from_score(1.0)) && elo_from_score(1.0) > 0);
}

TEST(Elo, KnownMatch) {
  // W 6 D 2 L 2: score 0.7. The variance uses W 7 D 3 L 3 of 13 (one pseudo-game of each
  // outcome): mean 17/26, per-game variance 0.1864, standard error sqrt(0.1864 / 10).
  const EloEstimate e = estimate_elo(6, 2, 2);
  EXPECT_EQ(e.games(), 10);
  EXPECT_DOUBLE_EQ(e.score, 0.7);
  EXPECT_NEAR(e.elo, 147.1907, 1e-3);
  EXPECT_NEAR(e.lower, -38.0378, 1e-3);
  EXPECT_NEAR(e.upper, 528.7982, 1e-3);
  EXPECT_NEAR(e.margin, 283.4180, 1e-3);
  EXPECT_EQ(format_elo(e), "+147.2 +/- 283.4");
}

TEST(Elo, EvenMatchIsSymmetric) {
  const EloEstimate e = estimate_elo(30, 40, 30);
  EXPECT_DOUBLE_EQ(e.score, 0.5);
  EXPECT_NEAR(e.elo, 0.0, 1e-9);
  EXPECT_NEAR(e.lower, -e.upper, 1e-9);
  EXPECT_NEAR(e.margin, 53.245, 1e-3);
  EXPECT_EQ(format_elo(estimate_elo(1, 1, 1)).substr(0, 4), "+0.0");  // never "-0.0"
}

TEST(Elo, AllDrawsStillHaveAnInterval) {
  // 40 draws are not proof of equal strength: the pseudo-games give a finite, nonzero margin
  // that shrinks with more games, about as wide as one extra win and loss would make it.
  const EloEstimate e40 = estimate_elo(0, 40, 0), e100 = estimate_elo(0, 100, 0);
  EXPECT_DOUBLE_EQ(e40.elo + 0.0, 0.0);
  EXPECT_NEAR(e40.margin, 23.255, 1e-3);
  EXPECT_NEAR(e100.margin, 9.491, 1e-3);
  EXPECT_EQ(format_elo(e40), "+0.0 +/- 23.3");
  EXPECT_LT(e100.margin, estimate_elo(1, 98, 1).margin);
}

TEST(Elo, DrawsNarrowTheInterval) {
  // Same score, more draws: smaller variance.
  EXPECT_LT(estimate_elo(0, 100, 0).margin, estimate_elo(20, 60, 20).margin);
  EXPECT_LT(estimate_elo(20, 60, 20).margin, estimate_elo(50, 0, 50).margin);
  // More games: narrower.
  EXPECT_LT(estimate_elo(60, 0, 40).margin, estimate_elo(6, 0, 4).margin);
}

TEST(Elo, ExtremesAndNoGames) {
  const EloEstimate all = estimate_elo(5, 0, 0);
  EXPECT_DOUBLE_EQ(all.score, 1.0);
  EXPECT_TRUE(std::isinf(all.elo) && all.elo > 0);
  EXPECT_EQ(format_elo(all), "+inf");
  EXPECT_EQ(format_elo(estimate_elo(0, 0, 3)), "-inf");
  const EloEstimate none = estimate_elo(0, 0, 0);
  EXPECT_EQ(none.games(), 0);
  EXPECT_DOUBLE_EQ(none.score, 0.5);
  EXPECT_TRUE(std::isinf(none.margin));
  EXPECT_EQ(format_elo(none), "+0.0 +/- inf");
  // A lopsided but not total result: finite estimate, infinite upper bound.
  const EloEstimate most = estimate_elo(9, 0, 1);
  EXPECT_TRUE(std::isfinite(most.elo));
  EXPECT_GT(most.elo, 300);
  EXPECT_TRUE(std::isinf(most.upper));
  // The finite lower bound is printed: it is what a claim like "at least +X" rests on.
  char expected[64];
  std::snprintf(expected, sizeof expected, "%+.1f [%+.1f, +inf]", most.elo, most.lower);
  EXPECT_EQ(format_elo(most), expected);
  EXPECT_TRUE(std::isfinite(most.lower));
  EXPECT_LT(most.lower, most.elo);
}

}  // namespace
}  // namespace xq::selfplay
