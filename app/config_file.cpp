#include "app/config_file.h"

#include <sstream>

#include "core/errors.h"
#include "core/input_file.h"

namespace xq::app {

namespace {
// A config is a few KB of text; more is not a config (/dev/zero, a wrong file).
constexpr size_t kMaxConfigBytes = size_t(16) << 20;
}  // namespace

xqzero::Config load_config(const std::string& path) {
  if (path.empty()) return parse_config(embedded_config_text(), "embedded default config");
  std::string text;
  try {
    text = read_file(path, kMaxConfigBytes, "config");
  } catch (const FileError& e) {
    throw ConfigError(e.what());
  }
  return parse_config(text, "config '" + path + "'");
}

}  // namespace xq::app
