// The run directories `xqzero serve --run-dir` serves (training/train_loop.h gives their
// layout) and the only way the server reaches their files: a path relative to one of them,
// refused (RequestError 403) when it is absolute, has a ".." component, or resolves (through
// symlinks) outside the run directory; 404 when it does not exist.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace xq::app::serve {

struct RunDir {
  std::string name;            // unique among the served runs: the directory's name, "-2"... on clashes
  std::filesystem::path root;  // canonical (symlinks resolved)
};

class RunDirs {
 public:
  // Throws std::invalid_argument naming a directory that does not exist.
  explicit RunDirs(const std::vector<std::string>& dirs);
  const std::vector<RunDir>& runs() const { return runs_; }
  // RequestError 404 naming the run when no served run has that name.
  const RunDir& find(const std::string& name) const;

 private:
  std::vector<RunDir> runs_;
};

// `relative` inside `root` (canonical), resolved; see the header comment for what is refused.
// `field` names the request field in errors.
std::filesystem::path resolve_inside(const std::filesystem::path& root, const std::string& relative,
                                     const std::string& field);

// Whether `path` (canonical) is `root` or below it.
bool is_inside(const std::filesystem::path& root, const std::filesystem::path& path);

}  // namespace xq::app::serve
