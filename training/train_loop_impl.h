// The training loop's one class, TrainLoop, shared by the files that hold its steps (not
// part of the library's interface: training/train_loop.h is):
//   train_loop.cpp           the run directory, the configuration, the ranks, resuming
//   train_loop_data.cpp      the replay window, workers' games, in-process self-play
//   train_loop_steps.cpp     training steps, metrics and console lines, checkpoints,
//                            evaluations, the end of the run
#pragma once

#include <google/protobuf/text_format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "core/input_file.h"
#include "nn/evaluator_factory.h"
#include "nn/net_config.h"
#include "records/record_scanner.h"
#include "records/record_writer.h"
#include "selfplay/selfplay.h"
#include "selfplay/selfplay_config.h"
#include "training/config_text.h"
#include "training/evaluation.h"
#include "training/metrics_log.h"
#include "training/replay_window.h"
#include "training/run_dir.h"
#include "training/train_loop.h"
#include "training/trainer.h"

namespace xq::training {

namespace fs = std::filesystem;

// A config is a few KB of text; more is not a config.
constexpr size_t kMaxConfigBytes = size_t(16) << 20;
constexpr int64_t kHeldOutPositions = 4096;          // newest held-out positions kept
constexpr const char* kSelfplayPrefix = "selfplay";  // this process's record files
constexpr double kWorkerScanSeconds = 5;             // how often games/ is scanned for workers' files
constexpr int kHeldOutBatch = 512;                   // measured per metrics line

struct SharedNet {
  std::mutex mutex;
  selfplay::DeviceNets current;  // the newest checkpoint, on each self-play device
};

// Means of the losses since the last metrics line.
struct LossSums {
  double policy = 0, value = 0, material = 0, short_value = 0, soft_policy = 0, reply_policy = 0, policy_entropy = 0,
         value_entropy = 0;
  int count = 0;
  void add(const StepLosses& l) {
    policy += l.policy;
    value += l.value;
    material += l.material;
    short_value += l.short_value;
    soft_policy += l.soft_policy;
    reply_policy += l.reply_policy;
    policy_entropy += l.policy_entropy;
    value_entropy += l.value_entropy;
    ++count;
  }
  double mean(double sum) const { return count ? sum / count : 0.0; }
};

// One invocation of `xqzero train`, in named steps run in this order: resolve the
// configuration, resume (or start) the trainer, rebuild the replay window from the games on
// disk, start self-play, train until a limit, finish.
class TrainLoop {
 public:
  TrainLoop(const TrainLoopOptions& options, std::ostream& out, std::ostream& err)
      : options_(options), out_(out), err_(err), run_(options.run_dir), lead_(options.distributed.rank == 0) {}

  int run() {
    open_run_dir();
    resolve_config();
    connect();
    resume();
    rebuild_window();
    start_selfplay();
    const int status = train();
    finish(status);
    return status;
  }

 private:
  using Clock = std::chrono::steady_clock;
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }
  const xqzero::TrainingConfig& tc() const { return config_.training(); }
  // Positions this rank samples per step: its share of training.batch_size.
  int64_t batch_share() const { return tc().batch_size() / std::max(1, options_.distributed.world_size); }

  void open_run_dir();
  void resolve_config();
  void connect();
  void resume();
  void refuse_older_latest(const std::string& resumed);
  void resume_follower();
  void join_ranks();
  std::string rank_name() const;
  void rebuild_window();
  void scan_worker_games();
  void add_game(const xqzero::GameRecord& g, const std::vector<TrainingPosition>& positions);
  void load_net(const std::string& name);
  void start_selfplay();
  int train();
  bool wait_for_data();  // true while training should not step now
  void log_step(const StepLosses& last);
  void add_stats(Json& j);
  void console(bool force);
  std::string checkpoint();
  void evaluate(const std::string& checkpoint);
  void finish(int status);

  const TrainLoopOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  const Clock::time_point started_ = Clock::now();
  const fs::path run_;
  const bool lead_;                         // rank 0 of a data-parallel run, or the only trainer
  std::unique_ptr<Collective> collective_;  // the ranks of a data-parallel run, or none
  fs::path games_dir_, ckpt_dir_, config_path_, latest_path_;
  std::unique_ptr<RunDirLock> lock_;

  // resolve_config
  xqzero::Config file_config_, config_;
  std::string replacing_;                   // a warning, given once the run has started
  std::optional<std::string> stored_text_;  // config.textproto as found, read once
  std::string config_text_;                 // what config.textproto is to hold

  // resume
  std::mt19937_64 rng_, rng_heldout_;
  std::unique_ptr<Trainer> trainer_;
  std::string latest_, latest_named_, previous_eval_checkpoint_;
  std::unique_ptr<MetricsLog> metrics_;
  int64_t start_step_ = 0;
  double start_samples_ = 0;

  // rebuild_window; the counts are guarded by sink_mutex_ once self-play runs
  std::unique_ptr<ReplayWindow> window_, heldout_;
  std::unique_ptr<records::RecordScanner> scanner_;
  int64_t games_by_end_[TERMINATION_NB] = {}, targets_by_end_[TERMINATION_NB] = {};
  std::atomic<int64_t> selfplay_moves_{0};      // moves of every game of the run (max_positions)
  std::atomic<int64_t> window_targets_{0};      // target positions of the window's games, each once
  double run_seconds_before_ = 0;               // the run's time in earlier invocations (metrics "run_s")
  int64_t games_on_disk_ = 0;                   // found in games/: at the start, and later written by workers
  int64_t worker_games_ = 0, stale_games_ = 0;  // read while training (train thread only)
  double next_worker_scan_ = 0;

  // start_selfplay
  SharedNet net_;
  std::mutex sink_mutex_;
  std::unique_ptr<records::RecordWriter> writer_;
  std::unique_ptr<selfplay::SelfplayRunner> runner_;
  std::thread selfplay_thread_;
  std::atomic<int64_t> games_this_run_{0};  // read by the console and metrics without the sink lock
  std::atomic<int64_t> positions_this_run_{0};

  // train
  std::vector<TrainingPosition> batch_;
  LossSums sums_;
  double reg_last_ = 0, lr_last_ = 0;
  uint64_t kl_micro_last_ = 0, kl_count_last_ = 0;
  double last_log_time_ = 0, last_console_ = -10;
  int64_t last_log_samples_ = 0;
  bool fsf_reported_ = false;
};

}  // namespace xq::training
