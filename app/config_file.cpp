#include "app/config_file.h"

#include <fstream>
#include <sstream>

namespace xq::app {

xqzero::Config load_config(const std::string& path) {
  if (path.empty()) return parse_config(embedded_config_text(), "embedded default config");
  std::ifstream in(path);
  if (!in) throw ConfigError("config '" + path + "': cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), "config '" + path + "'");
}

}  // namespace xq::app
