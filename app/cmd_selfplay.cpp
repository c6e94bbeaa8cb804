// xqzero selfplay [--config F] [--model CKPT | --evaluator uniform|test] --games N --out DIR
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <mutex>
#include <ostream>
#include <thread>

#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "core/errors.h"
#include "nn/evaluator_factory.h"
#include "nn/net_config.h"
#include "records/record_writer.h"
#include "selfplay/selfplay_config.h"
#include "training/run_dir.h"
#include "training/run_follower.h"

namespace xq::app {

namespace {

void print_progress(std::ostream& os, const selfplay::SelfplayStats& s, double seconds, const char* prefix) {
  const double games = double(s.games.load());
  char line[400];
  std::snprintf(line, sizeof line,
                "%sgames %llu | %.1f positions/s | %.0f evals/s | avg length %.1f | 1-0 %llu 0-1 %llu draw %llu | "
                "avg batch %.1f\n",
                prefix, (unsigned long long)s.games.load(), double(s.moves.load()) / std::max(seconds, 1e-9),
                double(s.evaluations.load()) / std::max(seconds, 1e-9),
                games > 0 ? double(s.plies_sum.load()) / games : 0.0, (unsigned long long)s.red_wins.load(),
                (unsigned long long)s.black_wins.load(), (unsigned long long)s.draws.load(),
                s.batches.load() ? double(s.batch_positions.load()) / double(s.batches.load()) : 0.0);
  os << line << std::flush;
}

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop = true; }

// A worker id as part of a file name: letters, digits, '.', '_' and '-', at most 64.
std::string checked_worker_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || !std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
      }))
    throw UsageError("--worker-id '" + clipped(id) + "' must be 1 to 64 letters, digits, '.', '_' or '-'");
  return id;
}

std::string default_worker_id() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == 0) std::snprintf(host, sizeof host, "host");
  std::string id;
  for (const char* c = host; *c && id.size() < 40; ++c)
    id += std::isalnum(static_cast<unsigned char>(*c)) || *c == '.' || *c == '-' ? *c : '_';
  return id + "-" + std::to_string(getpid());
}

