// `xqzero train` killed with SIGKILL at an arbitrary moment resumes from its last checkpoint
// and the games on disk: nothing written is lost and nothing is counted twice.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "nn/checkpoint.h"
#include "selfplay/record_io.h"
#include "selfplay/record_writer.h"

namespace fs = std::filesystem;

namespace xq::training {
namespace {

const char* kConfig = R"(
network { blocks: 1 channels: 8 value_hidden: 16 }
evaluator { name: "torch" device: "cpu" max_batch: 32 threads: 1 cache_entries: 1000 }
search { algorithm: "gumbel" gumbel_m: 4 leaves_per_batch: 2 }
selfplay { threads: 1 games_per_thread: 8 full_visits: 8 fast_visits: 2 full_fraction: 0.5
           max_plies: 60 games_per_file: 2 repetitions: 2 }
training { batch_size: 16 min_positions: 100 window_min: 100 checkpoint_every: 10 eval_every: 0
           device: "cpu" threads: 1 log_every: 5 max_samples_per_position: 2 }
)";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int64_t latest_step(const fs::path& run) {
  const std::string name = slurp(run / "latest");
  if (name.size() < 13) return -1;
  return std::atoll(name.c_str() + 5);  // ckpt-<step>.xqz
}

// Steps of the "train" lines, in file order.
std::vector<int64_t> train_steps(const fs::path& metrics) {
  std::vector<int64_t> steps;
  std::istringstream in(slurp(metrics));
  for (std::string line; std::getline(in, line);)
    if (line.find("\"kind\":\"train\"") != std::string::npos)
      steps.push_back(std::atoll(line.c_str() + line.find("\"step\":") + 7));
  return steps;
}

int count_games(const fs::path& games) {
  int n = 0;
  for (const auto& f : selfplay::list_record_files(games.string())) n += int(selfplay::read_record_file(f).size());
  return n;
}

TEST(TrainResume, SurvivesKillNine) {
  const fs::path dir = fs::temp_directory_path() / ("xqzero_resume_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "config.textproto") << kConfig;
  const fs::path run = dir / "run", log = dir / "log.txt";
  const std::vector<std::string> base = {XQZERO_BINARY, "train", "--config", (dir / "config.textproto").string(),
                                         "--run-dir", run.string()};

  // First run: killed once it has written a checkpoint beyond the initial one, while it is
  // still training and playing.
  std::vector<std::string> first = base;
  first.insert(first.end(), {"--max-steps", "100000"});
  const pid_t pid = spawn(first, log);
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (latest_step(run) < 20 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // somewhere between checkpoints
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << slurp(log);
  const int64_t killed_at = latest_step(run);
  ASSERT_GE(killed_at, 20) << slurp(log);

  // What it left is readable: the latest checkpoint and every record file.
  const xqzero::CheckpointMeta meta = nn::read_checkpoint((run / "checkpoints" / slurp(run / "latest").substr(0, 17)).string());
  EXPECT_EQ(meta.step(), killed_at);
  const int games_before = count_games(run / "games");
  EXPECT_GT(games_before, 0);

  // Second run: resumes and trains ten more steps.
  std::vector<std::string> second = base;
  second.insert(second.end(), {"--max-steps", std::to_string(killed_at + 10)});
  const pid_t pid2 = spawn(second, log);
  waitpid(pid2, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(log);
  const std::string output = slurp(log);
  EXPECT_NE(output.find("resuming " + run.string() + " from ckpt-"), std::string::npos) << output;
  EXPECT_NE(output.find("(step " + std::to_string(killed_at) + ")"), std::string::npos) << output;
  EXPECT_EQ(latest_step(run), killed_at + 10);
  EXPECT_GE(count_games(run / "games"), games_before) << "games written before the kill are kept";

  // Metrics: every train step once, in order, up to the end.
  const std::vector<int64_t> steps = train_steps(run / "metrics.jsonl");
  ASSERT_FALSE(steps.empty());
  for (size_t i = 1; i < steps.size(); ++i) EXPECT_LT(steps[i - 1], steps[i]) << "step " << steps[i] << " twice";
  EXPECT_EQ(steps.back(), killed_at + 10);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace xq::training
