// The time manager: budgets from the clock, and never more than the clock holds.
#include <gtest/gtest.h>

#include "search/time_manager.h"

namespace xq::search {
namespace {

TEST(TimeManager, Budgets) {
  GoParams go;
  EXPECT_FALSE(compute_time_budget(go, RED, 100).limited());
  go.wtime = 10000;
  go.winc = 1000;
  TimeBudget b = compute_time_budget(go, RED, 100);
  EXPECT_EQ(b.soft_ms, 9900 / 30 + 750);
  EXPECT_EQ(b.hard_ms, 2 * b.soft_ms);
  go.movestogo = 1;  // last move before the control: up to 80% of what is left
  b = compute_time_budget(go, RED, 100);
  EXPECT_EQ(b.soft_ms, 9900 * 8 / 10);
  EXPECT_EQ(b.hard_ms, 9900 * 8 / 10);
  go = GoParams();
  go.movetime = 500;
  b = compute_time_budget(go, BLACK, 100);
  EXPECT_EQ(b.soft_ms, 400);
  EXPECT_EQ(b.hard_ms, 400);
  go.btime = 600;  // the clock's budget is smaller than movetime: 500 / 30, twice that
  b = compute_time_budget(go, BLACK, 100);
  EXPECT_EQ(b.soft_ms, 16);
  EXPECT_EQ(b.hard_ms, 32);
}

TEST(TimeManager, NeverSpendsMoreThanTheClockHolds) {
  for (int64_t time : {0, 1, 5, 50, 99, 100, 101, 150, 300, 1000, 3000, 60000, 3600000})
    for (int64_t inc : {0, 10, 100, 1000, 5000})
      for (int mtg : {0, 1, 2, 5, 40})
        for (int64_t overhead : {0, 10, 100, 1000}) {
          GoParams go;
          go.wtime = go.btime = time;
          go.winc = go.binc = inc;
          go.movestogo = mtg;
          const TimeBudget b = compute_time_budget(go, RED, overhead);
          const int64_t left = std::max<int64_t>(1, time - overhead);
          EXPECT_GE(b.soft_ms, 1);
          EXPECT_LE(b.soft_ms, b.hard_ms);
          EXPECT_LE(b.hard_ms, std::max<int64_t>(1, left * 8 / 10)) << time << " " << inc << " " << mtg;
          if (mtg != 1) {
            EXPECT_LE(b.hard_ms, std::max<int64_t>(1, left * 4 / 10));
          }
        }
}

}  // namespace
}  // namespace xq::search