// A worker may start before its trainer: it waits for the run's configuration (unless it has
// its own) and first checkpoint. Returns false when a stop signal ended the wait.
bool wait_for_trainer(const std::string& run, bool has_config, std::ostream& err) {
  bool said = false;
  while (!g_stop && ((!has_config && !std::filesystem::exists(run + "/config.textproto")) ||
                     !std::filesystem::exists(run + "/latest"))) {
    if (!said) err << "selfplay: waiting for the trainer of " << run << " (its config.textproto and latest)\n";
    said = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return !g_stop;
}

// `xqzero selfplay --follow RUN_DIR`: a self-play worker of a trainer's run directory
// (README "Scaling out"). Plays with the newest checkpoint `latest` names (switching between
// games), writes games/worker-<id>-NNNNNN.rec.gz, stops cleanly on SIGINT/SIGTERM (the games
// in progress are lost, finished ones written) or after --games.
int selfplay_follow(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.has("out") || args.has("model") || args.has("evaluator"))
    throw UsageError(
        "--follow takes the run directory's games/ and checkpoints; --out, --model and --evaluator do not apply");
  const std::string run = args.get("follow");
  if (run.empty()) throw UsageError("--follow needs a run directory");
  const std::string config_path = run + "/config.textproto";
  const std::string id = args.has("worker-id") ? checked_worker_id(args.get("worker-id")) : default_worker_id();
  // One process per worker id: two would play the same games (the seed comes from the id).
  std::filesystem::create_directories(run + "/games");
  const training::RunDirLock id_lock(run, "games/worker-" + id + ".lock",
                                     "worker id '" + id + "' of run directory '" + run + "'");
  g_stop = false;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  if (!wait_for_trainer(run, args.has("config"), err)) {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    out << "selfplay: stopped while waiting for the trainer of " << run << "\n";
    return 0;
  }
  xqzero::Config config = load_config(args.has("config") ? args.get("config") : config_path, args.get_all("set"));
  const long long games = args.get_int("games", 0, 0, 1000000000);
  if (args.has("threads")) config.mutable_selfplay()->set_threads(int(args.get_int("threads", 1, 1, 256)));
  // Workers must not play the same games: the seed is the config's mixed with the worker id.
  if (args.has("seed"))
    config.mutable_selfplay()->set_seed(args.get_int("seed", 1, 0, INT64_MAX));
  else
    config.mutable_selfplay()->set_seed(
        int64_t((uint64_t(config.selfplay().seed()) ^ std::hash<std::string>()(id)) >> 1));
  if (args.has("visits")) config.mutable_selfplay()->set_full_visits(int(args.get_int("visits", 1, 1, 1000000)));
  if (config.selfplay().threads() == 0) config.mutable_selfplay()->set_threads(1);
  validate_config(config);

  training::RunFollower follower(run, config.evaluator(), selfplay::selfplay_callers(config),
                                 [&](const std::string& w) { err << "selfplay: warning: " << w << "\n"; });
  records::RecordWriter writer(run + "/games", "worker-" + id, config.selfplay().games_per_file());
  std::mutex writer_mutex;
  selfplay::SelfplayRunner runner(
      selfplay::selfplay_options(config), [&](int thread) { return follower.current(thread); },
      [&](xqzero::GameRecord&& g) {
        std::lock_guard<std::mutex> lock(writer_mutex);
        writer.add(std::move(g));
      });
  out << "selfplay: worker " << id << " following " << run << " from " << follower.checkpoint() << "\n" << std::flush;
  std::atomic<bool> finished{false};
  std::thread worker([&] {
    runner.run(uint64_t(games));
    finished = true;
  });
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  double next = 2.0;
  while (!finished) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (g_stop) runner.stop();
    if (!args.has("quiet") && elapsed() >= next) {
      print_progress(err, runner.stats(), elapsed(), "selfplay: ");
      next += 2.0;
    }
  }
  worker.join();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  {
    std::lock_guard<std::mutex> lock(writer_mutex);
    writer.flush();
  }
  print_progress(out, runner.stats(), elapsed(), "done: ");
  out << "records: " << writer.games_written() << " games in " << writer.files_written() << " files under " << run
      << "/games (last net " << follower.checkpoint() << ")\n";
  return 0;
}

constexpr const char* kSelfplayHelp =
    "usage: xqzero selfplay [--config F] [--model CKPT | --evaluator uniform|test] --games N --out DIR\n"
    "       xqzero selfplay --follow RUN_DIR [--worker-id ID] [--games N] [--threads T] [--config F]\n"
    "  --config F       configuration (text proto; default: the embedded tiny config)\n"
    "  --model CKPT     network checkpoint (default: freshly initialised weights)\n"
    "  --evaluator E    torch (default), uniform (no network) or test\n"
    "  --games N        games to play (required)\n"
    "  --out DIR        directory for the record files (required)\n"
    "  --threads T      worker threads (overrides selfplay.threads)\n"
    "  --seed S         random seed (overrides selfplay.seed)\n"
    "  --visits V       full-search visits (overrides selfplay.full_visits)\n"
    "  --quiet          no progress lines\n"
    "  --set S.F=V      override one config field, e.g. --set selfplay.full_visits=64 (repeatable)\n"
    "  --follow RUN_DIR a self-play worker for a trainer's run directory: plays with the\n"
    "                   newest checkpoint its `latest` names (switching between games) and\n"
    "                   writes games/worker-<ID>-NNNNNN.rec.gz there; --games 0 (the default\n"
    "                   here) plays until SIGINT/SIGTERM; the config is the run's own\n"
    "  --worker-id ID   the worker's name in its files (default: host-pid)\n"
    "A progress line goes to stderr every two seconds; a summary to stdout at the end.\n";

}  // namespace

