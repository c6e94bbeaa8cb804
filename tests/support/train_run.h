// The fixture of the `xqzero train` integration tests: a small configuration, a run
// directory per test, and the binary started as a child process.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "nn/checkpoint.h"
#include "records/record_io.h"
#include "records/record_writer.h"
#include "tests/support/free_port.h"
#include "training/collective.h"
#include "training/run_dir.h"

namespace xq::training::fixtures {

namespace fs = std::filesystem;

inline constexpr const char* kConfig = R"(
network { blocks: 1 channels: 8 value_hidden: 16 }
evaluator { name: "torch" device: "cpu" max_batch: 32 threads: 1 cache_entries: 1000 }
search { algorithm: "gumbel" gumbel_m: 4 leaves_per_batch: 2 }
selfplay { threads: 1 games_per_thread: 8 full_visits: 8 fast_visits: 2 full_fraction: 0.5
           max_plies: 60 games_per_file: 2 repetitions: 2 }
training { batch_size: 16 min_positions: 100 window_min: 100 checkpoint_every: 10 eval_every: 0
           device: "cpu" threads: 1 log_every: 5 max_samples_per_position: 2 }
)";

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// kConfig with `from` replaced by `to`.
inline std::string config_with(const std::string& from, const std::string& to) {
  std::string c = kConfig;
  const size_t at = c.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? c : c.replace(at, from.size(), to);
}

// The 1-based line of `needle` in `text`.
inline int line_of(const std::string& text, const std::string& needle) {
  return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(text.find(needle)), '\n'));
}

inline int newlines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

// Starts `args` (args[0] the binary) with stdout and stderr going to the files given.
inline pid_t spawn(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int e = err == out ? o : ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

struct Finished {
  bool exited = false;  // else killed by a signal
  int code = -1;        // exit status, or the signal
  std::string out, err;
};

// Waits for `pid`. A watchdog (not a timing assertion) kills a process that ignores its
// limits after two minutes, so that such a bug fails the test instead of hanging the suite.
inline Finished wait_for(pid_t pid, const fs::path& out, const fs::path& err) {
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "xqzero still running after two minutes; killed";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Finished f;
  f.exited = WIFEXITED(status);
  f.code = f.exited ? WEXITSTATUS(status) : WTERMSIG(status);
  f.out = slurp(out);
  f.err = slurp(err);
  return f;
}

inline int64_t latest_step(const fs::path& run) {
  std::string name = slurp(run / "latest");
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return checkpoint_step(name);
}

// Steps of the "train" lines, in file order.
inline std::vector<int64_t> train_steps(const fs::path& metrics) {
  std::vector<int64_t> steps;
  std::istringstream in(slurp(metrics));
  for (std::string line; std::getline(in, line);)
    if (line.find("\"kind\":\"train\"") != std::string::npos)
      steps.push_back(std::atoll(line.c_str() + line.find("\"step\":") + 7));
  return steps;
}

// Every train step once, in order, ending at `last`.
inline void expect_metrics_up_to(const fs::path& run, int64_t last) {
  const std::vector<int64_t> steps = train_steps(run / "metrics.jsonl");
  ASSERT_FALSE(steps.empty());
  for (size_t i = 1; i < steps.size(); ++i) EXPECT_LT(steps[i - 1], steps[i]) << "step " << steps[i] << " twice";
  EXPECT_EQ(steps.back(), last);
}

inline int count_games(const fs::path& games) {
  int n = 0;
  for (const auto& f : records::list_record_files(games.string())) n += int(records::read_record_file(f).size());
  return n;
}

// A hash of every checkpoint file's contents, by name.
inline std::map<std::string, size_t> checkpoint_files(const fs::path& run) {
  std::map<std::string, size_t> files;
  for (const auto& e : fs::directory_iterator(run / "checkpoints"))
    files[e.path().filename().string()] = std::hash<std::string>()(slurp(e.path()));
  return files;
}

inline void flip_bit(const fs::path& p, size_t byte) {
  std::string data = slurp(p);
  ASSERT_LT(byte, data.size());
  data[byte] = char(data[byte] ^ 0x04);
  write_text(p, data);
}

class TrainRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("xqzero_train_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    config_ = dir_ / "config.textproto";
    run_ = dir_ / "run";
    write_text(config_, kConfig);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // xqzero train --run-dir RUN [--config CONFIG] EXTRA...
  std::vector<std::string> args(const std::vector<std::string>& extra, bool with_config = true) const {
    std::vector<std::string> a = {XQZERO_BINARY, "train", "--run-dir", run_.string()};
    if (with_config) a.insert(a.end(), {"--config", config_.string()});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  // Runs to the end; `name` names its output files.
  Finished train(const std::vector<std::string>& extra, bool with_config, const std::string& name) {
    const fs::path out = dir_ / (name + ".out"), err = dir_ / (name + ".err");
    return wait_for(spawn(args(extra, with_config), out, err), out, err);
  }
  fs::path ckpt(int64_t step) const { return run_ / "checkpoints" / checkpoint_name(step); }

  fs::path dir_, config_, run_;
};

}  // namespace xq::training::fixtures
