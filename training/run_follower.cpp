#include "training/run_follower.h"

#include "nn/evaluator_factory.h"
#include "training/run_dir.h"

namespace xq::training {

RunFollower::RunFollower(std::string run_dir, xqzero::EvaluatorConfig evaluator, int max_in_flight, Warn warn,
                         int recheck_ms)
    : run_dir_(std::move(run_dir)),
      evaluator_(std::move(evaluator)),
      max_in_flight_(max_in_flight),
      warn_(std::move(warn)),
      recheck_(recheck_ms) {
  const std::string name = latest_name();
  if (checkpoint_step(name) < 0)
    throw RunDirError("run directory '" + run_dir_ + "': 'latest' names '" + name + "', not a checkpoint");
  net_ = load(name);
  next_check_ = std::chrono::steady_clock::now() + recheck_;
}

std::string RunFollower::latest_name() const { return read_latest(run_dir_ + "/latest"); }

selfplay::GameEvaluator RunFollower::load(const std::string& name) const {
  return selfplay::GameEvaluator{
      nn::make_weights_evaluator(run_dir_ + "/checkpoints/" + name, evaluator_, max_in_flight_), name};
}

selfplay::GameEvaluator RunFollower::current() {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_) return net_;
  next_check_ = now + recheck_;
  std::string name;
  try {
    name = latest_name();
  } catch (const std::exception&) {
    return net_;  // `latest` is being replaced (rename is atomic) or gone: keep the current net
  }
  if (name == net_.network_id || name == failed_ || checkpoint_step(name) <= checkpoint_step(net_.network_id))
    return net_;
  try {
    net_ = load(name);
  } catch (const std::exception& e) {
    failed_ = name;
    if (warn_) warn_(std::string("keeping ") + net_.network_id + ": " + e.what());
  }
  return net_;
}

std::string RunFollower::checkpoint() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return net_.network_id;
}

}  // namespace xq::training
