// TrainLoop (training/train_loop_impl.h): the replay window and its held-out slice, the
// games of self-play workers, and the in-process self-play.
#include "training/train_loop_impl.h"
#include "training/surprise_weight.h"

namespace xq::training {

namespace {

// Whether a game belongs to the held-out slice (never trained on): chosen by its seed, so a
// resumed run routes the games on disk the same way.
bool held_out(const xqzero::GameRecord& g, double fraction) {
  if (fraction <= 0) return false;
  const uint64_t h = (g.seed() + 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
  return double(h >> 11) * 0x1.0p-53 < fraction;
}

}  // namespace

// Routes one finished game's targets to the window or the held-out slice, and counts it.
// Window samples weigh as sampling by surprise says (training.surprise_weight and
// surprise_by: copies, or the policy loss's weight); the held-out slice keeps one of each at
// weight 1, so its losses stay comparable between configs. The counts (window_targets_: the
// "positions" of the metrics and the pacing) take each target once.
void TrainLoop::add_game(const xqzero::GameRecord& g, const std::vector<TrainingPosition>& positions) {
  const bool held = held_out(g, tc().heldout_fraction());
  const double surprise = tc().surprise_weight();
  if (held || !(surprise > 0)) {
    (held ? heldout_ : window_)->add(positions);
  } else if (tc().surprise_by() == "loss") {
    std::vector<TrainingPosition> weighted = positions;
    set_surprise_weights(g, tc().fast_value_targets(), surprise, weighted);
    window_->add(weighted);
  } else {
    window_->add(with_copies(positions, surprise_copies(g, tc().fast_value_targets(), surprise)));
  }
  if (!held) window_targets_ += int64_t(positions.size());
  Termination end = Termination::ONGOING;  // unknown names count as "ongoing"
  parse_termination(g.termination(), end);
  ++games_by_end_[int(end)];
  selfplay_moves_ += g.moves_size();
  targets_by_end_[int(end)] += int64_t(positions.size());
}

// The replay window, rebuilt from the games on disk.
void TrainLoop::rebuild_window() {
  window_ = std::make_unique<ReplayWindow>(tc().window_min(), tc().window_max(), tc().window_fraction());
  window_targets_ = 0;
  heldout_ = std::make_unique<ReplayWindow>(kHeldOutPositions, kHeldOutPositions, 1.0);
  scanner_ = std::make_unique<records::RecordScanner>(games_dir_.string());
  // Unusable games are skipped with one warning per file (the scanner replays each game once).
  const auto warn = [&](const std::string& w) { err_ << "train: warning: " << w << "\n"; };
  scanner_->scan_new(warn, [&](const std::string& path, std::vector<xqzero::GameRecord>&& games) {
    for_each_usable_game(
        path, games, warn,
        [&](xqzero::GameRecord&& g, std::vector<TrainingPosition>&& positions) {
          add_game(g, positions);
          ++games_on_disk_;
        },
        tc().fast_value_targets());
  });
  if (games_on_disk_ > 0)
    out_ << "train: " << games_on_disk_ << " games and " << window_targets_.load() << " target positions on disk\n";
}

// Games that self-play workers (`xqzero selfplay --follow`) wrote since the last scan: every
// new record file but this process's own (kSelfplayPrefix), whose games are already in the
// window (a rank other than 0 has no self-play of its own and reads rank 0's files too). A
// game played by a checkpoint more than training.stale_steps behind is dropped.
void TrainLoop::scan_worker_games() {
  const int64_t stale = tc().stale_steps();
  const auto warn = [&](const std::string& w) { err_ << "train: warning: " << w << "\n"; };
  const auto use = [&](xqzero::GameRecord&& g, std::vector<TrainingPosition>&& positions) {
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
  };
  scanner_->scan_new(
      warn,
      [&](const std::string& path, std::vector<xqzero::GameRecord>&& games) {
        for_each_usable_game(path, games, warn, use, tc().fast_value_targets());
      },
      [this](const std::string& name) { return !lead_ || name.rfind(std::string(kSelfplayPrefix) + "-", 0) != 0; });
}

void TrainLoop::load_net(const std::string& name) {
  xqzero::EvaluatorConfig ec = config_.evaluator();
  ec.set_weights((ckpt_dir_ / name).string());
  selfplay::DeviceNets nets;
  for (auto& evaluator : nn::make_evaluators(ec, config_.network(), selfplay::selfplay_callers(config_)))
    nets.per_device.push_back(selfplay::GameEvaluator{std::move(evaluator), name, checkpoint_step(name)});
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
    writer_ = std::make_unique<records::RecordWriter>(games_dir_.string(), kSelfplayPrefix,
                                                      config_.selfplay().games_per_file());
  }
  runner_ = std::make_unique<selfplay::SelfplayRunner>(
      sp,
      [this](int thread) {
        std::lock_guard<std::mutex> lock(net_.mutex);
        return net_.current.for_thread(thread);
      },
      [this](xqzero::GameRecord&& g) {
        std::vector<TrainingPosition> positions = positions_of(g, tc().fast_value_targets());
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

}  // namespace xq::training
