#include "training/training_config.h"

#include <stdexcept>

#include "proto/config_check.h"

namespace xq::training {

using config::check_choice;
using config::check_range;

void validate(const xqzero::TrainingConfig& c) {
  check_range("training.batch_size", c.batch_size(), 1, 65536);
  check_choice("training.optimizer", c.optimizer(), {"sgd", "adamw"});
  check_range("training.learning_rate", c.learning_rate(), 1e-7, 10);
  check_range("training.momentum", c.momentum(), 0, 0.999);
  check_range("training.weight_decay", c.weight_decay(), 0, 1);
  check_choice("training.lr_schedule", c.lr_schedule(), {"constant", "step", "cosine"});
  check_range("training.lr_step_every", c.lr_step_every(), 1, 1e9);
  check_range("training.lr_step_gamma", c.lr_step_gamma(), 0, 1);
  check_range("training.cosine_steps", c.cosine_steps(), 1, 1e9);
  check_range("training.lr_min", c.lr_min(), 0, 10);
  check_range("training.grad_clip", c.grad_clip(), 0, 1e6);
  check_range("training.value_loss_weight", c.value_loss_weight(), 0, 100);
  check_range("training.root_value_mix", c.root_value_mix(), 0, 1);
  check_range("training.window_min", c.window_min(), 1, 1e10);
  check_range("training.window_max", c.window_max(), double(c.window_min()), 1e10);
  check_range("training.window_fraction", c.window_fraction(), 0, 1);
  check_range("training.min_positions", c.min_positions(), 1, 1e9);
  check_range("training.max_samples_per_position", c.max_samples_per_position(), 0.01, 1000);
  check_range("training.min_samples_per_position", c.min_samples_per_position(), 0, double(c.max_samples_per_position()));
  check_range("training.checkpoint_every", c.checkpoint_every(), 1, 1e9);
  check_range("training.eval_every", c.eval_every(), 0, 1e9);
  check_range("training.eval_games", c.eval_games(), 0, 10000);
  check_range("training.eval_visits", c.eval_visits(), 1, 100000);
  check_range("training.max_steps", c.max_steps(), 0, 1e15);
  check_range("training.max_seconds", c.max_seconds(), 0, 1e12);
  check_range("training.threads", c.threads(), 0, 256);
  check_range("training.log_every", c.log_every(), 1, 1e9);
  check_range("training.material_loss_weight", c.material_loss_weight(), 0, 100);
  check_choice("training.capped_value_target", c.capped_value_target(), {"result", "root", "drop"});
  check_range("training.heldout_fraction", c.heldout_fraction(), 0, 0.5);
  check_range("training.stale_steps", c.stale_steps(), 0, 1e12);
  check_choice("training.precision", c.precision(), {"auto", "float32", "bfloat16"});
  const std::string& d = c.device();
  if (d != "cpu" && d != "auto" && d.rfind("cuda", 0) != 0)
    throw std::invalid_argument("training.device = \"" + clipped(d) + "\" is not cpu, cuda, cuda:N or auto");
}

}  // namespace xq::training
