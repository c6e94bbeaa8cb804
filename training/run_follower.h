// The newest net of a run directory, for self-play workers that feed a trainer through a
// shared run directory (`xqzero selfplay --follow RUN_DIR`, README "Scaling out"): the
// checkpoint `latest` names, on the given evaluator settings. current() looks at `latest`
// again at most every `recheck_ms` and switches to a newer checkpoint; a game in progress
// keeps the net it started with (selfplay::GameEvaluator holds it). A newer checkpoint that
// does not load is reported once and the current net kept.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "config.pb.h"
#include "selfplay/selfplay.h"

namespace xq::training {

class RunFollower {
 public:
  using Warn = std::function<void(const std::string&)>;
  // Loads the checkpoint `latest` names now; throws RunDirError (no `latest`, or it names no
  // checkpoint) or the checkpoint's load error, naming the file.
  RunFollower(std::string run_dir, xqzero::EvaluatorConfig evaluator, nn::Callers callers, Warn warn,
              int recheck_ms = 2000);

  // The net to start a game with on self-play thread `thread` (thread-safe); with several
  // evaluator.devices, thread t plays on device t mod N.
  selfplay::GameEvaluator current(int thread = 0);
  // The checkpoint in use ("ckpt-00001234.xqz").
  std::string checkpoint() const;

 private:
  std::string latest_name() const;  // what `latest` names now
  selfplay::DeviceNets load(const std::string& name) const;

  std::string run_dir_;
  xqzero::EvaluatorConfig evaluator_;
  nn::Callers callers_;
  Warn warn_;
  std::chrono::milliseconds recheck_;
  mutable std::mutex mutex_;
  selfplay::DeviceNets net_;
  std::string name_;    // the checkpoint net_ holds
  std::string failed_;  // a newer checkpoint that did not load (reported once)
  std::chrono::steady_clock::time_point next_check_;
};

}  // namespace xq::training
