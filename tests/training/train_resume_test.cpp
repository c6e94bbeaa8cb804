// `xqzero train` on its run directory, through the built binary: killed with SIGKILL at an
// arbitrary moment it resumes from its last checkpoint and the games on disk (nothing written
// is lost, nothing counted twice); a second trainer on the same directory is refused; a
// missing `latest` or corrupt checkpoints resume from the newest checkpoint that loads, never
// over the old run; a configuration that cannot run leaves the directory as it was; and the
// command line's limits hold on resume.
#include <gtest/gtest.h>

#include "nn/checkpoint_export.h"
#include "tests/support/net_state.h"
#include "tests/support/train_run.h"

namespace xq::training {
namespace {

using namespace fixtures;

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
  EXPECT_NE(second.err.find("is in use by pid " + std::to_string(pid) + " on host "), std::string::npos) << second.err;
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

// A `latest` set back by hand (older than checkpoints that load) is refused, naming both,
// and nothing is deleted or written over, whether it is set back by several checkpoints or by
// one; one newer checkpoint written after `latest` (a stop between writing it and `latest`, the
// fault point) is resumed from, with a warning.
TEST_F(TrainRun, LatestOlderThanLoadableCheckpointsIsRefused) {
  const Finished base = train({"--max-steps", "40"}, true, "base");
  ASSERT_TRUE(base.exited && base.code == 0) << base.out << base.err;
  ASSERT_EQ(latest_step(run_), 40);
  const auto checkpoints = checkpoint_files(run_);
  const std::string metrics = slurp(run_ / "metrics.jsonl");

  write_text(run_ / "latest", "ckpt-00000010.xqz\n");
  const Finished a = train({"--max-steps", "50"}, false, "a");
  EXPECT_TRUE(a.exited && a.code == 1) << a.code << ": " << a.out << a.err;
  EXPECT_NE(a.err.find("names ckpt-00000010.xqz but newer checkpoints load, up to ckpt-00000040.xqz"),
            std::string::npos)
      << a.err;
  EXPECT_EQ(newlines(a.err), 1) << a.err;
  EXPECT_EQ(checkpoint_files(run_), checkpoints);
  EXPECT_EQ(slurp(run_ / "metrics.jsonl"), metrics);

  // Set back by one: `latest` is written after the newer checkpoint (a minute after, here, so
  // that a file system with coarse timestamps decides the same way).
  write_text(run_ / "latest", "ckpt-00000030.xqz\n");
  fs::last_write_time(ckpt(40), fs::last_write_time(run_ / "latest") - std::chrono::minutes(1));
  const Finished b = train({"--max-steps", "50"}, false, "b");
  EXPECT_TRUE(b.exited && b.code == 1) << b.code << ": " << b.out << b.err;
  EXPECT_NE(b.err.find("names ckpt-00000030.xqz but a newer checkpoint loads, ckpt-00000040.xqz, and 'latest' "
                       "was written after it"),
            std::string::npos)
      << b.err;
  EXPECT_EQ(newlines(b.err), 1) << b.err;
  EXPECT_EQ(checkpoint_files(run_), checkpoints);
  EXPECT_EQ(slurp(run_ / "metrics.jsonl"), metrics);

  // A stop between a checkpoint and `latest`: resumed from that checkpoint, with a warning.
  write_text(run_ / "latest", "ckpt-00000040.xqz\n");
  ::setenv("XQZERO_FAULT", "before-latest", 1);
  const Finished killed = train({"--max-steps", "50"}, false, "killed");
  ::unsetenv("XQZERO_FAULT");
  ASSERT_TRUE(killed.exited && killed.code == 86) << killed.code << ": " << killed.out << killed.err;
  ASSERT_TRUE(fs::exists(ckpt(50)));
  ASSERT_EQ(latest_step(run_), 40);
  const Finished c = train({"--max-steps", "60"}, false, "c");
  ASSERT_TRUE(c.exited && c.code == 0) << c.out << c.err;
  EXPECT_NE(c.err.find("ckpt-00000050.xqz is newer than ckpt-00000040.xqz ('latest') and loads"), std::string::npos)
      << c.err;
  EXPECT_NE(c.out.find("from ckpt-00000050.xqz (step 50)"), std::string::npos) << c.out;
  EXPECT_EQ(latest_step(run_), 60);
  expect_metrics_up_to(run_, 60);
}

// The run's configuration is on disk before its first checkpoint: a stop right after that
// checkpoint (the fault point) resumes with the configuration given, not the built-in one; a
// run whose config.textproto is gone is refused unless --config gives one.
TEST_F(TrainRun, ConfigIsDurableBeforeTheFirstCheckpoint) {
  write_text(config_, config_with("batch_size: 16", "batch_size: 8"));
  ::setenv("XQZERO_FAULT", "after-first-checkpoint", 1);
  const Finished killed = train({"--max-steps", "10"}, true, "killed");
  ::unsetenv("XQZERO_FAULT");
  ASSERT_TRUE(killed.exited && killed.code == 86) << killed.code << ": " << killed.out << killed.err;
  ASSERT_TRUE(fs::exists(ckpt(0)));
  EXPECT_NE(slurp(run_ / "config.textproto").find("batch_size: 8"), std::string::npos);

  const Finished resumed = train({"--max-steps", "10"}, false, "resumed");
  ASSERT_TRUE(resumed.exited && resumed.code == 0) << resumed.out << resumed.err;
  EXPECT_NE(slurp(run_ / "config.textproto").find("batch_size: 8"), std::string::npos);

  fs::remove(run_ / "config.textproto");
  const auto checkpoints = checkpoint_files(run_);
  const Finished refused = train({"--max-steps", "20"}, false, "refused");
  EXPECT_TRUE(refused.exited && refused.code == 1) << refused.code << ": " << refused.out << refused.err;
  EXPECT_NE(refused.err.find("has checkpoints but no " + (run_ / "config.textproto").string()), std::string::npos)
      << refused.err;
  EXPECT_EQ(checkpoint_files(run_), checkpoints);
}

// --max-positions: a budget of self-play moves over the whole run (all invocations), so a
// resumed run with the same budget stops at once.
TEST_F(TrainRun, MaxPositionsBudgetsTheRunsSelfPlay) {
  const auto moves_on_disk = [&] {
    int64_t n = 0;
    for (const auto& f : records::list_record_files((run_ / "games").string()))
      for (const auto& g : records::read_record_file(f)) n += g.moves_size();
    return n;
  };
  const Finished a = train({"--max-positions", "600"}, true, "a");
  ASSERT_TRUE(a.exited && a.code == 0) << a.out << a.err;
  const int64_t after_a = moves_on_disk();
  EXPECT_GE(after_a, 600);
  const int64_t step_a = latest_step(run_);
  EXPECT_GT(step_a, 0);
  const std::string metrics = slurp(run_ / "metrics.jsonl");
  EXPECT_NE(metrics.find("\"selfplay_moves\":"), std::string::npos);
  EXPECT_NE(metrics.find("\"run_s\":"), std::string::npos);

  const Finished b = train({"--max-positions", "600"}, false, "b");
  ASSERT_TRUE(b.exited && b.code == 0) << b.out << b.err;
  EXPECT_EQ(latest_step(run_), step_a) << "the budget was spent by the first invocation";
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

// Weight averaging through the binary: each checkpoint carries the average and the trained
// weights, `xqzero export` keeps the average alone, and a resumed run trains on.
TEST_F(TrainRun, WeightAveragingCheckpointsExportAndResume) {
  const auto same = [](const nn::Network& x, const nn::Network& y) { return ::xq::test::max_difference(x, y) == 0.0; };
  write_text(config_, config_with("log_every: 5", "log_every: 5 ema_decay: 0.9"));
  const Finished a = train({"--max-steps", "30"}, true, "a");
  ASSERT_TRUE(a.exited && a.code == 0) << a.out << a.err;
  ASSERT_EQ(latest_step(run_), 30);
  const nn::Network average = nn::load_network(ckpt(30).string());
  nn::CheckpointSections sections;
  nn::read_checkpoint(ckpt(30).string(), &sections);
  ASSERT_EQ(sections.count("trained_weights"), 1u) << "the checkpoint has no trained weights";
  nn::Network trained(average->config());
  nn::load_weights_bytes(ckpt(30).string(), "trained_weights", sections["trained_weights"], trained);
  EXPECT_FALSE(same(average, trained)) << "the checkpoint's network is the trained weights, not their average";

  const fs::path net = dir_ / "net.xqz";
  nn::export_weights(ckpt(30).string(), net.string(), "");
  nn::CheckpointSections exported;
  nn::read_checkpoint(net.string(), &exported);
  EXPECT_EQ(exported.count("trained_weights"), 0u);
  EXPECT_TRUE(same(nn::load_network(net.string()), average)) << "export keeps the average";

  const Finished b = train({"--max-steps", "40"}, false, "b");
  ASSERT_TRUE(b.exited && b.code == 0) << b.out << b.err;
  EXPECT_EQ(latest_step(run_), 40);
  nn::CheckpointSections resumed;
  nn::read_checkpoint(ckpt(40).string(), &resumed);
  EXPECT_EQ(resumed.count("trained_weights"), 1u);
  expect_metrics_up_to(run_, 40);
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
    expect_error(train({"--max-steps", "20"}, false, name), "config '" + stored.string() + "': line " +
                                                                std::to_string(line_of(zero, name)) + ": training." +
                                                                name + " = 0 is out of range");
  }
  const std::string unknown = config_with("log_every: 5", "log_every: 5 bogus: 1");
  write_text(stored, unknown);
  const Finished syntax = train({"--max-steps", "20"}, false, "syntax");
  expect_error(syntax,
               "config '" + stored.string() + "': line " + std::to_string(line_of(unknown, "bogus")) + " column ");
  EXPECT_EQ(syntax.err.find("libprotobuf"), std::string::npos) << syntax.err;
  write_text(stored, stored_text);
  expect_intact("a stored config that does not validate");
}

}  // namespace
}  // namespace xq::training
