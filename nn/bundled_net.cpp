#include "nn/bundled_net.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "util/text.h"

namespace xq::nn {

namespace fs = std::filesystem;

namespace {

// The folder of the running binary ("" when /proc/self/exe cannot be read).
fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace

bool is_bundled_weights(const std::string& weights) {
  const std::string w = to_lower(weights);
  return w.empty() || w == "bundled" || w == "<bundled>" || w == "net";
}

std::vector<std::string> bundled_net_candidates() {
  std::vector<std::string> places;
  const fs::path dir = executable_dir();
  if (!dir.empty()) {
    places.push_back((dir / "nets" / kBundledNetFile).string());
    places.push_back((dir.parent_path() / "share" / "xqzero" / "nets" / kBundledNetFile).string());
  }
#ifdef XQZERO_SOURCE_NETS_DIR
  places.push_back((fs::path(XQZERO_SOURCE_NETS_DIR) / kBundledNetFile).string());
#endif
  return places;
}

std::string bundled_net_path() {
  const std::vector<std::string> places = bundled_net_candidates();
  std::string looked;
  for (const std::string& p : places) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p;
    looked += (looked.empty() ? "" : ", ") + p;
  }
  throw std::runtime_error(std::string("the bundled net ") + kBundledNetFile + " is not installed (looked at " +
                           (looked.empty() ? std::string("nowhere: /proc/self/exe is unreadable") : looked) +
                           "); name a checkpoint, or 'uniform' for no net");
}

std::string resolve_weights(const std::string& weights) {
  return is_bundled_weights(weights) ? bundled_net_path() : weights;
}

}  // namespace xq::nn
