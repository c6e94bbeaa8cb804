// One class, TrainLoop, with its steps in the order they run. The file is longer than the
// project's 450-line guide on purpose: the steps share one run's state (data-parallel ranks
// included), and splitting them across files would scatter it (metrics lines are in
// metrics_log, players in player_factory, the exchanges between ranks in collective).
#include "training/train_loop.h"

#include <google/protobuf/text_format.h>

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
#include "selfplay/record_writer.h"
#include "selfplay/selfplay.h"
#include "selfplay/selfplay_config.h"
#include "training/evaluation.h"
#include "training/metrics_log.h"
#include "training/config_text.h"
#include "training/record_scanner.h"
#include "training/replay_window.h"
#include "training/run_dir.h"
#include "training/trainer.h"

namespace fs = std::filesystem;

namespace xq::training {

namespace {

// A config is a few KB of text; more is not a config.
constexpr size_t kMaxConfigBytes = size_t(16) << 20;

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// Whether a game belongs to the held-out slice (never trained on): chosen by its seed, so a
// resumed run routes the games on disk the same way.
bool held_out(const xqzero::GameRecord& g, double fraction) {
  if (fraction <= 0) return false;
  const uint64_t h = (g.seed() + 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
  return double(h >> 11) * 0x1.0p-53 < fraction;
}

constexpr int64_t kHeldOutPositions = 4096;  // newest held-out positions kept
constexpr const char* kSelfplayPrefix = "selfplay";  // this process's record files
constexpr double kWorkerScanSeconds = 5;             // how often games/ is scanned for workers' files
constexpr int kHeldOutBatch = 512;             // measured per metrics line

// The command line's settings for this invocation, over whichever configuration the run uses.
void apply_invocation_settings(const TrainLoopOptions& o, xqzero::Config& config) {
  if (o.max_steps) config.mutable_training()->set_max_steps(*o.max_steps);
  if (o.max_seconds) config.mutable_training()->set_max_seconds(*o.max_seconds);
  if (o.device) {
    config.mutable_training()->set_device(*o.device);
    config.mutable_evaluator()->set_device(*o.device);
  }
}

// Loads into a trainer from `make` the checkpoint to resume from: `first` (the one `latest`
// names, or "") if it loads, else the checkpoint in `dir` with the highest step that loads;
// those that do not load are reported on `err`. Returns its name, or "" when `dir` holds no
// checkpoint at all (a new run, and `trainer` is fresh). Throws RunDirError when there are
// checkpoints but none loads: a new run must not overwrite them.
std::string load_newest_loadable(const fs::path& dir, const std::string& first,
                                 const std::function<std::unique_ptr<Trainer>()>& make,
                                 std::unique_ptr<Trainer>& trainer, std::mt19937_64& rng, std::ostream& err) {
  std::vector<std::string> candidates;
  if (!first.empty()) candidates.push_back(first);
  for (std::string& name : checkpoints_newest_first(dir.string()))
    if (name != first) candidates.push_back(std::move(name));
  const std::mt19937_64 fresh_rng = rng;
  std::vector<std::string> failures;
  for (const std::string& name : candidates) {
    trainer = make();  // a failed load may have changed part of the state
    rng = fresh_rng;
    try {
      trainer->load((dir / name).string(), rng);
      for (const std::string& f : failures) err << "train: warning: skipped " << f << "\n";
      return name;
    } catch (const std::exception& e) {
      failures.push_back(e.what());
    }
  }
  if (!failures.empty())
    throw RunDirError("cannot resume: none of the " + std::to_string(failures.size()) + " checkpoints in " +
                      dir.string() + " loads; " + failures.front());
  trainer = make();
  return "";
}

struct SharedNet {
  std::mutex mutex;
  selfplay::DeviceNets current;  // the newest checkpoint, on each self-play device
};

// Means of the losses since the last metrics line.
struct LossSums {
  double policy = 0, value = 0, material = 0, policy_entropy = 0, value_entropy = 0;
  int count = 0;
  void add(const StepLosses& l) {
    policy += l.policy;
    value += l.value;
    material += l.material;
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
  const bool lead_;  // rank 0 of a data-parallel run, or the only trainer
  std::unique_ptr<Collective> collective_;  // the ranks of a data-parallel run, or none
  fs::path games_dir_, ckpt_dir_, config_path_, latest_path_;
  std::unique_ptr<RunDirLock> lock_;

  // resolve_config
  xqzero::Config file_config_, config_;
  std::string replacing_;                  // a warning, given once the run has started
  std::optional<std::string> stored_text_;  // config.textproto as found, read once
  std::string config_text_;                // what config.textproto is to hold

  // resume
  std::mt19937_64 rng_, rng_heldout_;
  std::unique_ptr<Trainer> trainer_;
  std::string latest_, latest_named_, previous_eval_checkpoint_;
  std::unique_ptr<MetricsLog> metrics_;
  int64_t start_step_ = 0;
  double start_samples_ = 0;

  // rebuild_window; the counts are guarded by sink_mutex_ once self-play runs
  std::unique_ptr<ReplayWindow> window_, heldout_;
  std::unique_ptr<RecordScanner> scanner_;
  int64_t games_by_end_[TERMINATION_NB] = {}, targets_by_end_[TERMINATION_NB] = {};
  int64_t games_on_disk_ = 0;  // found in games/: at the start, and later written by workers
  int64_t worker_games_ = 0, stale_games_ = 0;  // read while training (train thread only)
  double next_worker_scan_ = 0;

  // start_selfplay
  SharedNet net_;
  std::mutex sink_mutex_;
  std::unique_ptr<selfplay::RecordWriter> writer_;
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

void TrainLoop::open_run_dir() {
  if (const std::string why = prepare_run_dir(options_.run_dir); !why.empty())
    throw RunDirError("run directory '" + options_.run_dir + "': " + why);
  // Before anything in the directory is read or written; in a data-parallel run rank 0 holds
  // it for all ranks.
  if (lead_) lock_ = std::make_unique<RunDirLock>(options_.run_dir);
  games_dir_ = run_ / "games";
  ckpt_dir_ = run_ / "checkpoints";
  config_path_ = run_ / "config.textproto";
  latest_path_ = run_ / "latest";
  fs::create_directories(games_dir_);
  fs::create_directories(ckpt_dir_);
}

// The configuration: the user's, else the run's own, else the embedded default (given by
// the caller). It is what config.textproto records; this invocation's settings go on top.
void TrainLoop::resolve_config() {
  file_config_ = options_.config;
  if (fs::exists(config_path_)) {
    const std::string source = "config '" + config_path_.string() + "'";
    stored_text_ = xq::read_file(config_path_.string(), kMaxConfigBytes, "config");
    if (!options_.config_given) {
      file_config_ = parse_config(*stored_text_, source);
    } else {
      try {
        if (parse_config(*stored_text_, source).SerializeAsString() != file_config_.SerializeAsString())
          replacing_ = "the given config differs from " + config_path_.string() + "; using the given one";
      } catch (const ConfigError& e) {
        replacing_ = std::string(e.what()) + "; the given config replaces it";
      }
    }
  }
  for (const std::string& s : options_.settings) apply_setting(file_config_, s);
  if (!options_.settings.empty() && stored_text_ && replacing_.empty()) {
    try {
      if (parse_config(*stored_text_, "stored").SerializeAsString() != file_config_.SerializeAsString())
        replacing_ = "--set changes " + config_path_.string();
    } catch (const ConfigError&) {
    }
  }
  config_ = file_config_;
  apply_invocation_settings(options_, config_);
  validate_config(config_);
  if (config_.network().history() > 0)
    throw std::invalid_argument("network.history > 0 is not supported by self-play and training yet");
  google::protobuf::TextFormat::PrintToString(file_config_, &config_text_);
}

std::string TrainLoop::rank_name() const {
  return "rank " + std::to_string(options_.distributed.rank) + " of " + std::to_string(options_.distributed.world_size);
}

// Data-parallel: meets the other ranks and checks that all train the same configuration.
void TrainLoop::connect() {
  DistributedOptions d = options_.distributed;
  if (!d.enabled()) return;
  if (tc().batch_size() % d.world_size != 0)
    throw std::invalid_argument("training.batch_size (" + std::to_string(tc().batch_size()) +
                                ") must be a multiple of the world size (" + std::to_string(d.world_size) + ")");
  const RankDevice device = rank_device(tc().device(), d);
  config_.mutable_training()->set_device(device.device);
  d.nccl = device.nccl;
  out_ << "train: " << rank_name() << ": meeting the other ranks at " << d.master_addr << ":" << d.master_port
       << " (training on " << device.device << (device.nccl ? ", tensors over NCCL" : "") << ")" << std::endl;
  collective_ = Collective::connect(d);
  if (!collective_->all_equal(int64_t(std::hash<std::string>()(config_text_) >> 2)))
    throw DistributedError(rank_name() + ": the ranks' configurations differ (give every rank the same --config and --set)");
}

// After the resume: every rank on the same step, then on rank 0's weights.
void TrainLoop::join_ranks() {
  int64_t lo = 0, hi = 0;
  if (!collective_->all_equal(trainer_->steps(), &lo, &hi))
    throw DistributedError(rank_name() + ": the ranks resumed from different steps (" + std::to_string(lo) + " to " +
                           std::to_string(hi) + ")");
  trainer_->join(*collective_);
}

// A rank other than 0: the checkpoint rank 0 resumed from (or started), once rank 0 says
// it is on disk; its own sampler stream, derived from the checkpoint's.
void TrainLoop::resume_follower() {
  rng_.seed(uint64_t(tc().seed()));
  rng_heldout_.seed(uint64_t(tc().seed()) ^ 0x5DEECE66DULL);
  std::vector<int64_t> ready{0};
  collective_->max(ready);  // returns once rank 0 has resumed
  latest_ = read_latest(latest_path_.string());
  trainer_ = std::make_unique<Trainer>(config_.network(), tc());
  trainer_->load((ckpt_dir_ / latest_).string(), rng_);
  rng_.seed(rng_() ^ (0x9E3779B97F4A7C15ULL * uint64_t(options_.distributed.rank)));
  out_ << "train: " << rank_name() << ": from " << latest_ << " (step " << trainer_->steps() << ")" << std::endl;
  start_step_ = trainer_->steps();
  start_samples_ = double(trainer_->samples_trained());
  join_ranks();
}

// The checkpoint to resume from: the one `latest` names, else the newest that loads.
void TrainLoop::resume() {
  if (!lead_) return resume_follower();
  rng_.seed(uint64_t(tc().seed()));
  rng_heldout_.seed(uint64_t(tc().seed()) ^ 0x5DEECE66DULL);  // not checkpointed: metrics only
  const bool has_latest = fs::exists(latest_path_);
  latest_named_ =
      has_latest ? read_latest(latest_path_.string()) : "";
  if (has_latest && checkpoint_step(latest_named_) < 0)
    err_ << "train: warning: " << latest_path_.string() << " names '" << latest_named_ << "', not a checkpoint\n";
  else if (!has_latest && !checkpoints_newest_first(ckpt_dir_.string()).empty())
    out_ << "train: " << run_.string() << " has no 'latest'; resuming from the newest checkpoint that loads\n";
  const std::string resumed =
      load_newest_loadable(ckpt_dir_, checkpoint_step(latest_named_) >= 0 ? latest_named_ : "",
                           [&] { return std::make_unique<Trainer>(config_.network(), tc()); }, trainer_, rng_, err_);
  latest_ = resumed;
  if (!resumed.empty()) {
    out_ << "train: resuming " << run_.string() << " from " << latest_ << " (step " << trainer_->steps() << ")\n";
  } else if (has_latest) {
    throw RunDirError("run directory '" + run_.string() + "': " + latest_path_.string() + " exists but " +
                      ckpt_dir_.string() + " holds no checkpoint; not starting a new run over it");
  } else {
    latest_ = checkpoint_name(0);
    trainer_->save((ckpt_dir_ / latest_).string(), "xqzero train, initial weights", rng_);
    out_ << "train: new run in " << run_.string() << ", net " << nn::short_name(config_.network()) << " on "
         << trainer_->device_name() << "\n";
  }
  if (latest_ != latest_named_) write_file_atomically(latest_path_.string(), latest_ + "\n");
  previous_eval_checkpoint_ = (ckpt_dir_ / latest_).string();
  truncate_metrics((run_ / "metrics.jsonl").string(), trainer_->steps());
  metrics_ = std::make_unique<MetricsLog>((run_ / "metrics.jsonl").string());
  start_step_ = trainer_->steps();
  start_samples_ = double(trainer_->samples_trained());
  if (collective_) {
    std::vector<int64_t> ready{1};
    collective_->max(ready);  // the checkpoint and `latest` are on disk for the other ranks
    join_ranks();
  }
}

// Routes one finished game's targets to the window or the held-out slice, and counts it.
void TrainLoop::add_game(const xqzero::GameRecord& g, const std::vector<TrainingPosition>& positions) {
  (held_out(g, tc().heldout_fraction()) ? *heldout_ : *window_).add(positions);
  Termination end = Termination::ONGOING;  // unknown names count as "ongoing"
  parse_termination(g.termination(), end);
  ++games_by_end_[int(end)];
  targets_by_end_[int(end)] += int64_t(positions.size());
}

// The replay window, rebuilt from the games on disk.
void TrainLoop::rebuild_window() {
  window_ = std::make_unique<ReplayWindow>(tc().window_min(), tc().window_max(), tc().window_fraction());
  heldout_ = std::make_unique<ReplayWindow>(kHeldOutPositions, kHeldOutPositions, 1.0);
  scanner_ = std::make_unique<RecordScanner>(games_dir_.string());
  // Unusable games are skipped with one warning per file (the scanner replays each game once).
  scanner_->scan_new([&](const std::string& w) { err_ << "train: warning: " << w << "\n"; },
                     [&](xqzero::GameRecord&& g, std::vector<TrainingPosition>&& positions) {
                       add_game(g, positions);
                       ++games_on_disk_;
                     });
  if (games_on_disk_ > 0)
    out_ << "train: " << games_on_disk_ << " games and " << window_->total_added() << " target positions on disk\n";
}

// Games that self-play workers (`xqzero selfplay --follow`) wrote since the last scan: every
// new record file but this process's own (kSelfplayPrefix), whose games are already in the
// window (a rank other than 0 has no self-play of its own and reads rank 0's files too). A
// game played by a checkpoint more than training.stale_steps behind is dropped.
void TrainLoop::scan_worker_games() {
  const int64_t stale = tc().stale_steps();
  scanner_->scan_new(
      [&](const std::string& w) { err_ << "train: warning: " << w << "\n"; },
      [&](xqzero::GameRecord&& g, std::vector<TrainingPosition>&& positions) {
        const int64_t played_by = checkpoint_step(g.network());
        if (stale > 0 && played_by >= 0 && trainer_->steps() - played_by > stale) {
          ++stale_games_;
          return;
        }
        {
          std::lock_guard<std::mutex> lock(sink_mutex_);
          add_game(g, positions);
        }
        ++games_on_disk_;
        ++worker_games_;
      },
      [this](const std::string& name) { return !lead_ || name.rfind(std::string(kSelfplayPrefix) + "-", 0) != 0; });
}

void TrainLoop::load_net(const std::string& name) {
  xqzero::EvaluatorConfig ec = config_.evaluator();
  ec.set_weights((ckpt_dir_ / name).string());
  selfplay::DeviceNets nets;
  for (auto& evaluator : nn::make_evaluators(ec, config_.network()))
    nets.per_device.push_back(selfplay::GameEvaluator{std::move(evaluator), name});
  std::lock_guard<std::mutex> lock(net_.mutex);
  net_.current = std::move(nets);
}

// Self-play, on the newest checkpoint; each game keeps the net it started with.
void TrainLoop::start_selfplay() {
  selfplay::SelfplayOptions sp = selfplay::selfplay_options(config_);
  sp.config_id = std::to_string(std::hash<std::string>()(config_text_));
  if (lead_) {
    load_net(latest_);
    // The run has started (checkpoint and evaluator loaded): only now may the configuration
    // replace the stored one.
    if (!replacing_.empty()) err_ << "train: warning: " << replacing_ << "\n";
    if (stored_text_ != config_text_) write_file_atomically(config_path_.string(), config_text_);
    writer_ = std::make_unique<selfplay::RecordWriter>(games_dir_.string(), kSelfplayPrefix,
                                                       config_.selfplay().games_per_file());
  }
  runner_ = std::make_unique<selfplay::SelfplayRunner>(
      sp,
      [this](int thread) {
        std::lock_guard<std::mutex> lock(net_.mutex);
        return net_.current.for_thread(thread);
      },
      [this](xqzero::GameRecord&& g) {
        std::vector<TrainingPosition> positions = positions_of(g);
        std::lock_guard<std::mutex> lock(sink_mutex_);
        add_game(g, positions);
        positions_this_run_ += int64_t(positions.size());
        ++games_this_run_;
        writer_->add(std::move(g));
      });
  // selfplay.threads 0: the games come from workers only (scan_worker_games); in a
  // data-parallel run only rank 0 plays.
  if (lead_ && config_.selfplay().threads() > 0) selfplay_thread_ = std::thread([this] { runner_->run(0); });
  last_log_time_ = elapsed();
  last_log_samples_ = trainer_->samples_trained();
}

void TrainLoop::add_stats(Json& j) {
  const auto& st = runner_->stats();
  const double games = double(st.games.load());
  j["games"] = games_on_disk_ + games_this_run_.load();
  j["positions"] = window_->total_added();
  j["window"] = window_->window_size();
  j["selfplay_positions_per_s"] = figure(double(st.moves.load()) / std::max(1e-9, elapsed()));
  j["avg_game_length"] = figure(games > 0 ? double(st.plies_sum.load()) / games : 0);
  j["red_wins"] = st.red_wins.load();
  j["black_wins"] = st.black_wins.load();
  j["draws"] = st.draws.load();
  j["resign_false_positive_rate"] =
      figure(st.would_resign.load() ? double(st.false_resign.load()) / double(st.would_resign.load()) : 0);
  j["worker_games"] = worker_games_;
  j["stale_games"] = stale_games_;
  std::lock_guard<std::mutex> lock(sink_mutex_);
  j["terminations"] = termination_json(games_by_end_);
  j["target_terminations"] = termination_json(targets_by_end_);
}

void TrainLoop::console(bool force) {
  if (!lead_ || (!force && elapsed() - last_console_ < 5)) return;
  last_console_ = elapsed();
  const auto& st = runner_->stats();
  const double games = double(st.games.load());
  char line[400];
  std::snprintf(line, sizeof line,
                "train: %6.0fs step %lld | games %lld (%.1f plies avg) | targets %lld, window %lld | "
                "samples/target %.2f | policy %.3f (floor %.3f) value %.3f (baseline %.3f) | lr %.4g\n",
                elapsed(), (long long)trainer_->steps(), (long long)(games_on_disk_ + games_this_run_.load()),
                games > 0 ? double(st.plies_sum.load()) / games : 0.0, (long long)window_->total_added(),
                (long long)window_->window_size(),
                double(trainer_->samples_trained()) / std::max<double>(1, double(window_->total_added())),
                sums_.mean(sums_.policy), sums_.mean(sums_.policy_entropy), sums_.mean(sums_.value),
                sums_.mean(sums_.value_entropy), lr_last_);
  out_ << line << std::flush;
}

// Evaluation games of the new net against the previous evaluation's net, the random mover,
// the greedy player and (when installed) Fairy-Stockfish at depth 1; training waits.
void TrainLoop::evaluate(const std::string& checkpoint) {
  GameSettings settings;
  settings.length_cap = config_.selfplay().max_plies();
  settings.repetitions = config_.selfplay().repetitions();
  auto current = checkpoint_player(config_, checkpoint, "current");
  std::vector<std::unique_ptr<selfplay::Player>> opponents;
  opponents.push_back(checkpoint_player(config_, previous_eval_checkpoint_, "previous"));
  opponents.push_back(std::make_unique<selfplay::RandomPlayer>(uint64_t(tc().seed())));
  opponents.push_back(std::make_unique<selfplay::GreedyPlayer>(uint64_t(tc().seed())));
  std::string why;
  if (auto engine = fairy_stockfish_player(1, &why))
    opponents.push_back(std::move(engine));
  else if (!fsf_reported_) {
    out_ << "eval: no Fairy-Stockfish opponent (" << why << ")\n";
    fsf_reported_ = true;
  }
  for (auto& opponent : opponents) {
    const MatchScore m = play_evaluation_match(*current, *opponent, tc().eval_games(), tc().eval_visits(), settings);
    Json line;
    line["kind"] = "eval";
    line["step"] = trainer_->steps();
    line["time_s"] = figure(elapsed());
    line["opponent"] = m.opponent;
    line["games"] = m.elo.games();
    line["wins"] = m.elo.wins;
    line["draws"] = m.elo.draws;
    line["losses"] = m.elo.losses;
    line["score"] = figure(m.elo.score);
    line["elo"] = figure(m.elo.elo);
    line["elo_margin"] = figure(m.elo.margin);
    line["elo_lower"] = figure(m.elo.lower);
    line["elo_upper"] = figure(m.elo.upper);
    metrics_->write(line);
    out_ << "eval: step " << trainer_->steps() << " vs " << m.opponent << ": +" << m.elo.wins << " =" << m.elo.draws
         << " -" << m.elo.losses << "  Elo " << selfplay::format_elo(m.elo) << std::endl;
  }
  previous_eval_checkpoint_ = checkpoint;
}

// Games written, the checkpoint saved, `latest` pointed at it, self-play switched to it.
std::string TrainLoop::checkpoint() {
  {
    std::lock_guard<std::mutex> lock(sink_mutex_);
    writer_->flush();
  }
  latest_ = checkpoint_name(trainer_->steps());
  const std::string path = (ckpt_dir_ / latest_).string();
  trainer_->save(path, "xqzero train, step " + std::to_string(trainer_->steps()), rng_);
  write_file_atomically(latest_path_.string(), latest_ + "\n");
  load_net(latest_);
  Json line;
  line["kind"] = "generation";
  line["step"] = trainer_->steps();
  line["time_s"] = figure(elapsed());
  line["checkpoint"] = latest_;
  add_stats(line);
  metrics_->write(line);
  return path;
}

// The samples-per-position bounds: self-play pauses while the trainer is behind its minimum,
// and the trainer waits while it is at its maximum (or the window is not yet full enough).
bool TrainLoop::wait_for_data() {
  // A rank other than 0 waits only until it has games to sample from: rank 0, which sees
  // its self-play games first, applies the bounds for all.
  if (!lead_) return window_->window_size() < batch_share();
  const int64_t total = window_->total_added();
  const bool started_training = total >= tc().min_positions();
  runner_->set_paused(started_training && tc().min_samples_per_position() > 0 &&
                      double(trainer_->samples_trained()) < tc().min_samples_per_position() * double(total));
  return !started_training || double(trainer_->samples_trained()) >= tc().max_samples_per_position() * double(total);
}

// A "train" metrics line: mean losses since the last one, held-out losses, search KL, speed.
void TrainLoop::log_step(const StepLosses& last) {
  reg_last_ = last.regularisation;
  const auto& st = runner_->stats();
  const double dt = std::max(1e-9, elapsed() - last_log_time_);
  const double sps = double(trainer_->samples_trained() - last_log_samples_) / dt;
  const uint64_t kl_micro = st.search_kl_micro.load(), kl_count = st.searches_full.load();
  const double search_kl =
      kl_count > kl_count_last_ ? double(kl_micro - kl_micro_last_) * 1e-6 / double(kl_count - kl_count_last_) : 0.0;
  kl_micro_last_ = kl_micro;
  kl_count_last_ = kl_count;
  Json line;
  line["kind"] = "train";
  line["step"] = trainer_->steps();
  line["time_s"] = figure(elapsed());
  line["policy_loss"] = figure(sums_.mean(sums_.policy));
  line["policy_entropy"] = figure(sums_.mean(sums_.policy_entropy));
  line["value_loss"] = figure(sums_.mean(sums_.value));
  line["value_entropy"] = figure(sums_.mean(sums_.value_entropy));
  line["material_loss"] = figure(sums_.mean(sums_.material));
  if (heldout_->sample(kHeldOutBatch, rng_heldout_, batch_)) {
    const StepLosses h = trainer_->measure(batch_);
    line["heldout_policy_loss"] = figure(h.policy);
    line["heldout_value_loss"] = figure(h.value);
    line["heldout_material_loss"] = figure(h.material);
    line["heldout_positions"] = heldout_->total_added();
  }
  line["search_kl"] = figure(search_kl);
  line["reg_loss"] = figure(reg_last_);
  line["lr"] = figure(lr_last_);
  line["samples_per_s"] = figure(sps);
  line["samples_trained"] = trainer_->samples_trained();
  add_stats(line);
  metrics_->write(line);
  console(true);
  sums_ = LossSums();
  last_log_time_ = elapsed();
  last_log_samples_ = trainer_->samples_trained();
}

// Steps until max_steps, max_seconds or the stop flag; checkpoints and evaluations on their
// schedule. Returns the exit status (1 after an error, which is reported).
int TrainLoop::train() {
  try {
    int64_t next_eval = tc().eval_every() > 0 ? (trainer_->steps() / tc().eval_every() + 1) * tc().eval_every() : -1;
    for (;;) {
      bool stop = (options_.stop && options_.stop->load()) ||
                  (tc().max_steps() > 0 && trainer_->steps() >= tc().max_steps()) ||
                  (tc().max_seconds() > 0 && elapsed() >= double(tc().max_seconds()));
      if (elapsed() >= next_worker_scan_) {
        scan_worker_games();
        next_worker_scan_ = elapsed() + kWorkerScanSeconds;
      }
      bool wait = !stop && wait_for_data();
      if (collective_) {  // every rank steps, waits or stops together
        std::vector<int64_t> flags{stop, wait};
        collective_->max(flags);
        stop = flags[0] != 0;
        wait = flags[1] != 0;
      }
      if (stop) break;
      if (wait) {
        console(false);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      window_->sample(batch_share(), rng_, batch_);
      const bool log_now = lead_ && (trainer_->steps() + 1) % tc().log_every() == 0;
      const StepLosses l = trainer_->step(batch_, log_now);
      sums_.add(l);
      lr_last_ = l.learning_rate;
      if (log_now) log_step(l);
      if (trainer_->steps() % tc().checkpoint_every() == 0) {
        trainer_->average_buffers();  // data-parallel: every rank, before rank 0 saves
        if (!lead_) continue;
        const std::string path = checkpoint();
        if (next_eval > 0 && trainer_->steps() >= next_eval) {
          evaluate(path);
          next_eval = (trainer_->steps() / tc().eval_every() + 1) * tc().eval_every();
        }
      }
    }
  } catch (const DistributedError& e) {  // names the rank and what failed
    err_ << "train: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err_ << "train: " << (collective_ ? rank_name() + ": " : "") << e.what() << "\n";
    return 1;
  }
  return 0;
}

// Self-play stopped, a last checkpoint (after a clean stop with new steps), games flushed.
void TrainLoop::finish(int status) {
  runner_->stop();
  if (selfplay_thread_.joinable()) selfplay_thread_.join();
  // Data-parallel: the ranks agreed to stop, so each takes part in this last exchange.
  if (status == 0) trainer_->average_buffers();
  if (lead_ && status == 0 && trainer_->steps() > start_step_ && latest_ != checkpoint_name(trainer_->steps()))
    checkpoint();
  if (writer_) {
    std::lock_guard<std::mutex> lock(sink_mutex_);
    writer_->flush();
  }
  console(true);
  if (collective_)
    out_ << "train: " << rank_name() << " stopped at step " << trainer_->steps() << "; weights checksum " << std::hex
         << trainer_->weights_checksum() << std::dec << "\n";
  if (!lead_) return;
  out_ << "train: stopped at step " << trainer_->steps() << " after " << fmt("%.0f", elapsed()) << " s; "
       << games_this_run_.load() << " games and " << positions_this_run_.load() << " target positions this run; "
       << fmt("%.0f", double(trainer_->samples_trained()) - start_samples_) << " samples trained; latest "
       << latest_ << "\n";
}

}  // namespace

int run_train_loop(const TrainLoopOptions& options, std::ostream& out, std::ostream& err) {
  return TrainLoop(options, out, err).run();
}

}  // namespace xq::training
