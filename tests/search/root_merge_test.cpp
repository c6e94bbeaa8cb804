// Root parallelism: merging root statistics and the multi-threaded search itself.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/move_parse.h"
#include "core/movegen.h"
#include "search/parallel_search.h"
#include "search/root_merge.h"
#include "tests/support/search_fixtures.h"
#include "tests/support/test_positions.h"

namespace xq::search {
namespace {

using namespace fixtures;

RootStat stat(const Position& pos, const char* iccs, uint32_t visits, double q, Proven proven = Proven::NONE,
              int plies = 0) {
  RootStat s;
  s.move = parse_legal_move(pos, iccs);
  s.visits = visits;
  s.q_sum = q * visits;
  s.proven = proven;
  s.proven_plies = plies;
  return s;
}

TEST(RootMerge, SumsVisitsAndWeighsValuesByVisits) {
  const Position pos = Position();
  std::vector<RootStat> a{stat(pos, "h2e2", 30, 0.5), stat(pos, "b2e2", 10, 0.0)};
  const std::vector<RootStat> b{stat(pos, "h2e2", 10, -0.5), stat(pos, "h0g2", 5, 0.2)};
  merge_into(a, b);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].visits, 40u);
  EXPECT_NEAR(a[0].q(), (30 * 0.5 - 10 * 0.5) / 40.0, 1e-9);
  EXPECT_EQ(a[1].visits, 10u);
  EXPECT_EQ(a[2].move, parse_legal_move(pos, "h0g2"));
  // Several searches: the most visited merged move.
  EXPECT_EQ(merged_best(a, Move()), parse_legal_move(pos, "h2e2"));
  // A single search: its own choice (e.g. Gumbel's pick), not the most visited.
  EXPECT_EQ(merged_best(a, parse_legal_move(pos, "b2e2")), parse_legal_move(pos, "b2e2"));
  EXPECT_TRUE(merged_best({}, Move()).is_none());
}

TEST(RootMerge, AProvenWinFromAnySearchIsPlayed) {
  const Position pos = Position();
  std::vector<RootStat> a{stat(pos, "h2e2", 90, 0.1), stat(pos, "b2e2", 3, 0.9, Proven::WIN, 7)};
  merge_into(a, {stat(pos, "b2e2", 2, 1.0, Proven::WIN, 5)});
  EXPECT_EQ(a[1].proven, Proven::WIN);
  EXPECT_EQ(a[1].proven_plies, 5);  // the shortest proof
  EXPECT_EQ(merged_best(a, parse_legal_move(pos, "h2e2")), parse_legal_move(pos, "b2e2"));
  // A proof a helper found is kept when the main search has none for that move.
  std::vector<RootStat> c{stat(pos, "h2e2", 90, 0.1), stat(pos, "h0g2", 4, 0.0)};
  merge_into(c, {stat(pos, "h0g2", 1, 1.0, Proven::WIN, 3)});
  EXPECT_EQ(merged_best(c, Move()), parse_legal_move(pos, "h0g2"));
}

ParallelSettings settings(int threads) {
  ParallelSettings s;
  s.threads = threads;
  s.leaves_per_batch = 4;
  return s;
}

// Runs worker 0's rounds in this thread until every worker has finished (helpers included:
// once worker 0 is done this thread waits for them, a minute at most).
void run_to_end(ParallelSearch& ps) {
  ps.start_helpers();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!ps.all_finished() && std::chrono::steady_clock::now() < give_up)
    if (!ps.main_round(false)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(ps.all_finished()) << "the helpers did not finish within a minute";
  ps.stop_helpers();
}

TEST(ParallelSearch, SplitsTheNodeBudgetAndMergesEveryWorker) {
  nn::TestEvaluator evaluator(5);
  std::atomic<int> finished_helpers{0};
  ParallelSearch ps({nullptr, [&] { ++finished_helpers; }});
  const Game game;
  ps.prepare(game, settings(3), 301, evaluator);
  run_to_end(ps);
  EXPECT_TRUE(ps.all_finished());
  EXPECT_EQ(finished_helpers.load(), 2);
  EXPECT_EQ(ps.new_visits(), 301u);  // 101 + 100 + 100
  uint64_t merged_visits = 0;
  std::atomic<uint64_t> nodes_read{0};
  const std::vector<RootStat> merged = ps.merged_stats(&nodes_read);
  for (const RootStat& s : merged) merged_visits += s.visits;
  EXPECT_GT(nodes_read.load(), 0u);
  // Root visits count the expansion of the root itself once per tree.
  EXPECT_GE(merged_visits, 301u - 3u);
  EXPECT_LE(merged_visits, 301u);
  const Move best = ps.best_move(merged);
  EXPECT_TRUE(MoveList(game.position()).contains(best));

  // A continued game: the trees are kept (sync_to), and N nodes are N new visits again.
  Game next = game;
  next.play(best);
  ps.prepare(next, settings(3), 90, evaluator);
  run_to_end(ps);
  EXPECT_EQ(ps.new_visits(), 90u);
}

TEST(ParallelSearch, FindsTheMateWithHelpersAndReportsEvaluatorErrors) {
  nn::UniformEvaluator uniform;
  ParallelSearch ps({nullptr, nullptr});
  const Game game(kMateInOne);
  ps.prepare(game, settings(2), 200, uniform);
  run_to_end(ps);
  EXPECT_TRUE(test::mates_in_one(game.position(), ps.best_move(ps.merged_stats())));

  FailingEvaluator failing(1);
  std::vector<std::string> errors;
  std::mutex errors_mutex;
  ParallelSearch broken({[&](const std::string& what) {
                           std::lock_guard<std::mutex> lock(errors_mutex);
                           errors.push_back(what);
                         },
                         nullptr});
  broken.prepare(Game(), settings(2), 100, failing);
  run_to_end(broken);
  EXPECT_TRUE(broken.all_finished());
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0], "backend lost");
}

}  // namespace
}  // namespace xq::search
