#include "records/record_scanner.h"

#include "records/record_io.h"
#include "records/record_writer.h"

namespace xq::records {

void RecordScanner::scan_new(const Warn& warn, const Use& use, const Accept& accept) {
  for (const std::string& path : list_record_files(dir_)) {
    if (!seen_.insert(path).second) continue;
    if (accept && !accept(path.substr(path.find_last_of('/') + 1))) continue;
    std::vector<xqzero::GameRecord> file_games;
    try {
      file_games = read_record_file(path);
    } catch (const std::exception& e) {
      warn(std::string("skipping ") + e.what());
      continue;
    }
    use(path, std::move(file_games));
  }
}

}  // namespace xq::records
