#include "app/distributed_args.h"

namespace xq::app {

const std::vector<std::string>& distributed_option_names() {
  static const std::vector<std::string> names{"world-size", "rank", "master", "dist-timeout"};
  return names;
}

training::DistributedOptions distributed_options(const Args& args) {
  training::DistributedOptions d;
  try {
    training::read_distributed_environment(d);
    if (args.has("master")) training::parse_master(args.get("master"), d);
    if (args.has("world-size")) d.world_size = int(args.get_int("world-size", 1, 1, 1024));
    if (args.has("rank")) d.rank = int(args.get_int("rank", 0, 0, 1023));
    if (args.has("dist-timeout")) d.timeout_s = double(args.get_int("dist-timeout", 1800, 1, 86400));
    training::validate_distributed(d);
  } catch (const training::DistributedError& e) {
    throw UsageError(e.what());
  }
  return d;
}

}  // namespace xq::app
