#include "training/record_scanner.h"

#include "core/input_file.h"
#include "selfplay/record_io.h"
#include "selfplay/record_writer.h"
#include "training/training_position.h"

namespace xq::training {

namespace {

// Why training cannot use `game` ("" when it can).
std::string unusable_reason(const xqzero::GameRecord& game) {
  try {
    positions_of(game);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

// Moves the usable games of `file_games` (read from `path`) to `games`; one warning for
// all the others.
void keep_usable(const std::string& path, std::vector<xqzero::GameRecord>& file_games,
                 std::vector<xqzero::GameRecord>& games, const std::function<void(const std::string&)>& warn) {
  size_t skipped = 0;
  std::string first_problem;
  for (size_t i = 0; i < file_games.size(); ++i) {
    const std::string why = unusable_reason(file_games[i]);
    if (why.empty()) {
      games.push_back(std::move(file_games[i]));
    } else if (skipped++ == 0) {
      first_problem = "game " + std::to_string(i + 1) + ": " + why;
    }
  }
  if (skipped > 0)
    warn(file_message("record file", path,
                      "skipping " + std::to_string(skipped) + " of " + std::to_string(file_games.size()) +
                          " games that training cannot use (first, " + first_problem + ")"));
}

}  // namespace

std::vector<xqzero::GameRecord> RecordScanner::read_new(const std::function<void(const std::string&)>& warn) {
  std::vector<xqzero::GameRecord> games;
  for (const std::string& path : selfplay::list_record_files(dir_)) {
    if (!seen_.insert(path).second) continue;
    std::vector<xqzero::GameRecord> file_games;
    try {
      file_games = selfplay::read_record_file(path);
    } catch (const std::exception& e) {
      warn(std::string("skipping ") + e.what());
      continue;
    }
    keep_usable(path, file_games, games, warn);
  }
  return games;
}

}  // namespace xq::training
