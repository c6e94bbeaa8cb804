// `xqzero train`: self-play workers and the trainer in one process (docs/architecture.md §4, the data flow).
//
// The run directory holds
//   config.textproto     the run's configuration (written when the run starts)
//   games/               self-play record files (selfplay-NNNNNN.rec.gz)
//   checkpoints/         ckpt-<step>.xqz: weights, optimiser, step, trained samples, RNG
//   latest               the name of the newest checkpoint (written atomically)
//   metrics.jsonl        one JSON object per line: "train" (every log_every steps),
//                        "generation" (every checkpoint) and "eval" (evaluation results)
// Every file that matters is written to a temporary name and renamed, so killing the
// process at any moment (kill -9 included) leaves the previous state readable. Running the
// same command again resumes from `latest` and the games on disk: the window is rebuilt from
// the record files, the step, trained-sample count and sampler state come from the
// checkpoint, and metrics lines past the checkpoint's step are dropped, so nothing is
// counted twice. Games still being played when the process died are lost; finished games
// are written to disk at least at every checkpoint.
#pragma once

#include <atomic>
#include <iosfwd>
#include <string>

#include "config.pb.h"

namespace xq::training {

struct TrainLoopOptions {
  std::string run_dir = "runs/default";
  xqzero::Config config;
  bool config_given = false;  // the user named a config (else the run's own, or the default)
  std::atomic<bool>* stop = nullptr;  // set by a signal handler to end the run cleanly
};

// Runs until max_steps, max_seconds or *stop. Returns the process exit status.
int run_train_loop(const TrainLoopOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xq::training
