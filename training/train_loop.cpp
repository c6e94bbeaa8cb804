// TrainLoop (training/train_loop_impl.h): the run directory, the configuration, the ranks of
// a data-parallel run, and resuming.
#include "training/train_loop_impl.h"

namespace xq::training {

namespace {

// The command line's settings for this invocation, over whichever configuration the run uses.
void apply_invocation_settings(const TrainLoopOptions& o, xqzero::Config& config) {
  if (o.max_steps) config.mutable_training()->set_max_steps(*o.max_steps);
  if (o.max_seconds) config.mutable_training()->set_max_seconds(*o.max_seconds);
  if (o.max_positions) config.mutable_training()->set_max_positions(*o.max_positions);
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

}  // namespace

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
  // A run's checkpoints belong to its config: without the file (a run started by an older
  // version, or the file removed) only a config the user gives may continue it.
  if (!fs::exists(config_path_) && !options_.config_given && !checkpoints_newest_first(ckpt_dir_.string()).empty())
    throw RunDirError("run directory '" + run_.string() + "' has checkpoints but no " + config_path_.string() +
                      "; give its configuration with --config");
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
    throw DistributedError(rank_name() +
                           ": the ranks' configurations differ (give every rank the same --config and --set)");
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
  latest_named_ = has_latest ? read_latest(latest_path_.string()) : "";
  if (has_latest && checkpoint_step(latest_named_) < 0)
    err_ << "train: warning: " << latest_path_.string() << " names '" << latest_named_ << "', not a checkpoint\n";
  else if (!has_latest && !checkpoints_newest_first(ckpt_dir_.string()).empty())
    out_ << "train: " << run_.string() << " has no 'latest'; resuming from the newest checkpoint that loads\n";
  const std::string resumed = load_newest_loadable(
      ckpt_dir_, checkpoint_step(latest_named_) >= 0 ? latest_named_ : "",
      [&] { return std::make_unique<Trainer>(config_.network(), tc()); }, trainer_, rng_, err_);
  latest_ = resumed;
  if (!resumed.empty()) refuse_older_latest(resumed);
  if (!resumed.empty()) {
    out_ << "train: resuming " << run_.string() << " from " << latest_ << " (step " << trainer_->steps() << ")\n";
  } else if (has_latest) {
    throw RunDirError("run directory '" + run_.string() + "': " + latest_path_.string() + " exists but " +
                      ckpt_dir_.string() + " holds no checkpoint; not starting a new run over it");
  } else {
    // The configuration is on disk before any checkpoint: a kill at any moment leaves no
    // checkpoint without it.
    if (stored_text_ != config_text_) write_file_atomically(config_path_.string(), config_text_);
    stored_text_ = config_text_;
    latest_ = checkpoint_name(0);
    trainer_->save((ckpt_dir_ / latest_).string(), "xqzero train, initial weights", rng_);
    fault_point("after-first-checkpoint");
    out_ << "train: new run in " << run_.string() << ", net " << nn::short_name(config_.network()) << " on "
         << trainer_->device_name() << "\n";
  }
  if (latest_ != latest_named_) write_file_atomically(latest_path_.string(), latest_ + "\n");
  previous_eval_checkpoint_ = (ckpt_dir_ / latest_).string();
  truncate_metrics((run_ / "metrics.jsonl").string(), trainer_->steps());
  run_seconds_before_ = last_run_seconds((run_ / "metrics.jsonl").string());
  metrics_ = std::make_unique<MetricsLog>((run_ / "metrics.jsonl").string());
  start_step_ = trainer_->steps();
  start_samples_ = double(trainer_->samples_trained());
  if (collective_) {
    std::vector<int64_t> ready{1};
    collective_->max(ready);  // the checkpoint and `latest` are on disk for the other ranks
    join_ranks();
  }
}

// Resuming from `resumed` would go back past checkpoints that load: training on would delete
// their metrics and write over their names. One newer checkpoint written after `latest` is the
// gap a kill leaves between writing a checkpoint and `latest` (resumed from it instead, with a
// warning: it is whole); more, or a `latest` written after the newer checkpoint, is a `latest`
// set back by hand, refused with both names.
void TrainLoop::refuse_older_latest(const std::string& resumed) {
  std::vector<std::string> newer;  // the newest two that load, newest first
  std::unique_ptr<Trainer> newest;
  std::mt19937_64 newest_rng;
  for (const std::string& name : checkpoints_newest_first(ckpt_dir_.string())) {
    if (checkpoint_step(name) <= checkpoint_step(resumed) || newer.size() == 2) break;
    auto trainer = std::make_unique<Trainer>(config_.network(), tc());
    std::mt19937_64 rng = rng_;
    try {
      trainer->load((ckpt_dir_ / name).string(), rng);
    } catch (const std::exception&) {
      continue;
    }
    if (newer.empty()) {
      newest = std::move(trainer);
      newest_rng = rng;
    }
    newer.push_back(name);
  }
  if (newer.empty()) return;
  std::error_code latest_error, newer_error;
  const auto latest_time = fs::last_write_time(latest_path_, latest_error);
  const auto newer_time = fs::last_write_time(ckpt_dir_ / newer.front(), newer_error);
  const bool latest_written_after = !latest_error && !newer_error && latest_time > newer_time;
  if (newer.size() > 1 || latest_written_after) {
    const bool several = newer.size() > 1;
    throw RunDirError("run directory '" + run_.string() + "': " + latest_path_.string() + " names " + resumed +
                      (several ? " but newer checkpoints load, up to " + newer.front()
                               : " but a newer checkpoint loads, " + newer.front() + ", and 'latest' was written after it") +
                      "; resuming from " + resumed + " would write over " + (several ? "them (move them" : "it (move it") +
                      " aside, or set 'latest' to " + newer.front() + ")");
  }
  err_ << "train: warning: " << newer.front() << " is newer than " << resumed << " ('latest') and loads; resuming "
       << "from it (a stop between writing a checkpoint and 'latest')\n";
  trainer_ = std::move(newest);
  rng_ = newest_rng;
  latest_ = newer.front();
}

int run_train_loop(const TrainLoopOptions& options, std::ostream& out, std::ostream& err) {
  return TrainLoop(options, out, err).run();
}

}  // namespace xq::training
