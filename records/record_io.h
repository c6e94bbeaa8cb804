// Reading and writing game record files (proto/game_record.proto): gzip, length-delimited
// GameRecord messages, several games per file.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/game.h"
#include "game_record.pb.h"

namespace xq::records {

struct RecordFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `games` to `path` atomically (core/output_file.h: a private temporary name, flushed
// to disk, then renamed over `path`). Throws RecordFileError naming the file on failure.
void write_record_file(const std::string& path, const std::vector<xqzero::GameRecord>& games);

// The same for a new file: writes it only if no file `path` exists (not even one a
// concurrent writer creates meanwhile) and returns whether it did.
bool create_record_file(const std::string& path, const std::vector<xqzero::GameRecord>& games);

// Reads every game of `path`: every gzip member of it, in order (a file of concatenated
// record files holds all their games). Throws RecordFileError naming the file and what is
// wrong (missing, unreadable, not gzip, truncated, junk after the last gzip member with its
// byte offset, a corrupt or empty record, a record longer than 64 MiB).
std::vector<xqzero::GameRecord> read_record_file(const std::string& path);

// The judging settings a record was played under.
GameSettings record_settings(const xqzero::GameRecord& record);

}  // namespace xq::records
