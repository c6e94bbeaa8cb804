// xqzero analyse [--config F] [--model CKPT|uniform] [--device D] [--threads N] [--visits N] [--memory-mb M]:
// the JSON analysis engine (app/analyse/analysis_engine.h, docs/analysis.md) on stdin/stdout.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <ostream>

#include "app/analyse/analysis_engine.h"
#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "nn/evaluator_factory.h"
#include "selfplay/selfplay_config.h"

namespace xq::app {
namespace {

// The default tree memory of `analyse`: a quarter of the machine's memory, at most 1 GiB.
long long default_tree_mb() {
  const long long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  const long long quarter = pages > 0 && page > 0 ? pages / 4 * page / (1 << 20) : 1024;
  return std::clamp<long long>(quarter, 16, 1024);
}

}  // namespace

int cmd_analyse(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv, {"config", "model", "device", "threads", "visits", "seed", "memory-mb", "set"}, {});
  if (args.help()) {
    out << "usage: xqzero analyse [--config F] [--model CKPT|uniform] [--device D] [--threads N] [--visits N]\n"
           "                      [--memory-mb M]\n"
           "Reads JSON queries, one per line, on stdin and writes one JSON response line per\n"
           "analysed position on stdout, as each finishes (docs/analysis.md). Example:\n"
           "  {\"id\":\"a\",\"moves\":[\"h2e2\",\"h9g7\"],\"maxVisits\":200,\"analyzePlies\":[0,1,2]}\n"
           "  --config F    evaluator and search settings (default: the embedded tiny config)\n"
           "  --model CKPT  the network checkpoint, or 'uniform' (uniform priors, no network);\n"
           "                default: the config's evaluator.weights, else the bundled net\n"
           "                (nets/xqzero-default.xqz, installed beside the binary)\n"
           "  --device D    cpu, cuda, cuda:N or auto (overrides evaluator.device)\n"
           "  --threads N   positions searched at once, sharing the evaluator's batches\n"
           "                (default: evaluator.max_batch / search.leaves_per_batch, at least 2)\n"
           "  --visits N    maxVisits of a query that gives none (default 400)\n"
           "  --seed S      seed of the Gumbel root sampling (default 1)\n"
           "  --memory-mb M the trees of the searches running at once, together (default: a\n"
           "                quarter of the machine's memory, at most 1024); a search whose tree\n"
           "                reaches its share answers with what it has, marked memoryLimited\n"
           "  --set S.F=V   override one config field, e.g. --set search.c_puct_init=2 (repeatable)\n"
           "Bad lines are answered with {\"id\", \"error\", \"field\"}, unknown fields with a\n"
           "{\"id\", \"warning\", \"field\"} line (the query still runs). Actions: terminate,\n"
           "terminate_all, query_version, clear_cache, quit; 'quit' or the end of input ends the\n"
           "engine once every query read so far is answered.\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  const ModelConfig setup = load_model_config(args);
  const xqzero::Config& config = setup.config;
  const std::string& model = setup.model;

  analyse::AnalysisEngine::Options options;
  options.leaves_per_round = config.search().leaves_per_batch();
  const int by_batch = config.evaluator().max_batch() / std::max(1, options.leaves_per_round);
  options.threads = int(args.get_int("threads", std::max(2, by_batch), 1, 1024));
  options.seed = uint64_t(args.get_int("seed", 1, 0, INT64_MAX));
  options.max_tree_bytes = size_t(args.get_int("memory-mb", default_tree_mb(), 16, 1 << 20)) << 20;
  analyse::QueryDefaults defaults;
  defaults.max_visits = int(args.get_int("visits", 400, 1, analyse::kMaxVisits));
  defaults.search = selfplay::search_params(config.search());

  // The batch never waits for more leaves than the searches can have in flight.
  const auto evaluator =
      nn::make_weights_evaluator(model, config.evaluator(), options.threads * options.leaves_per_round);
  err << "analyse: " << evaluator->describe() << ", " << options.threads << " searches at once, "
      << (options.max_tree_bytes >> 20) << " MB of trees\n"
      << std::flush;
  std::cin.tie(nullptr);  // output is flushed line by line under the engine's lock
  analyse::AnalysisEngine engine(evaluator, defaults, options, out);
  return engine.run(std::cin);
}

}  // namespace xq::app
