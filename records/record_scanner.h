// Finds new record files in a directory and reads them, skipping (with a warning naming
// the file) any that is corrupt or truncated; a reader never stops for one.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "game_record.pb.h"

namespace xq::records {

class RecordScanner {
 public:
  using Warn = std::function<void(const std::string&)>;
  // Receives each new readable file's games, with the file's path (for the caller's own
  // warnings about games it cannot use).
  using Use = std::function<void(const std::string& path, std::vector<xqzero::GameRecord>&& games)>;
  // Which new files to read, by file name (the others are passed over for good).
  using Accept = std::function<bool(const std::string& file_name)>;

  explicit RecordScanner(std::string dir) : dir_(std::move(dir)) {}
  // The files not read before, in file-name order: gives `use` each readable file's games;
  // an unreadable file is skipped whole with one line to `warn` naming it. Each file is read
  // once and not retried. Files appear while others are written (several writers, e.g.
  // self-play workers on a shared run directory): a file is found by name whatever its place
  // in the order, since a record file becomes visible only once complete (written to a
  // temporary name and renamed).
  void scan_new(const Warn& warn, const Use& use, const Accept& accept = Accept());

 private:
  std::string dir_;
  std::set<std::string> seen_;
};

}  // namespace xq::records
