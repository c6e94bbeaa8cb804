// `xqzero train`: self-play workers and the trainer in one process (docs/architecture.md §4, the data flow).
//
// The run directory holds
//   config.textproto     the run's configuration (written once the run has started)
//   games/               self-play record files (selfplay-NNNNNN.rec.gz)
//   checkpoints/         ckpt-<step>.xqz: weights, optimiser, step, trained samples, RNG
//   latest               the name of the newest checkpoint (written atomically)
//   metrics.jsonl        one JSON object per line: "train" (every log_every steps),
//                        "generation" (every checkpoint) and "eval" (evaluation results)
//   lock                 flock'ed while a trainer runs here ("pid N on host H"); a second
//                        trainer on the same directory refuses to start
// Every file that matters is written to a temporary name, fsync'ed and renamed, so killing
// the process at any moment (kill -9 included) leaves the previous state readable. Running
// the same command again resumes from `latest` (when it is missing or its checkpoint does not
// load, from the checkpoint file with the highest step that loads; when checkpoints exist but
// none loads, it stops rather than start a new run over them) and the games on disk: the
// window is rebuilt from the record files, the step, trained-sample count and sampler state
// come from the checkpoint, and metrics lines past the checkpoint's step are dropped, so
// nothing is counted twice. Games still being played when the process died are lost;
// finished games are written to disk at least at every checkpoint.
// The configuration is validated (a stored config.textproto like any other, errors naming
// its line) before the run's files are touched, and config.textproto is replaced only once the
// checkpoint and the evaluator have loaded, so a config that cannot run leaves it intact.
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "config.pb.h"
#include "training/collective.h"

namespace xq::training {

struct TrainLoopOptions {
  std::string run_dir = "runs/default";
  // The configuration of a new run, or (config_given) the one a resumed run changes to; a run
  // resumed without config_given keeps its own config.textproto. The caller has parsed it.
  xqzero::Config config;
  bool config_given = false;  // the user named a config (else the run's own, or the default)
  // `--set section.field=value` changes (training/config_text.h apply_setting), applied to the
  // configuration the run uses and recorded in its config.textproto.
  std::vector<std::string> settings;
  // This invocation's settings (the command line's --max-steps, --max-seconds, --device),
  // applied over whichever configuration the run uses and not written to config.textproto.
  std::optional<int64_t> max_steps, max_seconds, max_positions;
  std::optional<std::string> device;
  std::atomic<bool>* stop = nullptr;  // set by a signal handler to end the run cleanly
  // Data-parallel training (world_size > 1): every rank runs this loop on the same run
  // directory and configuration. Rank 0 holds the lock, resumes or starts the run, runs the
  // in-process self-play, evaluations, and writes checkpoints, `latest` and metrics; the
  // others load the checkpoint rank 0 resumed from, read the games on disk (rank 0's and any
  // workers'), and train on their share of each batch (training.batch_size / world size).
  // All ranks agree each step whether to step, wait or stop (rank 0's data bounds and
  // limits, any rank's stop signal), so they stop together.
  DistributedOptions distributed;
};

// Runs until max_steps, max_seconds, max_positions or *stop. Returns the process exit status.
int run_train_loop(const TrainLoopOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xq::training
