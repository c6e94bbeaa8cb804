// `xqzero train` on its run directory, through the built binary (also as two data-parallel
// ranks over Gloo on 127.0.0.1): killed with SIGKILL at an
// arbitrary moment it resumes from its last checkpoint and the games on disk (nothing written
// is lost, nothing counted twice); a second trainer on the same directory is refused; a
// missing `latest` or corrupt checkpoints resume from the newest checkpoint that loads, never
// over the old run; a configuration that cannot run leaves the directory as it was; and the
// command line's limits hold on resume.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <fcntl.h>
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
#include "selfplay/record_io.h"
#include "selfplay/record_writer.h"
#include "tests/support/free_port.h"
#include "training/collective.h"
#include "training/run_dir.h"

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
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// kConfig with `from` replaced by `to`.
std::string config_with(const std::string& from, const std::string& to) {
  std::string c = kConfig;
  const size_t at = c.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? c : c.replace(at, from.size(), to);
}

// The 1-based line of `needle` in `text`.
int line_of(const std::string& text, const std::string& needle) {
  return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(text.find(needle)), '\n'));
}

int newlines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

// Starts `args` (args[0] the binary) with stdout and stderr going to the files given.
pid_t spawn(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
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
Finished wait_for(pid_t pid, const fs::path& out, const fs::path& err) {
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

int64_t latest_step(const fs::path& run) {
  std::string name = slurp(run / "latest");
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return checkpoint_step(name);
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

// Every train step once, in order, ending at `last`.
void expect_metrics_up_to(const fs::path& run, int64_t last) {
  const std::vector<int64_t> steps = train_steps(run / "metrics.jsonl");
  ASSERT_FALSE(steps.empty());
  for (size_t i = 1; i < steps.size(); ++i) EXPECT_LT(steps[i - 1], steps[i]) << "step " << steps[i] << " twice";
  EXPECT_EQ(steps.back(), last);
}

int count_games(const fs::path& games) {
  int n = 0;
  for (const auto& f : selfplay::list_record_files(games.string())) n += int(selfplay::read_record_file(f).size());
  return n;
}

// A hash of every checkpoint file's contents, by name.
std::map<std::string, size_t> checkpoint_files(const fs::path& run) {
  std::map<std::string, size_t> files;
  for (const auto& e : fs::directory_iterator(run / "checkpoints"))
    files[e.path().filename().string()] = std::hash<std::string>()(slurp(e.path()));
  return files;
}

void flip_bit(const fs::path& p, size_t byte) {
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

TEST_F(TrainRun, SurvivesKillNineAndLocksOutASecondTrainer) {
  const fs::path log = dir_ / "log.txt";
  // First run: killed once it has written a checkpoint beyond the initial one, while it is
  // still training and playing.
  const pid_t pid = spawn(args({"--max-steps", "100000"}), log, log);
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (latest_step(run_) < 20 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));

  // A second trainer on the same run directory is refused, naming the first, and touches
  // nothing.
  const std::string config_before = slurp(run_ / "config.textproto");
  const Finished second = train({"--max-steps", "100000"}, true, "second");
  EXPECT_TRUE(second.exited && second.code != 0) << second.code << ": " << second.err;
  EXPECT_NE(second.err.find("is in use by pid " + std::to_string(pid) + " on host "), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("lock file " + (run_ / "lock").string()), std::string::npos) << second.err;
  EXPECT_EQ(newlines(second.err), 1) << second.err;
  EXPECT_EQ(slurp(run_ / "config.textproto"), config_before);

  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // somewhere between checkpoints
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << slurp(log);
  const int64_t killed_at = latest_step(run_);
  ASSERT_GE(killed_at, 20) << slurp(log);

  // What it left is readable: the latest checkpoint and every record file.
  const xqzero::CheckpointMeta meta = nn::read_checkpoint(ckpt(killed_at).string());
  EXPECT_EQ(meta.step(), killed_at);
  const int games_before = count_games(run_ / "games");
  EXPECT_GT(games_before, 0);

  // Second run: the kernel dropped the killed trainer's lock; it resumes and trains ten
  // more steps.
  const pid_t pid2 = spawn(args({"--max-steps", std::to_string(killed_at + 10)}), log, log);
  const Finished resumed = wait_for(pid2, log, log);
  ASSERT_TRUE(resumed.exited && resumed.code == 0) << resumed.out;
  EXPECT_NE(resumed.out.find("resuming " + run_.string() + " from ckpt-"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("(step " + std::to_string(killed_at) + ")"), std::string::npos) << resumed.out;
  EXPECT_EQ(latest_step(run_), killed_at + 10);
  EXPECT_GE(count_games(run_ / "games"), games_before) << "games written before the kill are kept";
  expect_metrics_up_to(run_, killed_at + 10);
}

TEST_F(TrainRun, MissingLatestResumesFromTheNewestCheckpointThatLoads) {
  const Finished base = train({"--max-steps", "20"}, true, "base");
  ASSERT_TRUE(base.exited && base.code == 0) << base.out << base.err;
  ASSERT_EQ(latest_step(run_), 20);
  const std::string first = slurp(ckpt(0));

  // `latest` deleted by hand: the newest checkpoint, said on the console.
  fs::remove(run_ / "latest");
  const Finished a = train({"--max-steps", "30"}, false, "a");
  ASSERT_TRUE(a.exited && a.code == 0) << a.out << a.err;
  EXPECT_NE(a.out.find(run_.string() + " has no 'latest'; resuming from the newest checkpoint that loads"),
            std::string::npos)
      << a.out;
  EXPECT_NE(a.out.find("resuming " + run_.string() + " from ckpt-00000020.xqz (step 20)"), std::string::npos) << a.out;
  EXPECT_EQ(latest_step(run_), 30);
  EXPECT_TRUE(slurp(ckpt(0)) == first) << "the first checkpoint was overwritten";
  expect_metrics_up_to(run_, 30);

  // And the newest checkpoint corrupt (a flipped bit in its metadata): the one before.
  fs::remove(run_ / "latest");
  flip_bit(ckpt(30), 24);
  const Finished b = train({"--max-steps", "40"}, false, "b");
  ASSERT_TRUE(b.exited && b.code == 0) << b.out << b.err;
  EXPECT_NE(b.out.find("from ckpt-00000020.xqz (step 20)"), std::string::npos) << b.out;
  EXPECT_NE(b.err.find("skipped checkpoint " + ckpt(30).string() + ": header or metadata is corrupt"),
            std::string::npos)
      << b.err;
  EXPECT_EQ(latest_step(run_), 40);
  EXPECT_TRUE(slurp(ckpt(0)) == first) << "the first checkpoint was overwritten";
  expect_metrics_up_to(run_, 40);

  // None loads: an error, and nothing of the old run is overwritten.
  fs::remove(run_ / "latest");
  for (int64_t step = 0; step <= 40; step += 10) flip_bit(ckpt(step), 30);
  const auto checkpoints = checkpoint_files(run_);
  const std::string metrics = slurp(run_ / "metrics.jsonl");
  const Finished c = train({"--max-steps", "50"}, false, "c");
  EXPECT_TRUE(c.exited && c.code == 1) << c.code << ": " << c.out << c.err;
  EXPECT_NE(c.err.find("cannot resume: none of the 5 checkpoints in " + (run_ / "checkpoints").string() + " loads"),
            std::string::npos)
      << c.err;
  EXPECT_EQ(newlines(c.err), 1) << c.err;
  EXPECT_EQ(checkpoint_files(run_), checkpoints);
  EXPECT_EQ(slurp(run_ / "metrics.jsonl"), metrics);
  EXPECT_FALSE(fs::exists(run_ / "latest"));
}

// --max-steps (like --max-seconds and --device) holds for a resumed run, with or without
// --config, and is not written into the run's config.textproto.
TEST_F(TrainRun, ResumeHonoursTheCommandLine) {
  const Finished base = train({"--max-steps", "10"}, true, "base");
  ASSERT_TRUE(base.exited && base.code == 0) << base.out << base.err;
  ASSERT_EQ(latest_step(run_), 10);
  EXPECT_EQ(slurp(run_ / "config.textproto").find("max_steps"), std::string::npos);

  const Finished a = train({"--max-steps", "20"}, false, "a");
  ASSERT_TRUE(a.exited && a.code == 0) << a.out << a.err;
  EXPECT_NE(a.out.find("stopped at step 20"), std::string::npos) << a.out;
  EXPECT_EQ(latest_step(run_), 20);

  const Finished b = train({"--max-steps", "30"}, true, "b");
  ASSERT_TRUE(b.exited && b.code == 0) << b.out << b.err;
  EXPECT_EQ(latest_step(run_), 30);
  EXPECT_EQ(b.err.find("differs"), std::string::npos) << "the same config with a limit is the same config: " << b.err;
  expect_metrics_up_to(run_, 30);
}

// A configuration that cannot run (another architecture, a NaN learning rate, a stored
// config.textproto that does not validate or parse) is a one-line error naming what is wrong,
// and leaves the run directory as it was.
TEST_F(TrainRun, BadConfigsLeaveTheRunDirectoryIntact) {
  const Finished base = train({"--max-steps", "10"}, true, "base");
  ASSERT_TRUE(base.exited && base.code == 0) << base.out << base.err;
  const fs::path stored = run_ / "config.textproto";
  const std::string stored_text = slurp(stored), latest = slurp(run_ / "latest"),
                    metrics = slurp(run_ / "metrics.jsonl");
  const auto checkpoints = checkpoint_files(run_);
  auto expect_intact = [&](const std::string& what) {
    EXPECT_EQ(slurp(stored), stored_text) << what;
    EXPECT_EQ(slurp(run_ / "latest"), latest) << what;
    EXPECT_EQ(slurp(run_ / "metrics.jsonl"), metrics) << what;
    EXPECT_EQ(checkpoint_files(run_), checkpoints) << what;
  };
  auto expect_error = [&](const Finished& f, const std::string& needle) {
    EXPECT_TRUE(f.exited && f.code == 1) << (f.exited ? "exit " : "signal ") << f.code << ": " << f.err;
    EXPECT_NE(f.err.find(needle), std::string::npos) << f.err;
    EXPECT_EQ(newlines(f.err), 1) << f.err;
  };

  write_text(dir_ / "wide.textproto", config_with("blocks: 1", "blocks: 2"));
  expect_error(train({"--config", (dir_ / "wide.textproto").string(), "--max-steps", "20"}, false, "wide"),
               "architecture differs (checkpoint vs network): blocks: 1 vs 2");
  expect_intact("another architecture");

  const std::string nan = config_with("batch_size: 16", "batch_size: 16 learning_rate: nan");
  write_text(dir_ / "nan.textproto", nan);
  expect_error(train({"--config", (dir_ / "nan.textproto").string(), "--max-steps", "20"}, false, "nan"),
               "line " + std::to_string(line_of(nan, "learning_rate")) + ": training.learning_rate = nan");
  expect_intact("a NaN learning rate");

  // The run's own config.textproto goes through the same checks as any other.
  for (const char* field : {"log_every: 5", "checkpoint_every: 10"}) {
    const std::string name = std::string(field).substr(0, std::string(field).find(':'));
    const std::string zero = config_with(field, name + ": 0");
    write_text(stored, zero);
    expect_error(train({"--max-steps", "20"}, false, name),
                 "config '" + stored.string() + "': line " + std::to_string(line_of(zero, name)) + ": training." +
                     name + " = 0 is out of range");
  }
  const std::string unknown = config_with("log_every: 5", "log_every: 5 bogus: 1");
  write_text(stored, unknown);
  const Finished syntax = train({"--max-steps", "20"}, false, "syntax");
  expect_error(syntax, "config '" + stored.string() + "': line " + std::to_string(line_of(unknown, "bogus")) + " column ");
  EXPECT_EQ(syntax.err.find("libprotobuf"), std::string::npos) << syntax.err;
  write_text(stored, stored_text);
  expect_intact("a stored config that does not validate");
}


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
    return std::make_pair(spawn({XQZERO_BINARY, "selfplay", "--follow", run_.string(), "--worker-id", id, "--quiet"},
                                log, log),
                          log);
  };
  const auto w1 = worker("w1"), w2 = worker("w2");
  const Finished t = wait_for(trainer, tlog, tlog);
  EXPECT_TRUE(t.exited && t.code == 0) << t.out;
  EXPECT_EQ(latest_step(run_), 30) << t.out;
  // The workers look at `latest` every two seconds: wait (a watchdog, not a timing
  // assertion) until a game of a newer net is on disk.
  auto newer_net_seen = [&] {
    for (const auto& file : selfplay::list_record_files((run_ / "games").string()))
      for (const auto& g : selfplay::read_record_file(file))
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
  for (const auto& file : selfplay::list_record_files((run_ / "games").string())) {
    const std::string name = fs::path(file).filename().string();
    const std::string who = name.rfind("worker-w1-", 0) == 0 ? "w1" : name.rfind("worker-w2-", 0) == 0 ? "w2" : name;
    for (const auto& g : selfplay::read_record_file(file)) {
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
      a.insert(a.end(), {"--world-size", "2", "--rank", std::to_string(rank), "--master", master, "--dist-timeout", "60"});
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
    for (const auto& f : selfplay::list_record_files((run_ / "games").string()))
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
