#include "training/train_loop.h"

#include <google/protobuf/text_format.h>

#include <nlohmann/json.hpp>

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
#include "training/config_text.h"
#include "training/record_scanner.h"
#include "training/replay_window.h"
#include "training/run_dir.h"
#include "training/trainer.h"

namespace fs = std::filesystem;

namespace xq::training {

namespace {

using Json = nlohmann::ordered_json;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The run's small files, bounded: a config is a few KB, `latest` one line.
constexpr size_t kMaxConfigBytes = size_t(16) << 20;
constexpr size_t kMaxLatestBytes = 4096;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// Keeps only the metrics lines whose "step" is at most `step` (after a resume).
void truncate_metrics(const fs::path& path, int64_t step) {
  if (!fs::exists(path)) return;
  std::istringstream in(read_file(path));
  std::string kept, line;
  for (; std::getline(in, line);) {
    const size_t at = line.find("\"step\":");
    if (at == std::string::npos) continue;
    const long long s = std::atoll(line.c_str() + at + 7);
    if (s <= step) kept += line + "\n";
  }
  write_file_atomically(path.string(), kept);
}

// metrics.jsonl: one JSON object per line, keys in the order written. Numbers that are not
// finite (an infinite Elo bound) are written as null, the only JSON has.
class Metrics {
 public:
  explicit Metrics(const fs::path& path) : out_(path, std::ios::app) {}
  void write(const Json& line) {
    const std::string text = line.dump(-1, ' ', false, Json::error_handler_t::replace);
    std::lock_guard<std::mutex> lock(mutex_);
    out_ << text << "\n";
    out_.flush();
  }

