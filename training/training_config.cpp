#include "training/training_config.h"

#include <sstream>
#include <stdexcept>

namespace xq::training {

namespace {

template <typename T>
void check(const char* name, T value, double lo, double hi) {
  if (double(value) < lo || double(value) > hi) {
    std::ostringstream s;
    s << name << " = " << value << " is out of range " << lo << ".." << hi;
    throw std::invalid_argument(s.str());
  }
}

void one_of(const char* name, const std::string& value, std::initializer_list<const char*> choices) {
  std::string list;
  for (const char* c : choices) {
    if (value == c) return;
    list += list.empty() ? c : std::string(", ") + c;
  }
  throw std::invalid_argument(std::string(name) + " = \"" + value + "\" is not one of " + list);
}

}  // namespace

void validate(const xqzero::TrainingConfig& c) {
  check("training.batch_size", c.batch_size(), 1, 65536);
  one_of("training.optimizer", c.optimizer(), {"sgd", "adamw"});
  check("training.learning_rate", c.learning_rate(), 1e-7, 10);
  check("training.momentum", c.momentum(), 0, 0.999);
  check("training.weight_decay", c.weight_decay(), 0, 1);
  one_of("training.lr_schedule", c.lr_schedule(), {"constant", "step", "cosine"});
  check("training.lr_step_every", c.lr_step_every(), 1, 1e9);
  check("training.lr_step_gamma", c.lr_step_gamma(), 0, 1);
  check("training.cosine_steps", c.cosine_steps(), 1, 1e9);
  check("training.lr_min", c.lr_min(), 0, 10);
  check("training.grad_clip", c.grad_clip(), 0, 1e6);
  check("training.value_loss_weight", c.value_loss_weight(), 0, 100);
  check("training.root_value_mix", c.root_value_mix(), 0, 1);
  check("training.window_min", c.window_min(), 1, 1e10);
  check("training.window_max", c.window_max(), double(c.window_min()), 1e10);
  check("training.window_fraction", c.window_fraction(), 0, 1);
  check("training.min_positions", c.min_positions(), 1, 1e9);
  check("training.max_samples_per_position", c.max_samples_per_position(), 0.01, 1000);
  check("training.min_samples_per_position", c.min_samples_per_position(), 0, double(c.max_samples_per_position()));
  check("training.checkpoint_every", c.checkpoint_every(), 1, 1e9);
  check("training.eval_every", c.eval_every(), 0, 1e9);
  check("training.eval_games", c.eval_games(), 0, 10000);
  check("training.eval_visits", c.eval_visits(), 1, 100000);
  check("training.max_steps", c.max_steps(), 0, 1e15);
  check("training.max_seconds", c.max_seconds(), 0, 1e12);
  check("training.threads", c.threads(), 0, 256);
  check("training.log_every", c.log_every(), 1, 1e9);
  const std::string& d = c.device();
  if (d != "cpu" && d != "auto" && d.rfind("cuda", 0) != 0)
    throw std::invalid_argument("training.device = \"" + d + "\" is not cpu, cuda, cuda:N or auto");
}

}  // namespace xq::training
