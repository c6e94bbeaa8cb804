// Collects finished games and writes them to record files of `games_per_file` games in a
// directory, each file written atomically and created exclusively (records/record_io.h). File
// names are <prefix>-<sequence, 6 digits>.rec.gz; the sequence continues after the highest
// one already in the directory, and a name taken meanwhile (another writer with the same
// prefix) is skipped, so no writer ever overwrites a file.
#pragma once

#include <string>
#include <vector>

#include "game_record.pb.h"

namespace xq::records {

class RecordWriter {
 public:
  RecordWriter(std::string dir, std::string prefix, int games_per_file);
  ~RecordWriter();  // flushes (errors are reported on stderr)

  void add(xqzero::GameRecord&& game);
  // Writes the games held so far (if any) as one file.
  void flush();
  uint64_t files_written() const { return files_; }
  uint64_t games_written() const { return games_written_; }
  const std::string& last_file() const { return last_file_; }

 private:
  std::string dir_, prefix_;
  int games_per_file_;
  int next_sequence_ = 0;
  std::vector<xqzero::GameRecord> held_;
  uint64_t files_ = 0, games_written_ = 0;
  std::string last_file_;
};

// The record files of a directory (*.rec.gz), sorted by name.
std::vector<std::string> list_record_files(const std::string& dir);

}  // namespace xq::records
