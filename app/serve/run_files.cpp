#include "app/serve/run_files.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "app/serve/request_error.h"
#include "core/errors.h"

namespace xq::app::serve {

namespace fs = std::filesystem;

RunDirs::RunDirs(const std::vector<std::string>& dirs) {
  for (const std::string& d : dirs) {
    std::error_code ec;
    const fs::path root = fs::canonical(d, ec);
    if (ec || !fs::is_directory(root)) throw std::invalid_argument("run directory '" + d + "' does not exist");
    std::string base = root.filename().string();
    if (base.empty()) base = "run";
    std::string name = base;
    for (int n = 2; std::any_of(runs_.begin(), runs_.end(), [&](const RunDir& r) { return r.name == name; }); ++n)
      name = base + "-" + std::to_string(n);
    runs_.push_back(RunDir{name, root});
  }
}

const RunDir& RunDirs::find(const std::string& name) const {
  for (const RunDir& r : runs_)
    if (r.name == name) return r;
  throw RequestError(404, "run", "no served run is named '" + clipped(name) + "' (GET /api/runs lists them)");
}

bool is_inside(const fs::path& root, const fs::path& path) {
  auto r = root.begin(), p = path.begin();
  for (; r != root.end(); ++r, ++p)
    if (p == path.end() || *p != *r) return false;
  return true;
}

fs::path resolve_inside(const fs::path& root, const std::string& relative, const std::string& field) {
  if (relative.empty()) throw RequestError(400, field, "must name a file in the run directory");
  if (relative.find('\0') != std::string::npos) throw RequestError(400, field, "must not contain a NUL byte");
  const fs::path rel(relative);
  if (rel.is_absolute() || relative[0] == '/')
    throw RequestError(403, field, "'" + clipped(relative) + "' is absolute: paths are relative to the run directory");
  for (const fs::path& part : rel)
    if (part == "..")
      throw RequestError(403, field,
                         "'" + clipped(relative) + "' has a '..' component: it would leave the run directory");
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(root / rel, ec);
  if (ec) throw RequestError(404, field, "'" + clipped(relative) + "' cannot be resolved: " + ec.message());
  if (!is_inside(root, resolved))
    throw RequestError(403, field, "'" + clipped(relative) + "' resolves outside the run directory (a symlink out?)");
  if (!fs::exists(resolved, ec)) throw RequestError(404, field, "'" + clipped(relative) + "' does not exist");
  return resolved;
}

}  // namespace xq::app::serve
