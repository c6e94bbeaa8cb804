#include "training/record_scanner.h"

#include "core/input_file.h"
#include "selfplay/record_io.h"
#include "selfplay/record_writer.h"

namespace xq::training {

namespace {

// Gives `use` the usable games of `file_games` (read from `path`); one warning for all the
// others.
void use_usable(const std::string& path, std::vector<xqzero::GameRecord>& file_games, const RecordScanner::Warn& warn,
                const RecordScanner::Use& use) {
  size_t skipped = 0;
  std::string first_problem;
  for (size_t i = 0; i < file_games.size(); ++i) {
    std::vector<TrainingPosition> positions;
    try {
      positions = positions_of(file_games[i]);
    } catch (const std::exception& e) {
      if (skipped++ == 0) first_problem = "game " + std::to_string(i + 1) + ": " + e.what();
      continue;
    }
    use(std::move(file_games[i]), std::move(positions));
  }
  if (skipped > 0)
    warn(file_message("record file", path,
                      "skipping " + std::to_string(skipped) + " of " + std::to_string(file_games.size()) +
                          " games that training cannot use (first, " + first_problem + ")"));
}

}  // namespace

void RecordScanner::scan_new(const Warn& warn, const Use& use, const Accept& accept) {
  for (const std::string& path : selfplay::list_record_files(dir_)) {
    if (!seen_.insert(path).second) continue;
    if (accept && !accept(path.substr(path.find_last_of('/') + 1))) continue;
    std::vector<xqzero::GameRecord> file_games;
    try {
      file_games = selfplay::read_record_file(path);
    } catch (const std::exception& e) {
      warn(std::string("skipping ") + e.what());
      continue;
    }
    use_usable(path, file_games, warn, use);
  }
}

}  // namespace xq::training
