#include "training/record_scanner.h"

#include "selfplay/record_io.h"
#include "selfplay/record_writer.h"

namespace xq::training {

std::vector<xqzero::GameRecord> RecordScanner::read_new(const std::function<void(const std::string&)>& warn) {
  std::vector<xqzero::GameRecord> games;
  for (const std::string& path : selfplay::list_record_files(dir_)) {
    if (!seen_.insert(path).second) continue;
    try {
      for (auto& g : selfplay::read_record_file(path)) games.push_back(std::move(g));
    } catch (const std::exception& e) {
      warn(std::string("skipping ") + e.what());
    }
  }
  return games;
}

}  // namespace xq::training
