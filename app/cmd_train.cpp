// xqzero train [--config F] [--run-dir DIR]: the main job (training/train_loop.h).
#include <csignal>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "training/train_loop.h"

namespace xq::app {

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop = true; }
}  // namespace

int cmd_train(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv, {"config", "run-dir", "max-seconds", "max-steps", "device"}, {});
  if (args.help()) {
    out << "usage: xqzero train [--config F] [--run-dir DIR] [--max-seconds S] [--max-steps N] [--device D]\n"
           "Runs self-play and training together (the main job).\n"
           "  --config F       configuration (default: the run directory's own config.textproto when\n"
           "                   resuming, else the embedded tiny config)\n"
           "  --run-dir DIR    run directory (default runs/default); running again resumes it\n"
           "  --max-seconds S  stop after S seconds (overrides training.max_seconds)\n"
           "  --max-steps N    stop at training step N (overrides training.max_steps)\n"
           "  --device D       trainer and evaluator device (cpu, cuda, cuda:N, auto)\n"
           "Ctrl-C (SIGINT) or SIGTERM ends the run cleanly with a checkpoint; kill -9 loses at most\n"
           "the games being played and the steps since the last checkpoint.\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  training::TrainLoopOptions o;
  o.run_dir = args.get("run-dir", "runs/default");
  o.config_given = args.has("config");
  o.config = load_config(args.get("config"));
  if (args.has("device")) {
    o.config.mutable_training()->set_device(args.get("device"));
    o.config.mutable_evaluator()->set_device(args.get("device"));
  }
  if (args.has("max-seconds")) o.config.mutable_training()->set_max_seconds(args.get_int("max-seconds", 0, 0, INT64_MAX));
  if (args.has("max-steps")) o.config.mutable_training()->set_max_steps(args.get_int("max-steps", 0, 0, INT64_MAX));
  validate_config(o.config);
  g_stop = false;
  o.stop = &g_stop;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const int status = training::run_train_loop(o, out, err);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return status;
}

}  // namespace xq::app
