// Loading configurations: text-format Protobuf (proto/config.proto). Syntax errors and
// unknown fields are reported with their line; out-of-range values too, when the line of
// the offending field is known.
#pragma once

#include <stdexcept>
#include <string>

#include "config.pb.h"

namespace xq::app {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The configuration compiled into the binary (configs/tiny.textproto): a tiny net that
// learns on two CPU cores.
const char* embedded_config_text();

// Parses and validates `text`; `name` names the source in messages ("config 'F'").
xqzero::Config parse_config(const std::string& text, const std::string& name);
// Reads a file (or, for an empty path, the embedded default).
xqzero::Config load_config(const std::string& path);
// Validates every section (nn/net_config.h, selfplay/selfplay_config.h,
// training/training_config.h); throws
// std::invalid_argument naming the field.
void validate_config(const xqzero::Config& config);

}  // namespace xq::app
