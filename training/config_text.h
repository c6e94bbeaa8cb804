// Text-format configurations (proto/config.proto): parsing and validating every section.
// Syntax errors and unknown fields are reported with their line; out-of-range values too,
// when the line of the offending field is known. The command-line tools read files through
// app/config_file.h; the train loop reads a run directory's config.textproto with this.
#pragma once

#include <stdexcept>
#include <string>

#include "config.pb.h"

namespace xq::training {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses and validates `text`; `name` names the source in messages ("config 'F'"). Throws
// ConfigError, one line: "NAME: line L column C: what" or "NAME: line L: field = v is out of range".
xqzero::Config parse_config(const std::string& text, const std::string& name);

// Applies one command-line override, "section.field=value" (`--set`, e.g.
// "search.c_puct_init=2" or "evaluator.device=cuda": strings need no quotes), to `config`;
// throws ConfigError naming the override when the path is no scalar field or the value does
// not parse as its type. Ranges are checked by validate_config afterwards.
void apply_setting(xqzero::Config& config, const std::string& setting);

// Validates every section (nn/net_config.h, selfplay/selfplay_config.h,
// training/training_config.h); throws std::invalid_argument naming the field.
void validate_config(const xqzero::Config& config);

}  // namespace xq::training
