#include "training/run_follower.h"

#include "nn/evaluator_factory.h"
#include "training/run_dir.h"

namespace xq::training {

RunFollower::RunFollower(std::string run_dir, xqzero::EvaluatorConfig evaluator, nn::Callers callers, Warn warn,
                         int recheck_ms)
    : run_dir_(std::move(run_dir)),
      evaluator_(std::move(evaluator)),
      callers_(callers),
      warn_(std::move(warn)),
      recheck_(recheck_ms) {
  const std::string name = latest_name();
  if (checkpoint_step(name) < 0)
    throw RunDirError("run directory '" + run_dir_ + "': 'latest' names '" + name + "', not a checkpoint");
  net_ = load(name);
  name_ = name;
  next_check_ = std::chrono::steady_clock::now() + recheck_;
}

std::string RunFollower::latest_name() const { return read_latest(run_dir_ + "/latest"); }

selfplay::DeviceNets RunFollower::load(const std::string& name) const {
  selfplay::DeviceNets nets;
  for (auto& e : nn::make_weights_evaluators(run_dir_ + "/checkpoints/" + name, evaluator_, callers_))
    nets.per_device.push_back(selfplay::GameEvaluator{std::move(e), name, checkpoint_step(name)});
  return nets;
}

selfplay::GameEvaluator RunFollower::current(int thread) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_) return net_.for_thread(thread);
  next_check_ = now + recheck_;
  std::string name;
  try {
    name = latest_name();
  } catch (const std::exception&) {
    return net_.for_thread(thread);  // `latest` is being replaced (rename is atomic) or gone: keep the current net
  }
  if (name == name_ || name == failed_ || checkpoint_step(name) <= checkpoint_step(name_))
    return net_.for_thread(thread);
  try {
    net_ = load(name);
    name_ = name;
  } catch (const std::exception& e) {
    failed_ = name;
    if (warn_) warn_(std::string("keeping ") + name_ + ": " + e.what());
  }
  return net_.for_thread(thread);
}

std::string RunFollower::checkpoint() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return name_;
}

}  // namespace xq::training
