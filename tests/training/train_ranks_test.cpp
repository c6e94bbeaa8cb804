// `xqzero train` with others on one run directory, through the built binary: self-play
// workers (`xqzero selfplay --follow`) whose games it trains on, and two data-parallel ranks
// over Gloo on 127.0.0.1 that stay in step.
#include <gtest/gtest.h>

#include "tests/support/train_run.h"

namespace xq::training {
namespace {

using namespace fixtures;

// A trainer without self-play of its own (selfplay.threads 0) and two self-play workers
// (`xqzero selfplay --follow`) on one run directory: the workers' files do not collide and
// carry the net that played them, the trainer trains on both workers' games (it waits for
// them), and a worker picks up the trainer's newer checkpoint.
TEST_F(TrainRun, TrainsOnTheGamesOfTwoWorkers) {
  write_text(config_, config_with("selfplay { threads: 1", "selfplay { threads: 0"));
  const fs::path tlog = dir_ / "trainer.txt";
  const pid_t trainer = spawn(args({"--max-steps", "30"}), tlog, tlog);
  ASSERT_GT(trainer, 0);
  // The trainer writes config.textproto and the first checkpoint before waiting for games.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (latest_step(run_) < 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(latest_step(run_), 0) << slurp(tlog);
  auto worker = [&](const std::string& id) {
    const fs::path log = dir_ / (id + ".txt");
    return std::make_pair(
        spawn({XQZERO_BINARY, "selfplay", "--follow", run_.string(), "--worker-id", id, "--quiet"}, log, log), log);
  };
  const auto w1 = worker("w1"), w2 = worker("w2");
  const Finished t = wait_for(trainer, tlog, tlog);
  EXPECT_TRUE(t.exited && t.code == 0) << t.out;
  EXPECT_EQ(latest_step(run_), 30) << t.out;
  // The workers look at `latest` every two seconds: wait (a watchdog, not a timing
  // assertion) until a game of a newer net is on disk.
  auto newer_net_seen = [&] {
    for (const auto& file : records::list_record_files((run_ / "games").string()))
      for (const auto& g : records::read_record_file(file))
        if (g.network() != checkpoint_name(0)) return true;
    return false;
  };
  const auto newer_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (!newer_net_seen() && std::chrono::steady_clock::now() < newer_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Workers stop cleanly on SIGTERM, writing the games they finished.
  for (const auto& w : {w1, w2}) kill(w.first, SIGTERM);
  for (const auto& w : {w1, w2}) {
    const Finished f = wait_for(w.first, w.second, w.second);
    EXPECT_TRUE(f.exited && f.code == 0) << f.out;
  }
  std::map<std::string, int> games_by_worker, games_by_net;
  for (const auto& file : records::list_record_files((run_ / "games").string())) {
    const std::string name = fs::path(file).filename().string();
    const std::string who = name.rfind("worker-w1-", 0) == 0 ? "w1" : name.rfind("worker-w2-", 0) == 0 ? "w2" : name;
    for (const auto& g : records::read_record_file(file)) {
      ++games_by_worker[who];
      ++games_by_net[g.network()];
    }
  }
  EXPECT_GT(games_by_worker["w1"], 0);
  EXPECT_GT(games_by_worker["w2"], 0);
  EXPECT_EQ(games_by_worker.size(), 2u) << "only the workers' files (the trainer plays no games)";
  EXPECT_GT(games_by_net[checkpoint_name(0)], 0);
  EXPECT_GE(games_by_net.size(), 2u) << "the workers switched to a newer checkpoint";
  // The trainer counted worker games in its metrics.
  const std::string metrics = slurp(run_ / "metrics.jsonl");
  const size_t at = metrics.rfind("\"worker_games\":");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(std::atoll(metrics.c_str() + at + 15), 0);
}

// A worker started before its trainer waits for it; a second process with the same worker id
// is refused (it would play the same games); the trainer then trains on the worker's games.
TEST_F(TrainRun, WorkerWaitsForItsTrainerAndOwnsItsId) {
  write_text(config_, config_with("selfplay { threads: 1", "selfplay { threads: 0"));
  const fs::path wlog = dir_ / "w1.txt";
  const pid_t w1 =
      spawn({XQZERO_BINARY, "selfplay", "--follow", run_.string(), "--worker-id", "w1", "--quiet"}, wlog, wlog);
  ASSERT_GT(w1, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (slurp(wlog).find("waiting for the trainer") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_NE(slurp(wlog).find("waiting for the trainer of " + run_.string()), std::string::npos) << slurp(wlog);

  const fs::path dlog = dir_ / "duplicate.txt";
  const Finished dup = wait_for(
      spawn({XQZERO_BINARY, "selfplay", "--follow", run_.string(), "--worker-id", "w1", "--quiet"}, dlog, dlog), dlog,
      dlog);
  EXPECT_TRUE(dup.exited && dup.code != 0) << dup.code << ": " << dup.out;
  EXPECT_NE(
      dup.out.find("worker id 'w1' of run directory '" + run_.string() + "' is in use by pid " + std::to_string(w1)),
      std::string::npos)
      << dup.out;

  const fs::path tlog = dir_ / "trainer.txt";
  const Finished t = wait_for(spawn(args({"--max-steps", "20"}), tlog, tlog), tlog, tlog);
  EXPECT_TRUE(t.exited && t.code == 0) << t.out;
  EXPECT_EQ(latest_step(run_), 20) << t.out;
  kill(w1, SIGTERM);
  const Finished w = wait_for(w1, wlog, wlog);
  EXPECT_TRUE(w.exited && w.code == 0) << w.out;
  EXPECT_GT(count_games(run_ / "games"), 0);
}

// The "weights checksum" a rank prints when it stops, or "" when it printed none.
std::string weights_checksum(const std::string& out) {
  const std::string key = "weights checksum ";
  const size_t at = out.rfind(key);
  if (at == std::string::npos) return "";
  return out.substr(at + key.size(), out.find('\n', at) - at - key.size());
}

// Two trainer processes as data-parallel ranks over c10d/Gloo on 127.0.0.1: they stop
// together with identical weights; rank 0 alone writes checkpoints and metrics. Then kill -9
// of rank 1 in a longer run: rank 0 reports the lost peer and exits (no hang); started
// again, both ranks resume from rank 0's last checkpoint.
TEST_F(TrainRun, TwoRanksOverGloo) {
  if (!distributed_available()) GTEST_SKIP() << "this build has no c10d/Gloo";
  auto ranks = [&](const std::vector<std::string>& extra, const std::string& name) {
    const std::string master = "127.0.0.1:" + std::to_string(::xq::test::free_port());
    std::vector<std::pair<pid_t, fs::path>> r;
    for (int rank = 0; rank < 2; ++rank) {
      std::vector<std::string> a = extra;
      a.insert(a.end(),
               {"--world-size", "2", "--rank", std::to_string(rank), "--master", master, "--dist-timeout", "60"});
      const fs::path log = dir_ / (name + "-rank" + std::to_string(rank) + ".txt");
      r.emplace_back(spawn(args(a), log, log), log);
    }
    return r;
  };
  {
    const auto r = ranks({"--max-steps", "30"}, "first");
    const Finished f0 = wait_for(r[0].first, r[0].second, r[0].second);
    const Finished f1 = wait_for(r[1].first, r[1].second, r[1].second);
    ASSERT_TRUE(f0.exited && f0.code == 0) << f0.out;
    ASSERT_TRUE(f1.exited && f1.code == 0) << f1.out;
    EXPECT_NE(weights_checksum(f0.out), "") << f0.out;
    EXPECT_EQ(weights_checksum(f0.out), weights_checksum(f1.out)) << f0.out << f1.out;
    EXPECT_EQ(latest_step(run_), 30);
    expect_metrics_up_to(run_, 30);  // each step once: rank 1 writes no metrics
    for (const auto& f : records::list_record_files((run_ / "games").string()))
      EXPECT_EQ(fs::path(f).filename().string().rfind("selfplay-", 0), 0u) << f << ": rank 1 plays no games";
  }
  {
    const auto r = ranks({"--max-steps", "100000"}, "killed");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (latest_step(run_) < 50 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_GE(latest_step(run_), 50) << slurp(r[0].second);
    kill(r[1].first, SIGKILL);
    const Finished f1 = wait_for(r[1].first, r[1].second, r[1].second);
    EXPECT_FALSE(f1.exited);
    const Finished f0 = wait_for(r[0].first, r[0].second, r[0].second);
    EXPECT_TRUE(f0.exited && f0.code != 0) << f0.out;
    EXPECT_NE(f0.out.find("rank 0 of 2: "), std::string::npos) << f0.out;
    EXPECT_NE(f0.out.find("failed"), std::string::npos) << f0.out;
  }
  const int64_t resumed = latest_step(run_);
  const auto r = ranks({"--max-steps", std::to_string(resumed + 20)}, "resumed");
  const Finished f0 = wait_for(r[0].first, r[0].second, r[0].second);
  const Finished f1 = wait_for(r[1].first, r[1].second, r[1].second);
  ASSERT_TRUE(f0.exited && f0.code == 0) << f0.out;
  ASSERT_TRUE(f1.exited && f1.code == 0) << f1.out;
  EXPECT_NE(f1.out.find("from " + checkpoint_name(resumed)), std::string::npos) << f1.out;
  EXPECT_EQ(weights_checksum(f0.out), weights_checksum(f1.out));
  EXPECT_EQ(latest_step(run_), resumed + 20);
}

}  // namespace
}  // namespace xq::training
