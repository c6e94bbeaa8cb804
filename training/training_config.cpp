#include "training/training_config.h"

#include <stdexcept>

#include "core/errors.h"
#include "proto/config_check.h"

namespace xq::training {

// The ranges and choices are beside each field in proto/config.proto; here only what relates
// two fields, and the device's form.
void validate(const xqzero::TrainingConfig& c) {
  config::check_fields(c, "training");
  config::check_range("training.window_max", c.window_max(), double(c.window_min()), 1e10);
  config::check_range("training.min_samples_per_position", c.min_samples_per_position(), 0,
                      double(c.max_samples_per_position()));
  const std::string& d = c.device();
  if (d != "cpu" && d != "auto" && d.rfind("cuda", 0) != 0)
    throw std::invalid_argument("training.device = \"" + clipped(d) + "\" is not cpu, cuda, cuda:N or auto");
}

}  // namespace xq::training
