#include "app/config_file.h"

#include <sstream>

#include "app/args.h"
#include "core/errors.h"
#include "core/input_file.h"
#include "nn/bundled_net.h"
#include "nn/evaluator_factory.h"

namespace xq::app {

namespace {
// A config is a few KB of text; more is not a config (/dev/zero, a wrong file).
constexpr size_t kMaxConfigBytes = size_t(16) << 20;
}  // namespace

xqzero::Config load_config(const std::string& path, const std::vector<std::string>& settings) {
  xqzero::Config config;
  if (path.empty()) {
    config = parse_config(embedded_config_text(), "embedded default config");
  } else {
    std::string text;
    try {
      text = read_file(path, kMaxConfigBytes, "config");
    } catch (const FileError& e) {
      throw ConfigError(e.what());
    }
    config = parse_config(text, "config '" + path + "'");
  }
  if (settings.empty()) return config;
  for (const std::string& s : settings) apply_setting(config, s);
  try {
    validate_config(config);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string("after --set: ") + e.what());
  }
  return config;
}

ModelConfig load_model_config(const Args& args) {
  ModelConfig m;
  m.config = load_config(args.get("config"), args.get_all("set"));
  if (args.has("device")) m.config.mutable_evaluator()->set_device(args.get("device"));
  validate_config(m.config);
  m.model = args.has("model") ? args.get("model") : m.config.evaluator().weights();
  if (m.model.empty()) m.model = "bundled";  // the net that ships with xqzero (nn/bundled_net.h)
  // A model that cannot be loaded is an error when the evaluator is built, never uniform.
  if (!nn::is_uniform_weights(m.model)) m.model = nn::resolve_weights(m.model);
  return m;
}

}  // namespace xq::app