int cmd_selfplay(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(
      argv, {"config", "model", "evaluator", "games", "out", "threads", "seed", "visits", "follow", "worker-id", "set"},
      {"quiet"});
  if (args.help()) {
    out << kSelfplayHelp;
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  if (args.has("follow")) return selfplay_follow(args, out, err);
  if (args.has("worker-id")) throw UsageError("--worker-id is for --follow");
  if (!args.has("games")) throw UsageError("missing --games");
  if (!args.has("out")) throw UsageError("missing --out");
  if (args.has("model") && args.has("evaluator") && args.get("evaluator") != "torch")
    throw UsageError("--model needs the torch evaluator");
  xqzero::Config config = load_config(args.get("config"), args.get_all("set"));
  const long long games = args.get_int("games", 0, 1, 1000000000);
  if (args.has("threads")) config.mutable_selfplay()->set_threads(int(args.get_int("threads", 1, 1, 256)));
  if (args.has("seed")) config.mutable_selfplay()->set_seed(args.get_int("seed", 1, 0, INT64_MAX));
  if (args.has("visits")) config.mutable_selfplay()->set_full_visits(int(args.get_int("visits", 1, 1, 1000000)));
  if (args.has("evaluator")) {
    const std::string e = args.get("evaluator");
    if (e != "torch" && e != "uniform" && e != "test")
      throw UsageError("--evaluator must be torch, uniform or test, got '" + e + "'");
    config.mutable_evaluator()->set_name(e);
  }
  if (args.has("model") && nn::is_uniform_weights(args.get("model")))
    config.mutable_evaluator()->set_name("uniform");  // as analyse and match take it
  else if (args.has("model"))
    config.mutable_evaluator()->set_weights(args.get("model"));
  validate_config(config);

  const selfplay::SelfplayOptions options = selfplay::selfplay_options(config);
  const std::string network_id =
      config.evaluator().name() == "torch"
          ? (config.evaluator().weights().empty() ? "init:" + nn::short_name(config.network())
                                                  : config.evaluator().weights())
          : config.evaluator().name();
  selfplay::DeviceNets nets;  // one evaluator per evaluator.devices entry (or device)
  for (auto& e : nn::make_evaluators(config.evaluator(), config.network(), selfplay::selfplay_callers(config)))
    nets.per_device.push_back(selfplay::GameEvaluator{std::move(e), network_id});
  records::RecordWriter writer(args.get("out"), "selfplay", config.selfplay().games_per_file());
  selfplay::SelfplayRunner runner(
      options, [&](int thread) { return nets.for_thread(thread); },
      [&](xqzero::GameRecord&& g) { writer.add(std::move(g)); });

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  // SIGINT/SIGTERM stop it cleanly: every finished game is written, the summary printed.
  g_stop = false;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::atomic<bool> finished{false};
  std::thread worker([&] {
    runner.run(uint64_t(games));
    finished = true;
  });
  double next = 2.0;
  while (!finished) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (g_stop) runner.stop();
    if (!args.has("quiet") && elapsed() >= next) {
      print_progress(err, runner.stats(), elapsed(), "selfplay: ");
      next += 2.0;
    }
  }
  worker.join();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  writer.flush();
  print_progress(out, runner.stats(), elapsed(), "done: ");
  const auto& s = runner.stats();
  for (const auto& net : nets.per_device) out << "evaluator: " << net.evaluator->describe() << "\n";
  out << "records: " << writer.games_written() << " games in " << writer.files_written() << " files under "
      << args.get("out") << "\n";
  if (s.no_resign_games.load() > 0)
    out << "resignation check: " << s.no_resign_games.load() << " no-resign games, " << s.would_resign.load()
        << " would have resigned, " << s.false_resign.load() << " of those wrongly\n";
  return 0;
}

}  // namespace xq::app
