// xqzero serve [--model CKPT] [--run-dir DIR ...] [--port N] [--host H]: the analysis board and
// run dashboard in the browser (app/serve/server.h, docs/serve.md).
#include <algorithm>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "app/serve/server.h"
#include "nn/evaluator_factory.h"
#include "selfplay/selfplay_config.h"

namespace xq::app {

namespace {

void print_usage(std::ostream& out) {
  out << "usage: xqzero serve [--model CKPT] [--run-dir DIR ...] [--port N] [--host H]\n"
         "A local web page: an analysis board (the net's moves, values and policy, live; play\n"
         "against it) and, for each --run-dir, a dashboard of the run's curves that follows\n"
         "metrics.jsonl as it grows, its checkpoints and games (docs/serve.md).\n"
         "  --model CKPT    the net: a checkpoint, 'uniform', or by default the bundled net\n"
         "  --run-dir DIR   a run directory to show (repeatable)\n"
         "  --port N        default 8080 (0: any free port, printed)\n"
         "  --host H        default 127.0.0.1; anything else opens the server to the network\n"
         "  --config F, --device D, --set S.F=V   evaluator and search settings, as analyse\n"
         "  --threads N     positions searched at once (default as analyse)\n"
         "  --max-visits N  the most visits one position may ask for (default 200000)\n"
         "  --max-query-visits N  the most visits one analysis may ask for over all its plies\n"
         "                  (default 20000000)\n";
}

}  // namespace

int cmd_serve(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(
      argv,
      {"config", "model", "device", "threads", "set", "run-dir", "port", "host", "max-visits", "max-query-visits"}, {},
      {"set", "run-dir"});
  if (args.help()) {
    print_usage(out);
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  const int port = int(args.get_int("port", 8080, 0, 65535));
  const std::string host = args.get("host", "127.0.0.1");
  const ModelConfig setup = load_model_config(args);
  const xqzero::Config& config = setup.config;

  analyse::AnalysisEngine::Options options;
  options.leaves_per_round = config.search().leaves_per_batch();
  const int by_batch = config.evaluator().max_batch() / std::max(1, options.leaves_per_round);
  options.threads = int(args.get_int("threads", std::max(2, by_batch), 1, 1024));
  analyse::QueryDefaults defaults;
  defaults.search = selfplay::search_params(config.search());
  serve::ServeOptions serve;
  serve.run_dirs = args.get_all("run-dir");
  serve.limits.max_visits = int(args.get_int("max-visits", 200000, 1, analyse::kMaxVisits));
  serve.limits.max_query_visits = args.get_int("max-query-visits", 20000000, 1, int64_t(1) << 40);
  const serve::RunDirs checked(serve.run_dirs);  // a missing run directory fails before the net loads

  const auto evaluator =
      nn::make_weights_evaluator(setup.model, config.evaluator(), options.threads * options.leaves_per_round);
  serve.evaluator = evaluator->describe();
  serve::ServeApp app(evaluator, defaults, options, serve, err);
  const int bound = app.bind(host, port);
  if (!serve::is_loopback_host(host))
    err << "serve: WARNING: listening on " << host << ", not loopback: anyone who can reach this machine can use\n"
        << "serve: WARNING: the engine and read the served run directories' metrics, checkpoint list and games\n";
  err << "serve: " << serve.evaluator << ", " << options.threads << " searches at once\n";
  for (const serve::RunDir& r : app.runs().runs()) err << "serve: run '" << r.name << "': " << r.root.string() << "\n";
  const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  out << "serve: open http://" << (host == "0.0.0.0" ? std::string("127.0.0.1") : shown) << ":" << bound << "/\n"
      << std::flush;
  err << std::flush;
  return app.listen() ? 0 : 1;
}

}  // namespace xq::app
