// xqzero selfplay [--config F] [--model CKPT | --evaluator uniform|test] --games N --out DIR
#include <chrono>
#include <cstdio>
#include <ostream>
#include <thread>

#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "nn/evaluator_factory.h"
#include "nn/net_config.h"
#include "selfplay/record_writer.h"
#include "selfplay/selfplay_config.h"

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

}  // namespace

int cmd_selfplay(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv, {"config", "model", "evaluator", "games", "out", "threads", "seed", "visits"}, {"quiet"});
  if (args.help()) {
    out << "usage: xqzero selfplay [--config F] [--model CKPT | --evaluator uniform|test] --games N --out DIR\n"
           "  --config F       configuration (text proto; default: the embedded tiny config)\n"
           "  --model CKPT     network checkpoint (default: freshly initialised weights)\n"
           "  --evaluator E    torch (default), uniform (no network) or test\n"
           "  --games N        games to play (required)\n"
           "  --out DIR        directory for the record files (required)\n"
           "  --threads T      worker threads (overrides selfplay.threads)\n"
           "  --seed S         random seed (overrides selfplay.seed)\n"
           "  --visits V       full-search visits (overrides selfplay.full_visits)\n"
           "  --quiet          no progress lines\n"
           "A progress line goes to stderr every two seconds; a summary to stdout at the end.\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  if (!args.has("games")) throw UsageError("missing --games");
  if (!args.has("out")) throw UsageError("missing --out");
  if (args.has("model") && args.has("evaluator") && args.get("evaluator") != "torch")
    throw UsageError("--model needs the torch evaluator");
  xqzero::Config config = load_config(args.get("config"));
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
  if (args.has("model")) config.mutable_evaluator()->set_weights(args.get("model"));
  validate_config(config);

  const auto evaluator = nn::make_evaluator(config.evaluator(), config.network());
  selfplay::SelfplayOptions options = selfplay::selfplay_options(config);
  options.network_id = config.evaluator().name() == "torch"
                           ? (config.evaluator().weights().empty() ? "init:" + nn::short_name(config.network())
                                                                   : config.evaluator().weights())
                           : config.evaluator().name();
  selfplay::RecordWriter writer(args.get("out"), "selfplay", config.selfplay().games_per_file());
  selfplay::SelfplayRunner runner(options, *evaluator, [&](xqzero::GameRecord&& g) { writer.add(std::move(g)); });

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::thread worker([&] { runner.run(uint64_t(games)); });
  double next = 2.0;
  while (runner.stats().games.load() < uint64_t(games)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!args.has("quiet") && elapsed() >= next) {
      print_progress(err, runner.stats(), elapsed(), "selfplay: ");
      next += 2.0;
    }
  }
  worker.join();
  writer.flush();
  print_progress(out, runner.stats(), elapsed(), "done: ");
  const auto& s = runner.stats();
  out << "evaluator: " << evaluator->describe() << "\n";
  out << "records: " << writer.games_written() << " games in " << writer.files_written() << " files under "
      << args.get("out") << "\n";
  if (s.no_resign_games.load() > 0)
    out << "resignation check: " << s.no_resign_games.load() << " no-resign games, " << s.would_resign.load()
        << " would have resigned, " << s.false_resign.load() << " of those wrongly\n";
  return 0;
}

}  // namespace xq::app
