// xqzero train [--config F] [--run-dir DIR]: the main job (training/train_loop.h).
#include <csignal>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "app/distributed_args.h"
#include "nn/blas.h"
#include "nn/precision_choice.h"
#include "training/run_dir.h"
#include "training/train_loop.h"

namespace xq::app {

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop = true; }
}  // namespace

int cmd_train(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const nn::PrecisionLogScope precision_log(&out);  // "auto" measured on this machine: its figures, once
  std::vector<std::string> options{"config", "run-dir", "max-seconds", "max-steps", "max-positions", "device", "set"};
  options.insert(options.end(), distributed_option_names().begin(), distributed_option_names().end());
  const Args args(argv, options, {});
  if (args.help()) {
    out << "usage: xqzero train [--config F] [--run-dir DIR] [--max-seconds S] [--max-steps N] [--max-positions N]\n"
           "                    [--device D]\n"
           "Runs self-play and training together (the main job).\n"
           "  --config F       configuration (default: the run directory's own config.textproto when\n"
           "                   resuming, else the embedded tiny config)\n"
           "  --run-dir DIR    run directory (default runs/default); running again resumes it\n"
           "  --max-seconds S  stop after S seconds (overrides training.max_seconds)\n"
           "  --max-steps N    stop at training step N (overrides training.max_steps)\n"
           "  --max-positions N  stop once the run's self-play has played N moves over all its\n"
           "                   invocations (overrides training.max_positions): a budget of work\n"
           "                   that means the same on a slower machine\n"
           "  --device D       trainer and evaluator device (cpu, cuda, cuda:N, auto)\n"
           "  --set S.F=V      change one field of the run's configuration, e.g. --set\n"
           "                   training.learning_rate=0.01 (repeatable; recorded in config.textproto)\n"
           "The limits and --device hold for this invocation, resumed or not, and are not written to\n"
           "the run's config.textproto.\n"
           "Data-parallel training over torch c10d (Gloo), N processes on one run directory:\n"
           "  --world-size N   number of trainer processes (ranks); default 1 or $WORLD_SIZE\n"
           "  --rank R         this process's rank, 0..N-1; default 0 or $RANK\n"
           "  --master H:P     rank 0's rendezvous address; default $MASTER_ADDR:$MASTER_PORT or\n"
           "                   127.0.0.1:29500\n"
           "  --dist-timeout S seconds to wait for the other ranks (rendezvous, each exchange);\n"
           "                   default 1800\n"
           "                   Rank 0 runs the in-process self-play and writes checkpoints, latest\n"
           "                   and metrics; every rank trains on its share of each batch.\n"
           "Ctrl-C (SIGINT) or SIGTERM ends the run cleanly with a checkpoint; kill -9 loses at most\n"
           "the games being played, the finished games not yet in a record file (up to\n"
           "selfplay.games_per_file) and the steps since the last checkpoint. One trainer at a time\n"
           "per run directory (a lock file in it).\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  training::TrainLoopOptions o;
  o.run_dir = args.get("run-dir", "runs/default");
  o.config_given = args.has("config");
  o.config = load_config(args.get("config"));
  // Changes to the run's configuration (recorded in its config.textproto), applied by the
  // train loop to whichever configuration the run uses.
  o.settings = args.get_all("set");
  // Applied by the train loop over whichever configuration the run ends up with.
  if (args.has("device")) o.device = args.get("device");
  if (args.has("max-seconds")) o.max_seconds = args.get_int("max-seconds", 0, 0, INT64_MAX);
  if (args.has("max-steps")) o.max_steps = args.get_int("max-steps", 0, 0, INT64_MAX);
  if (args.has("max-positions")) o.max_positions = args.get_int("max-positions", 0, 0, INT64_MAX);
  o.distributed = distributed_options(args);  // torchrun's variables, then the flags
  if (const std::string why = training::prepare_run_dir(o.run_dir); !why.empty())
    throw UsageError("option --run-dir: " + why);
  if (const std::string& warning = nn::blas_info().warning; !warning.empty()) out << "warning: " << warning << "\n";
  g_stop = false;
  o.stop = &g_stop;
  struct Handlers {  // installed for the run, restored however it ends
    Handlers() {
      std::signal(SIGINT, on_signal);
      std::signal(SIGTERM, on_signal);
    }
    ~Handlers() {
      std::signal(SIGINT, SIG_DFL);
      std::signal(SIGTERM, SIG_DFL);
    }
  } handlers;
  return training::run_train_loop(o, out, err);
}

}  // namespace xq::app
