#include "records/record_writer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "records/record_io.h"

namespace fs = std::filesystem;

namespace xq::records {

namespace {
constexpr const char* kSuffix = ".rec.gz";
bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}
}  // namespace

std::vector<std::string> list_record_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && ends_with(e.path().filename().string(), kSuffix)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

RecordWriter::RecordWriter(std::string dir, std::string prefix, int games_per_file)
    : dir_(std::move(dir)), prefix_(std::move(prefix)), games_per_file_(std::max(1, games_per_file)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw RecordFileError("cannot create record directory '" + dir_ + "': " + ec.message());
  for (const std::string& f : list_record_files(dir_)) {
    const std::string name = fs::path(f).filename().string();
    if (name.rfind(prefix_ + "-", 0) != 0) continue;
    const std::string digits =
        name.substr(prefix_.size() + 1, name.size() - prefix_.size() - 1 - std::string(kSuffix).size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    next_sequence_ = std::max(next_sequence_, std::stoi(digits) + 1);
  }
}

RecordWriter::~RecordWriter() {
  try {
    flush();
  } catch (const std::exception& e) {
    std::cerr << "xqzero: " << e.what() << "\n";
  }
}

void RecordWriter::add(xqzero::GameRecord&& game) {
  held_.push_back(std::move(game));
  if (int(held_.size()) >= games_per_file_) flush();
}

void RecordWriter::flush() {
  if (held_.empty()) return;
  // Each file is created exclusively: a name another writer took since (a second process on
  // the same directory and prefix) is skipped, never overwritten.
  std::string path;
  for (;;) {
    char seq[16];
    std::snprintf(seq, sizeof seq, "%06d", next_sequence_++);
    path = (fs::path(dir_) / (prefix_ + "-" + seq + kSuffix)).string();
    if (create_record_file(path, held_)) break;
  }
  ++files_;
  games_written_ += held_.size();
  last_file_ = path;
  held_.clear();
}

}  // namespace xq::records
