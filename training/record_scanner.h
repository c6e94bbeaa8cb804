// Finds new record files in a directory and reads them, skipping (with a warning naming
// the file) any that is corrupt or truncated; the run never stops for one.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "game_record.pb.h"
#include "training/training_position.h"

namespace xq::training {

class RecordScanner {
 public:
  using Warn = std::function<void(const std::string&)>;
  // Receives each usable game with its training positions (positions_of of it).
  using Use = std::function<void(xqzero::GameRecord&& game, std::vector<TrainingPosition>&& positions)>;
  // Which new files to read, by file name (the others are passed over for good).
  using Accept = std::function<bool(const std::string& file_name)>;

  explicit RecordScanner(std::string dir) : dir_(std::move(dir)) {}
  // The files not read before, in file-name order: gives `use` each game that training can
  // use (positions_of accepts it), with its positions. `warn` receives at most one line per
  // file: an unreadable file is skipped whole; a readable one with unusable games gives its
  // other games and one line naming the file, how many games were skipped and the first
  // one's problem. Each file is read once and not retried. Files appear while others are
  // written (several writers, e.g. self-play workers on a shared run directory): a file is
  // found by name whatever its place in the order, since a record file becomes visible only
  // once complete (written to a temporary name and renamed).
  void scan_new(const Warn& warn, const Use& use, const Accept& accept = Accept());

 private:
  std::string dir_;
  std::set<std::string> seen_;
};

}  // namespace xq::training
