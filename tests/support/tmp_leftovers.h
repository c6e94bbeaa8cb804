// Whether a writer left a temporary file beside `path` (core/output_file.h names them
// "<path>.tmp.<pid>.<n>"; older writers used "<path>.tmp").
#pragma once

#include <filesystem>
#include <string>

namespace xq::test {

inline bool tmp_leftovers(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string prefix = p.filename().string() + ".tmp";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(p.parent_path().empty() ? fs::path(".") : p.parent_path(), ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace xq::test
