// Finds new record files in a directory and reads them, skipping (with a warning naming
// the file) any that is corrupt or truncated; the run never stops for one.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "game_record.pb.h"

namespace xq::training {

class RecordScanner {
 public:
  explicit RecordScanner(std::string dir) : dir_(std::move(dir)) {}
  // Games of the files not read before, in file-name order, each one that training can use
  // (positions_of accepts it). `warn` receives at most one line per file: an unreadable file
  // is skipped whole; a readable one with unusable games gives its other games and one line
  // naming the file, how many games were skipped and the first one's problem. Each file is
  // read once and not retried.
  std::vector<xqzero::GameRecord> read_new(const std::function<void(const std::string&)>& warn);
  size_t files_read() const { return seen_.size(); }

 private:
  std::string dir_;
  std::set<std::string> seen_;
};

}  // namespace xq::training
