// xqzero bench <name> [options]: measured figures, never pass/fail thresholds
// (except `nncheck`, a numerical check whose exit status says whether it passed).
#include <optional>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "app/distributed_args.h"
#include "bench/mcts_bench.h"
#include "bench/movegen_bench.h"
#include "bench/nn_bench.h"
#include "bench/train_bench.h"
#include "nn/blas.h"
#include "nn/precision_choice.h"

namespace xq::app {

namespace {

const char* kNnUsage =
    "usage: xqzero bench nn|nncheck [options]\n"
    "  nn       raw network throughput at batch sizes 1..--max-batch, with GFLOP/s against a\n"
    "           matrix-product peak measured in the same precision and threads, then the batching\n"
    "           evaluator's throughput with 1, 2, 4 and 8 threads submitting single positions\n"
    "  nncheck  the same weights and positions on CPU (float32 reference) and on --device in\n"
    "           every precision it allows, and on CPU in bfloat16; exits 1 when a difference\n"
    "           exceeds the stated tolerance of its precision\n"
    "options (both):\n"
    "  --config FILE      text-format Config; its network and evaluator sections are used\n"
    "  --device D         cpu, cuda, cuda:N or auto (default: evaluator.device, auto)\n"
    "  --blocks N --channels C --se --global-pool --history H   override network fields\n"
    "  --threads N        torch CPU threads (default: evaluator.threads, 0 = torch's default)\n"
    "nn only:\n"
    "  --precision P      auto, float32, float16, bfloat16 (default: evaluator.precision)\n"
    "  --fold-bn on|off   run a BatchNorm-folded copy of the net (default: on for CPU, off for CUDA)\n"
    "  --channels-last on|off   channels-last weights and planes (default: on for CPU, off for CUDA)\n"
    "  --max-batch N      largest raw batch measured (default 1024)\n"
    "  --ms N             time per measurement in milliseconds (default 1000)\n"
    "  --deadline-us N    batching deadline (default: evaluator.deadline_us)\n"
    "  --breakdown        also where a batch of min(64, --max-batch) spends its time, part by part\n"
    "nncheck only:\n"
    "  --positions N      positions compared (default 256)\n"
    "  --weights CKPT     check this checkpoint's weights (and architecture) instead of fresh ones\n";

// An on|off option; unset when absent.
std::optional<bool> on_off(const Args& args, const std::string& name) {
  if (!args.has(name)) return std::nullopt;
  const std::string v = args.get(name);
  if (v == "on") return true;
  if (v == "off") return false;
  throw UsageError("--" + name + " takes on or off, not '" + v + "'");
}

int run_nn_benches(const std::string& name, const std::vector<std::string>& argv, std::ostream& out) {
  const Args args(argv,
                  {"config", "device", "blocks", "channels", "history", "threads", "precision", "max-batch", "ms",
                   "deadline-us", "positions", "fold-bn", "channels-last", "weights"},
                  {"se", "global-pool", "breakdown"});
  if (args.help()) {
    out << kNnUsage;
    return 0;
  }
  if (args.positional().size() > 1) throw UsageError("unexpected argument '" + args.positional()[1] + "'");
  xqzero::Config config;
  if (args.has("config")) config = load_config(args.get("config"));
  xqzero::NetworkConfig net = config.network();
  if (args.has("blocks")) net.set_blocks(int(args.get_int("blocks", 6, 1, 64)));
  if (args.has("channels")) net.set_channels(int(args.get_int("channels", 64, 8, 512)));
  if (args.has("history")) net.set_history(int(args.get_int("history", 0, 0, 7)));
  if (args.has("se")) net.set_se(true);
  if (args.has("global-pool")) net.set_global_pool(true);
  const xqzero::EvaluatorConfig& ec = config.evaluator();
  const std::string device = args.get("device", ec.device());
  const int threads = int(args.get_int("threads", ec.threads(), 0, 256));
  if (name == "nn") {
    bench::NnBenchOptions o;
    o.network = net;
    o.device = device;
    o.threads = threads;
    o.precision = args.get("precision", ec.precision());
    o.fold_batchnorm = on_off(args, "fold-bn");
    o.channels_last = on_off(args, "channels-last");
    o.max_batch = int(args.get_int("max-batch", 1024, 8, 4096));
    o.seconds = double(args.get_int("ms", 1000, 10, 60000)) / 1000;
    o.deadline_us = int(args.get_int("deadline-us", ec.deadline_us(), 0, 1000000));
    o.breakdown = args.has("breakdown");
    bench::run_nn_bench(out, o);
    return 0;
  }
  bench::NnCheckOptions o;
  o.network = net;
  o.device = device;
  o.threads = threads;
  o.positions = int(args.get_int("positions", 256, 1, 100000));
  o.weights = args.get("weights", "");
  return bench::run_nn_check(out, o) ? 0 : 1;
}

}  // namespace

int cmd_bench(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const nn::PrecisionLogScope precision_log(&out);  // "auto" measured on this machine: its figures, once
  if (!argv.empty() && (argv[0] == "nn" || argv[0] == "mcts" || argv[0] == "train")) {
    const nn::BlasInfo& blas = nn::blas_info();  // under the float32 linear layers
    out << "blas: " << blas.name << (blas.library.empty() ? "" : " (" + blas.library + ")") << "\n";
    if (!blas.warning.empty()) out << "warning: " << blas.warning << "\n";
  }
  if (!argv.empty() && (argv[0] == "nn" || argv[0] == "nncheck"))
    return run_nn_benches(argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()), out);
  std::vector<std::string> options{"depth", "repeats", "config", "seconds", "threads", "tree-visits", "algorithm"};
  options.insert(options.end(), distributed_option_names().begin(), distributed_option_names().end());
  const Args args(argv, options, {});
  if (args.help()) {
    out << "usage: xqzero bench <name> [options]\n"
           "  movegen [--depth N] [--repeats R]   single-thread perft on three reference positions\n"
           "                                      (default depth 5, best of R=3 runs)\n"
           "  mcts [--config F] [--seconds S] [--threads T]\n"
           "                                      self-play search with the torch net (default: the\n"
           "                                      embedded config, 10 s) against the raw batched net\n"
           "  mcts --tree-visits N [--algorithm puct|gumbel]\n"
           "                                      tree memory of one N-visit search from the start\n"
           "                                      position with the uniform evaluator (no net)\n"
           "  train [--config F] [--seconds S]    trainer samples/s with its data path against a bare\n"
           "                                      forward+backward loop (default: embedded config, 10 s)\n"
           "  train --world-size N --rank R [--master H:P] [--dist-timeout S]\n"
           "                                      the same over N data-parallel ranks (c10d/Gloo):\n"
           "                                      start it once per rank\n"
           "  nn [options]                        network and batching evaluator throughput\n"
           "  nncheck [options]                   GPU-vs-CPU numerical check (xqzero bench nn --help)\n";
    return 0;
  }
  if (args.positional().empty()) throw UsageError("missing benchmark name (movegen, mcts, train, nn, nncheck)");
  const std::string& name = args.positional()[0];
  if (args.positional().size() > 1) throw UsageError("unexpected argument '" + args.positional()[1] + "'");
  if (name == "movegen") {
    bench::run_movegen_bench(out, int(args.get_int("depth", 5, 1, 6)), int(args.get_int("repeats", 3, 1, 100)));
    return 0;
  }
  if (name == "mcts" && args.has("tree-visits")) {
    const std::string algorithm = args.get("algorithm", "puct");
    if (algorithm != "puct" && algorithm != "gumbel") throw UsageError("--algorithm must be puct or gumbel");
    bench::run_tree_memory_bench(out, int(args.get_int("tree-visits", 1000000, 1, 100000000)), algorithm);
    return 0;
  }
  if (name == "mcts") {
    xqzero::Config config = load_config(args.get("config"));
    if (args.has("threads")) config.mutable_selfplay()->set_threads(int(args.get_int("threads", 1, 1, 256)));
    bench::run_mcts_bench(out, config, double(args.get_int("seconds", 10, 1, 3600)));
    return 0;
  }
  if (name == "train") {
    training::DistributedOptions d = distributed_options(args);
    if (!args.has("dist-timeout")) d.timeout_s = 120;
    bench::run_train_bench(out, load_config(args.get("config")), double(args.get_int("seconds", 10, 1, 3600)), d);
    return 0;
  }
  throw UsageError("unknown benchmark '" + name + "'");
}

}  // namespace xq::app