 private:
  std::mutex mutex_;
  std::ofstream out_;
};

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// A measured figure for metrics.jsonl: six significant digits (what the old hand-written
// lines had), null when not finite.
Json figure(double x) {
  if (!std::isfinite(x)) return nullptr;
  return std::stod(fmt("%.6g", x));
}

// Whether a game belongs to the held-out slice (never trained on): chosen by its seed, so a
// resumed run routes the games on disk the same way.
bool held_out(const xqzero::GameRecord& g, double fraction) {
  if (fraction <= 0) return false;
  const uint64_t h = (g.seed() + 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
  return double(h >> 11) * 0x1.0p-53 < fraction;
}

constexpr int64_t kHeldOutPositions = 4096;  // newest held-out positions kept
constexpr int kHeldOutBatch = 512;             // measured per metrics line

// {"checkmate":N,...} from counts indexed by Termination, zero counts left out.
Json termination_json(const int64_t* counts) {
  Json j = Json::object();
  for (int t = 0; t < TERMINATION_NB; ++t)
    if (counts[t] != 0) j[to_string(Termination(t))] = counts[t];
  return j;
}

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
  selfplay::GameEvaluator current;
};

}  // namespace

int run_train_loop(const TrainLoopOptions& options, std::ostream& out, std::ostream& err) {
  using clock = std::chrono::steady_clock;
  const auto started = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - started).count(); };

  const fs::path run(options.run_dir);
  if (const std::string why = prepare_run_dir(options.run_dir); !why.empty())
    throw RunDirError("run directory '" + options.run_dir + "': " + why);
  const RunDirLock run_lock(options.run_dir);  // before anything in the directory is read or written
  const fs::path games_dir = run / "games", ckpt_dir = run / "checkpoints";
  fs::create_directories(games_dir);
  fs::create_directories(ckpt_dir);

  // The configuration: the user's, else the run's own, else the embedded default (given by
  // the caller). It is what config.textproto records; this invocation's settings go on top.
  const fs::path config_path = run / "config.textproto";
  xqzero::Config file_config = options.config;
  std::string replacing;  // a warning, given once the run has started with the given config
  std::optional<std::string> stored_text;  // config.textproto as found, read once
  if (fs::exists(config_path)) {
    const std::string source = "config '" + config_path.string() + "'";
    stored_text = xq::read_file(config_path.string(), kMaxConfigBytes, "config");
    if (!options.config_given) {
      file_config = parse_config(*stored_text, source);
    } else {
      try {
        if (parse_config(*stored_text, source).SerializeAsString() != file_config.SerializeAsString())
          replacing = "the given config differs from " + config_path.string() + "; using the given one";
      } catch (const ConfigError& e) {
        replacing = std::string(e.what()) + "; the given config replaces it";
      }
    }
  }
  xqzero::Config config = file_config;
  apply_invocation_settings(options, config);
  validate_config(config);
  if (config.network().history() > 0)
    throw std::invalid_argument("network.history > 0 is not supported by self-play and training yet");
  std::string config_text;
  google::protobuf::TextFormat::PrintToString(file_config, &config_text);
  const xqzero::TrainingConfig& tc = config.training();

  // The checkpoint to resume from: the one `latest` names, else the newest that loads.
  std::mt19937_64 rng(uint64_t(tc.seed()));
  std::mt19937_64 rng_heldout(uint64_t(tc.seed()) ^ 0x5DEECE66DULL);  // not checkpointed: metrics only
  const fs::path latest_path = run / "latest";
  const bool has_latest = fs::exists(latest_path);
  const std::string latest_named =
      has_latest ? trim(xq::read_file(latest_path.string(), kMaxLatestBytes, "run file 'latest'")) : "";
  if (has_latest && checkpoint_step(latest_named) < 0)
    err << "train: warning: " << latest_path.string() << " names '" << latest_named << "', not a checkpoint\n";
  else if (!has_latest && !checkpoints_newest_first(ckpt_dir.string()).empty())
    out << "train: " << run.string() << " has no 'latest'; resuming from the newest checkpoint that loads\n";
  std::unique_ptr<Trainer> trainer_owner;
  const std::string resumed = load_newest_loadable(ckpt_dir, checkpoint_step(latest_named) >= 0 ? latest_named : "",
                                                   [&] { return std::make_unique<Trainer>(config.network(), tc); },
                                                   trainer_owner, rng, err);
  Trainer& trainer = *trainer_owner;
  std::string latest = resumed;
  if (!resumed.empty()) {
    out << "train: resuming " << run.string() << " from " << latest << " (step " << trainer.steps() << ")\n";
  } else if (has_latest) {
    throw RunDirError("run directory '" + run.string() + "': " + latest_path.string() + " exists but " +
                      ckpt_dir.string() + " holds no checkpoint; not starting a new run over it");
  } else {
    latest = checkpoint_name(0);
    trainer.save((ckpt_dir / latest).string(), "xqzero train, initial weights", rng);
    out << "train: new run in " << run.string() << ", net " << nn::short_name(config.network()) << " on "
        << trainer.device_name() << "\n";
  }
  if (latest != latest_named) write_file_atomically(latest_path.string(), latest + "\n");
  std::string previous_eval_checkpoint = (ckpt_dir / latest).string();
  truncate_metrics(run / "metrics.jsonl", trainer.steps());
  Metrics metrics(run / "metrics.jsonl");

  // The replay window, rebuilt from the games on disk.
  ReplayWindow window(tc.window_min(), tc.window_max(), tc.window_fraction());
  ReplayWindow heldout(kHeldOutPositions, kHeldOutPositions, 1.0);
  int64_t games_by_end[TERMINATION_NB] = {}, targets_by_end[TERMINATION_NB] = {};  // under sink_mutex
  // Routes one finished game's targets to the window or the held-out slice, and counts it.
  auto add_game = [&](const xqzero::GameRecord& g, const std::vector<TrainingPosition>& positions) {
    (held_out(g, tc.heldout_fraction()) ? heldout : window).add(positions);
    Termination end = Termination::ONGOING;  // unknown names count as "ongoing"
    parse_termination(g.termination(), end);
    ++games_by_end[int(end)];
    targets_by_end[int(end)] += int64_t(positions.size());
  };
  RecordScanner scanner(games_dir.string());
  int64_t games_on_disk = 0;
  // Unusable games are skipped with one warning per file (the scanner replays each game once).
  scanner.scan_new([&](const std::string& w) { err << "train: warning: " << w << "\n"; },
                   [&](xqzero::GameRecord&& g, std::vector<TrainingPosition>&& positions) {
                     add_game(g, positions);
                     ++games_on_disk;
                   });
  if (games_on_disk > 0)
    out << "train: " << games_on_disk << " games and " << window.total_added() << " target positions on disk\n";

  // Self-play, on the newest checkpoint; each game keeps the net it started with.
  SharedNet net;
  auto load_net = [&](const std::string& name) {
    xqzero::EvaluatorConfig ec = config.evaluator();
    ec.set_weights((ckpt_dir / name).string());
    auto evaluator = nn::make_evaluator(ec, config.network());
    std::lock_guard<std::mutex> lock(net.mutex);
    net.current = selfplay::GameEvaluator{std::move(evaluator), name};
  };
  load_net(latest);
  // The run has started (checkpoint and evaluator loaded): only now may the configuration
  // replace the stored one.
  if (!replacing.empty()) err << "train: warning: " << replacing << "\n";
  if (stored_text != config_text) write_file_atomically(config_path.string(), config_text);
  selfplay::SelfplayOptions sp = selfplay::selfplay_options(config);
  sp.config_id = std::to_string(std::hash<std::string>()(config_text));
  selfplay::RecordWriter writer(games_dir.string(), "selfplay", config.selfplay().games_per_file());
  std::mutex sink_mutex;
  std::atomic<int64_t> games_this_run{0};  // read by the console and metrics without the sink lock
  std::atomic<int64_t> positions_this_run{0};
  selfplay::SelfplayRunner runner(
      sp,
      [&] {
        std::lock_guard<std::mutex> lock(net.mutex);
        return net.current;
      },
      [&](xqzero::GameRecord&& g) {
        std::vector<TrainingPosition> positions = positions_of(g);
        std::lock_guard<std::mutex> lock(sink_mutex);
        add_game(g, positions);
        positions_this_run += int64_t(positions.size());
        ++games_this_run;
        writer.add(std::move(g));
      });
  std::thread selfplay_thread([&] { runner.run(0); });

  const int64_t start_step = trainer.steps();
  const double start_samples = double(trainer.samples_trained());
  double policy_sum = 0, value_sum = 0, material_sum = 0, policy_h_sum = 0, value_h_sum = 0;
  double reg_last = 0, lr_last = 0;
  uint64_t kl_micro_last = 0, kl_count_last = 0;
  int loss_count = 0;
  double last_log_time = elapsed(), last_console = -10;
  int64_t last_log_samples = trainer.samples_trained();
  const auto& st = runner.stats();
  std::vector<TrainingPosition> batch;
  int exit_status = 0;

  auto add_stats = [&](Json& j) {
    const double games = double(st.games.load());
    j["games"] = games_on_disk + games_this_run.load();
    j["positions"] = window.total_added();
    j["window"] = window.window_size();
    j["selfplay_positions_per_s"] = figure(double(st.moves.load()) / std::max(1e-9, elapsed()));
    j["avg_game_length"] = figure(games > 0 ? double(st.plies_sum.load()) / games : 0);
    j["red_wins"] = st.red_wins.load();
    j["black_wins"] = st.black_wins.load();
    j["draws"] = st.draws.load();
    j["resign_false_positive_rate"] =
        figure(st.would_resign.load() ? double(st.false_resign.load()) / double(st.would_resign.load()) : 0);
    std::lock_guard<std::mutex> lock(sink_mutex);
    j["terminations"] = termination_json(games_by_end);
    j["target_terminations"] = termination_json(targets_by_end);
  };
  auto console = [&](bool force) {
    if (!force && elapsed() - last_console < 5) return;
    last_console = elapsed();
    const double games = double(st.games.load());
    char line[400];
    std::snprintf(line, sizeof line,
                  "train: %6.0fs step %lld | games %lld (%.1f plies avg) | targets %lld, window %lld | "
                  "samples/target %.2f | policy %.3f (floor %.3f) value %.3f (baseline %.3f) | lr %.4g\n",
                  elapsed(), (long long)trainer.steps(), (long long)(games_on_disk + games_this_run.load()),
                  games > 0 ? double(st.plies_sum.load()) / games : 0.0, (long long)window.total_added(),
                  (long long)window.window_size(),
                  double(trainer.samples_trained()) / std::max<double>(1, double(window.total_added())),
                  loss_count ? policy_sum / loss_count : 0.0, loss_count ? policy_h_sum / loss_count : 0.0,
                  loss_count ? value_sum / loss_count : 0.0, loss_count ? value_h_sum / loss_count : 0.0, lr_last);
    out << line << std::flush;
  };

  bool fsf_reported = false;
  auto evaluate = [&](const std::string& checkpoint) {
    GameSettings settings;
    settings.length_cap = config.selfplay().max_plies();
    settings.repetitions = config.selfplay().repetitions();
    auto current = checkpoint_player(config, checkpoint, "current");
    std::vector<std::unique_ptr<selfplay::Player>> opponents;
    opponents.push_back(checkpoint_player(config, previous_eval_checkpoint, "previous"));
    opponents.push_back(std::make_unique<selfplay::RandomPlayer>(uint64_t(tc.seed())));
    opponents.push_back(std::make_unique<selfplay::GreedyPlayer>(uint64_t(tc.seed())));
    // A real engine when the Debian package is installed (Fairy-Stockfish at depth 1).
    std::string why;
    if (auto engine = fairy_stockfish_player(1, &why))
      opponents.push_back(std::move(engine));
    else if (!fsf_reported) {
      out << "eval: no Fairy-Stockfish opponent (" << why << ")\n";
      fsf_reported = true;
    }
    for (auto& opponent : opponents) {
      const MatchScore m = play_evaluation_match(*current, *opponent, tc.eval_games(), tc.eval_visits(), settings);
      Json line;
      line["kind"] = "eval";
      line["step"] = trainer.steps();
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
      metrics.write(line);
      out << "eval: step " << trainer.steps() << " vs " << m.opponent << ": +" << m.elo.wins << " =" << m.elo.draws
          << " -" << m.elo.losses << "  Elo " << selfplay::format_elo(m.elo) << std::endl;
    }
    previous_eval_checkpoint = checkpoint;
  };

  auto checkpoint = [&] {
    {
      std::lock_guard<std::mutex> lock(sink_mutex);
      writer.flush();
    }
    latest = checkpoint_name(trainer.steps());
    const std::string path = (ckpt_dir / latest).string();
    trainer.save(path, "xqzero train, step " + std::to_string(trainer.steps()), rng);
    write_file_atomically(latest_path.string(), latest + "\n");
    load_net(latest);
    Json line;
    line["kind"] = "generation";
    line["step"] = trainer.steps();
    line["time_s"] = figure(elapsed());
    line["checkpoint"] = latest;
    add_stats(line);
    metrics.write(line);
    return path;
  };

  try {
    int64_t next_eval = tc.eval_every() > 0 ? (trainer.steps() / tc.eval_every() + 1) * tc.eval_every() : -1;
    for (;;) {
      if (options.stop && options.stop->load()) break;
      if (tc.max_steps() > 0 && trainer.steps() >= tc.max_steps()) break;
      if (tc.max_seconds() > 0 && elapsed() >= double(tc.max_seconds())) break;
      const int64_t total = window.total_added();
      const bool started_training = total >= tc.min_positions();
      runner.set_paused(started_training && tc.min_samples_per_position() > 0 &&
                        double(trainer.samples_trained()) < tc.min_samples_per_position() * double(total));
      if (!started_training ||
          double(trainer.samples_trained()) >= tc.max_samples_per_position() * double(total)) {
        console(false);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      window.sample(tc.batch_size(), rng, batch);
      const bool log_now = (trainer.steps() + 1) % tc.log_every() == 0;
      const StepLosses l = trainer.step(batch, log_now);
      policy_sum += l.policy;
      value_sum += l.value;
      material_sum += l.material;
      policy_h_sum += l.policy_entropy;
      value_h_sum += l.value_entropy;
      lr_last = l.learning_rate;
      ++loss_count;
      if (log_now) {
        reg_last = l.regularisation;
        const double dt = std::max(1e-9, elapsed() - last_log_time);
        const double sps = double(trainer.samples_trained() - last_log_samples) / dt;
        const uint64_t kl_micro = st.search_kl_micro.load(), kl_count = st.searches_full.load();
        const double search_kl = kl_count > kl_count_last ? double(kl_micro - kl_micro_last) * 1e-6 /
                                                                double(kl_count - kl_count_last)
                                                          : 0.0;
        kl_micro_last = kl_micro;
        kl_count_last = kl_count;
        Json line;
        line["kind"] = "train";
        line["step"] = trainer.steps();
        line["time_s"] = figure(elapsed());
        line["policy_loss"] = figure(policy_sum / loss_count);
        line["policy_entropy"] = figure(policy_h_sum / loss_count);
        line["value_loss"] = figure(value_sum / loss_count);
        line["value_entropy"] = figure(value_h_sum / loss_count);
        line["material_loss"] = figure(material_sum / loss_count);
        if (heldout.sample(kHeldOutBatch, rng_heldout, batch)) {
          const StepLosses h = trainer.measure(batch);
          line["heldout_policy_loss"] = figure(h.policy);
          line["heldout_value_loss"] = figure(h.value);
          line["heldout_material_loss"] = figure(h.material);
          line["heldout_positions"] = heldout.total_added();
        }
        line["search_kl"] = figure(search_kl);
        line["reg_loss"] = figure(reg_last);
        line["lr"] = figure(lr_last);
        line["samples_per_s"] = figure(sps);
        line["samples_trained"] = trainer.samples_trained();
        add_stats(line);
        metrics.write(line);
        console(true);
        policy_sum = value_sum = material_sum = policy_h_sum = value_h_sum = 0;
        loss_count = 0;
        last_log_time = elapsed();
        last_log_samples = trainer.samples_trained();
      }
      if (trainer.steps() % tc.checkpoint_every() == 0) {
        const std::string path = checkpoint();
        if (next_eval > 0 && trainer.steps() >= next_eval) {
          evaluate(path);
          next_eval = (trainer.steps() / tc.eval_every() + 1) * tc.eval_every();
        }
      }
    }
  } catch (const std::exception& e) {
    err << "train: " << e.what() << "\n";
    exit_status = 1;
  }
  runner.stop();
  selfplay_thread.join();
  if (exit_status == 0 && trainer.steps() > start_step && latest != checkpoint_name(trainer.steps())) checkpoint();
  {
    std::lock_guard<std::mutex> lock(sink_mutex);
    writer.flush();
  }
  console(true);
  out << "train: stopped at step " << trainer.steps() << " after " << fmt("%.0f", elapsed()) << " s; "
      << games_this_run.load() << " games and " << positions_this_run.load() << " target positions this run; "
      << fmt("%.0f", double(trainer.samples_trained()) - start_samples) << " samples trained; latest " << latest
      << "\n";
  return exit_status;
}

}  // namespace xq::training
