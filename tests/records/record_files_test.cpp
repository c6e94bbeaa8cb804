// Record files: the round trip, concatenated and damaged files, and the writer's sequence.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include "tests/support/tmp_leftovers.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/movegen.h"
#include "core/position.h"
#include "records/record_io.h"
#include "records/record_writer.h"

namespace fs = std::filesystem;

namespace xq::records {
namespace {

std::string temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("xqzero_records_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

// Games of random legal moves, with policy targets and values on every other move.
std::vector<xqzero::GameRecord> sample_games(int n) {
  std::mt19937_64 rng(uint64_t(n) * 7919 + 1);
  std::vector<xqzero::GameRecord> games;
  for (int g = 0; g < n; ++g) {
    xqzero::GameRecord rec;
    rec.set_start_fen(Position::kStartFen);
    Position pos;
    const int plies = 10 + int(rng() % 30);
    for (int ply = 0; ply < plies; ++ply) {
      const MoveList legal(pos);
      if (legal.empty()) break;
      const Move m = legal[size_t(rng() % legal.size())];
      xqzero::MoveRecord* mr = rec.add_moves();
      mr->set_move(move_to_iccs(m));
      if (ply % 2 == 0) {
        mr->set_training_target(true);
        mr->add_policy_label(uint32_t(rng() % 2062));
        mr->add_policy_weight(1.0f);
        mr->set_root_value(float(int(rng() % 200) - 100) / 100.0f);
      }
      UndoInfo undo;
      pos.do_move(m, undo);
    }
    rec.set_result("1/2-1/2");
    rec.set_seed(rng());
    games.push_back(rec);
  }
  return games;
}

TEST(RecordFiles, RoundTripAndErrors) {
  const std::string dir = temp_dir("records");
  const auto games = sample_games(5);
  const std::string path = dir + "/a.rec.gz";
  write_record_file(path, games);
  EXPECT_FALSE(::xq::test::tmp_leftovers(path));
  const auto back = read_record_file(path);
  ASSERT_EQ(back.size(), games.size());
  for (size_t i = 0; i < games.size(); ++i) EXPECT_EQ(back[i].SerializeAsString(), games[i].SerializeAsString());

  auto expect_error = [](const std::string& p, const std::string& needle) {
    try {
      read_record_file(p);
      ADD_FAILURE() << "read " << p;
    } catch (const RecordFileError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  };
  // Truncated: cut the file at several points.
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t cut : {data.size() / 3, data.size() / 2, data.size() - 5}) {
    std::ofstream(dir + "/cut.rec.gz", std::ios::binary).write(data.data(), std::streamsize(cut));
    expect_error(dir + "/cut.rec.gz", "truncated");
  }
  std::ofstream(dir + "/junk.rec.gz") << "this is not a record file";
  expect_error(dir + "/junk.rec.gz", "not a gzip file");
  expect_error(dir + "/missing.rec.gz", "cannot open");
  fs::remove_all(dir);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Writes `raw` as one gzip member, as any gzip tool would.
void write_gzip(const std::string& path, const std::string& raw) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, raw.data(), unsigned(raw.size())), int(raw.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

// The message of the RecordFileError that reading `path` throws ("" when it reads).
std::string read_error(const std::string& path) {
  try {
    read_record_file(path);
  } catch (const RecordFileError& e) {
    return e.what();
  }
  return "";
}

// `cat a.rec.gz b.rec.gz > ab.rec.gz` holds the games of both (gzip members in sequence).
TEST(RecordFiles, ConcatenatedFilesGiveEveryGame) {
  const std::string dir = temp_dir("concat");
  const auto games = sample_games(5);
  write_record_file(dir + "/a.rec.gz", std::vector<xqzero::GameRecord>(games.begin(), games.begin() + 3));
  write_record_file(dir + "/b.rec.gz", std::vector<xqzero::GameRecord>(games.begin() + 3, games.end()));
  std::ofstream(dir + "/ab.rec.gz", std::ios::binary) << slurp(dir + "/a.rec.gz") << slurp(dir + "/b.rec.gz");
  const auto back = read_record_file(dir + "/ab.rec.gz");
  ASSERT_EQ(back.size(), games.size());
  for (size_t i = 0; i < games.size(); ++i) EXPECT_EQ(back[i].SerializeAsString(), games[i].SerializeAsString());
  fs::remove_all(dir);
}

// Bytes after the last gzip member are reported with the file and their offset, not ignored.
TEST(RecordFiles, JunkAfterTheLastMemberIsAnError) {
  const std::string dir = temp_dir("junk");
  write_record_file(dir + "/a.rec.gz", sample_games(2));
  const std::string a = slurp(dir + "/a.rec.gz");
  const std::string path = dir + "/junk.rec.gz";
  std::ofstream(path, std::ios::binary) << a << a << "trailing junk";
  const std::string e = read_error(path);
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("junk after gzip member 2 at byte offset " + std::to_string(2 * a.size())), std::string::npos) << e;
  fs::remove_all(dir);
}

// 100,000 empty records (a 129-byte file) are one error, at the first of them.
TEST(RecordFiles, EmptyRecordsStopAtTheFirst) {
  const std::string dir = temp_dir("empty");
  const std::string path = dir + "/empty.rec.gz";
  write_gzip(path, std::string(100000, '\0'));
  EXPECT_NE(read_error(path).find("game record 1 is empty"), std::string::npos) << read_error(path);
  fs::remove_all(dir);
}

// A record that says it is longer than 64 MiB is refused before anything is allocated for it.
TEST(RecordFiles, RecordLengthIsBounded) {
  const std::string dir = temp_dir("huge");
  const std::string path = dir + "/huge.rec.gz";
  write_gzip(path, std::string("\x80\x80\x80\x80\x04", 5));  // varint 2^30
  const std::string e = read_error(path);
  EXPECT_NE(e.find("game record 1 says it has 1073741824 bytes, more than the limit of 64 MiB"), std::string::npos)
      << e;
  EXPECT_NE(e.find(path), std::string::npos) << e;
  fs::remove_all(dir);
}

// A directory or a device where a record file is expected: an error naming it, at once.
TEST(RecordFiles, DirectoriesAndDevicesNameTheFile) {
  const std::string dir = temp_dir("notfile");
  EXPECT_EQ(read_error(dir), "record file '" + dir + "': cannot read (Is a directory)");
  EXPECT_EQ(read_error("/dev/zero"), "record file '/dev/zero': not a gzip file");
  EXPECT_EQ(read_error("/dev/null"), "record file '/dev/null': not a gzip file (it is empty)");
  fs::remove_all(dir);
}

TEST(RecordFiles, WriterContinuesTheSequence) {
  const std::string dir = temp_dir("writer");
  const auto games = sample_games(3);
  {
    RecordWriter w(dir, "sp", 2);
    for (auto g : games) w.add(std::move(g));
  }  // 2 + 1 games: two files
  EXPECT_EQ(list_record_files(dir).size(), 2u);
  {
    RecordWriter w(dir, "sp", 2);
    auto g = games[0];
    w.add(std::move(g));
    w.flush();
    EXPECT_EQ(fs::path(w.last_file()).filename().string(), "sp-000002.rec.gz");
  }
  const auto files = list_record_files(dir);
  ASSERT_EQ(files.size(), 3u);
  size_t total = 0;
  for (const auto& f : files) total += read_record_file(f).size();
  EXPECT_EQ(total, 4u);
  fs::remove_all(dir);
}

// Two writers on one directory and prefix (two `xqzero selfplay --out DIR` started together)
// both start at the same sequence number: neither overwrites a file of the other, every game
// of both is in some file.
TEST(RecordFiles, WritersNeverOverwriteEachOther) {
  const std::string dir = temp_dir("two_writers");
  const auto games = sample_games(4);
  {
    RecordWriter a(dir, "sp", 1), b(dir, "sp", 1);  // both see an empty directory
    for (int i = 0; i < 4; ++i) {
      auto ga = games[size_t(i)], gb = games[size_t(i)];
      a.add(std::move(ga));
      b.add(std::move(gb));
    }
    EXPECT_EQ(a.files_written() + b.files_written(), 8u);
  }
  const auto files = list_record_files(dir);
  EXPECT_EQ(files.size(), 8u);
  size_t total = 0;
  for (const auto& f : files) total += read_record_file(f).size();
  EXPECT_EQ(total, 8u);
  fs::remove_all(dir);
}

TEST(RecordFiles, CreateRefusesAnExistingFile) {
  const std::string dir = temp_dir("create");
  const auto games = sample_games(2);
  const std::string path = dir + "/x.rec.gz";
  EXPECT_TRUE(create_record_file(path, {games[0]}));
  EXPECT_FALSE(create_record_file(path, games));
  const auto back = read_record_file(path);
  ASSERT_EQ(back.size(), 1u) << "the first file is kept whole";
  EXPECT_EQ(back[0].SerializeAsString(), games[0].SerializeAsString());
  EXPECT_FALSE(::xq::test::tmp_leftovers(path));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace xq::records
