// Loading configurations: text-format Protobuf (proto/config.proto). Parsing and validation
// are training/config_text.h's (errors name the line); this adds the embedded default and
// reading files.
#pragma once

#include <string>
#include <vector>

#include "config.pb.h"
#include "training/config_text.h"

namespace xq::app {

using training::ConfigError;
// Parses and validates `text`; `name` names the source in messages ("config 'F'").
using training::parse_config;
// Validates every section; throws std::invalid_argument naming the field.
using training::validate_config;

// The configuration compiled into the binary (configs/tiny.textproto): a tiny net that
// learns on two CPU cores.
const char* embedded_config_text();

using training::apply_setting;

// Reads a file (or, for an empty path, the embedded default), then applies the command
// line's `--set section.field=value` overrides in order, and validates the result.
xqzero::Config load_config(const std::string& path, const std::vector<std::string>& settings = {});

// What a command that evaluates one net (analyse, evalset) starts from: the configuration of
// --config and --set with --device over the evaluator's device, validated; and the model of
// --model, else the configuration's evaluator.weights, else the bundled net (nn/bundled_net.h),
// as a file path ("uniform" for no net, only when named).
struct ModelConfig {
  xqzero::Config config;
  std::string model;
};
class Args;
ModelConfig load_model_config(const Args& args);

}  // namespace xq::app
