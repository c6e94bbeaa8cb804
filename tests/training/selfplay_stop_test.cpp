// `xqzero selfplay --out DIR` and `xqzero match --records DIR` stopped by SIGINT: every game
// they finished is in a record file, and they print their summary or result line (through
// the built binary).
#include <gtest/gtest.h>

#include "tests/support/train_run.h"

namespace xq::training {
namespace {

using namespace fixtures;

// The games count of the last "selfplay: games N" progress line in `log`, or -1.
long long progress_games(const std::string& log) {
  const size_t at = log.rfind("selfplay: games ");
  return at == std::string::npos ? -1 : std::atoll(log.c_str() + at + 16);
}

TEST_F(TrainRun, SelfplayInterruptedKeepsItsFinishedGames) {
  const fs::path out = dir_ / "games", log = dir_ / "selfplay.txt";
  const pid_t pid = spawn({XQZERO_BINARY, "selfplay", "--evaluator", "uniform", "--games", "100000", "--out",
                           out.string(), "--set", "selfplay.games_per_file=1000", "--set", "selfplay.max_plies=60"},
                          log, log);
  ASSERT_GT(pid, 0);
  // Until a progress line (every two seconds) reports finished games; a watchdog, not a bound.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (progress_games(slurp(log)) < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const long long reported = progress_games(slurp(log));
  ASSERT_GE(reported, 1) << slurp(log);
  kill(pid, SIGINT);
  const Finished f = wait_for(pid, log, log);
  ASSERT_TRUE(f.exited && f.code == 0) << f.code << ": " << f.out;
  EXPECT_NE(f.out.find("records: "), std::string::npos) << f.out;
  // games_per_file 1000: all of them were still held in memory when the signal came.
  EXPECT_GE(count_games(out), reported) << f.out;
}

TEST_F(TrainRun, MatchInterruptedKeepsItsFinishedGamesAndResult) {
  const fs::path records = dir_ / "records", log = dir_ / "match.txt";
  const pid_t pid = spawn({XQZERO_BINARY, "match", "--a", "random", "--b", "greedy", "--games", "1000000", "--records",
                           records.string(), "--max-plies", "60"},
                          log, log);
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (slurp(log).find("\ngame 3 ") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, SIGINT);
  const Finished f = wait_for(pid, log, log);
  ASSERT_TRUE(f.exited && f.code == 0) << f.code << ": " << f.out.substr(f.out.size() > 2000 ? f.out.size() - 2000 : 0);
  const size_t at = f.out.find("match: stopped after ");
  ASSERT_NE(at, std::string::npos);
  const long long played = std::atoll(f.out.c_str() + at + 21);
  EXPECT_GE(played, 3);
  EXPECT_EQ(count_games(records), played);
  const std::string result = f.out.substr(f.out.rfind("result: "));
  EXPECT_NE(result.find("random vs greedy: games " + std::to_string(played) + " "), std::string::npos) << result;
}

}  // namespace
}  // namespace xq::training
