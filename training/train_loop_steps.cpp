// TrainLoop (training/train_loop_impl.h): the training steps, metrics and console lines,
// checkpoints, evaluations and the end of the run.
#include "training/train_loop_impl.h"

namespace xq::training {

namespace {

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

}  // namespace

void TrainLoop::add_stats(Json& j) {
  const auto& st = runner_->stats();
  const double games = double(st.games.load());
  j["games"] = games_on_disk_ + games_this_run_.load();
  j["positions"] = window_targets_.load();
  j["selfplay_moves"] = selfplay_moves_.load();
  j["window"] = window_->window_size();
  j["selfplay_positions_per_s"] = figure(double(st.moves.load()) / std::max(1e-9, elapsed()));
  j["avg_game_length"] = figure(games > 0 ? double(st.plies_sum.load()) / games : 0);
  j["red_wins"] = st.red_wins.load();
  j["black_wins"] = st.black_wins.load();
  j["draws"] = st.draws.load();
  j["resign_false_positive_rate"] =
      figure(st.would_resign.load() ? double(st.false_resign.load()) / double(st.would_resign.load()) : 0);
  j["decided_moves"] = st.decided_moves.load();
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
                games > 0 ? double(st.plies_sum.load()) / games : 0.0, (long long)window_targets_.load(),
                (long long)window_->window_size(),
                double(trainer_->samples_trained()) / std::max<double>(1, double(window_targets_.load())),
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
    line["run_s"] = figure(run_seconds_before_ + elapsed());
    line["run_s"] = figure(run_seconds_before_ + elapsed());
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
  fault_point("before-latest");
  write_file_atomically(latest_path_.string(), latest_ + "\n");
  load_net(latest_);
  Json line;
  line["kind"] = "generation";
  line["step"] = trainer_->steps();
  line["time_s"] = figure(elapsed());
  line["run_s"] = figure(run_seconds_before_ + elapsed());
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
  const int64_t total = window_targets_.load();
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
  line["run_s"] = figure(run_seconds_before_ + elapsed());
  line["policy_loss"] = figure(sums_.mean(sums_.policy));
  line["policy_entropy"] = figure(sums_.mean(sums_.policy_entropy));
  line["value_loss"] = figure(sums_.mean(sums_.value));
  line["value_entropy"] = figure(sums_.mean(sums_.value_entropy));
  line["material_loss"] = figure(sums_.mean(sums_.material));
  if (config_.network().short_value_head()) line["short_value_loss"] = figure(sums_.mean(sums_.short_value));
  if (config_.network().soft_policy_head()) line["soft_policy_loss"] = figure(sums_.mean(sums_.soft_policy));
  if (config_.network().reply_policy_head()) line["reply_policy_loss"] = figure(sums_.mean(sums_.reply_policy));
  if (heldout_->sample(kHeldOutBatch, rng_heldout_, batch_)) {
    const StepLosses h = trainer_->measure(batch_);
    line["heldout_policy_loss"] = figure(h.policy);
    line["heldout_value_loss"] = figure(h.value);
    line["heldout_material_loss"] = figure(h.material);
    if (config_.network().short_value_head()) line["heldout_short_value_loss"] = figure(h.short_value);
    if (config_.network().soft_policy_head()) line["heldout_soft_policy_loss"] = figure(h.soft_policy);
    if (config_.network().reply_policy_head()) line["heldout_reply_policy_loss"] = figure(h.reply_policy);
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

// Steps until max_steps, max_seconds, max_positions or the stop flag; checkpoints and evaluations on their
// schedule. Returns the exit status (1 after an error, which is reported).
int TrainLoop::train() {
  try {
    int64_t next_eval = tc().eval_every() > 0 ? (trainer_->steps() / tc().eval_every() + 1) * tc().eval_every() : -1;
    for (;;) {
      bool stop = (options_.stop && options_.stop->load()) ||
                  (tc().max_steps() > 0 && trainer_->steps() >= tc().max_steps()) ||
                  (tc().max_seconds() > 0 && elapsed() >= double(tc().max_seconds())) ||
                  (tc().max_positions() > 0 && selfplay_moves_.load() >= tc().max_positions());
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
       << fmt("%.0f", double(trainer_->samples_trained()) - start_samples_) << " samples trained; latest " << latest_
       << "\n";
}

}  // namespace xq::training
