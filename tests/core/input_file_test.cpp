// The helpers every reader uses: clipping echoed input, and reading files with a bound and
// with errors that name the file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/input_file.h"

namespace fs = std::filesystem;

namespace xq {
namespace {

// The message of the FileError that `f` throws ("" when it throws none).
template <typename F>
std::string file_error_of(F f) {
  try {
    f();
  } catch (const FileError& e) {
    return e.what();
  }
  return "";
}

fs::path temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("xqzero_input_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(Clipped, ShortTextIsWholeAndLongTextIsCut) {
  EXPECT_EQ(clipped("h2e2"), "h2e2");
  EXPECT_EQ(clipped(std::string(kEchoChars, 'x')), std::string(kEchoChars, 'x'));
  EXPECT_EQ(clipped(std::string(100000, 'x')), std::string(kEchoChars, 'x') + "...");
  EXPECT_EQ(clipped("abcdef", 3), "abc...");
}

TEST(Clipped, NeverSplitsAUtf8Character) {
  std::string chinese;
  for (int i = 0; i < 100; ++i) chinese += "炮";  // three bytes each
  const std::string c = clipped(chinese, 80);
  EXPECT_EQ(c, chinese.substr(0, 78) + "...");  // 26 whole characters
}

TEST(InputFile, ReadsAWholeFileUpToTheLimit) {
  const fs::path dir = temp_dir("read");
  const std::string path = (dir / "a.txt").string();
  std::ofstream(path) << "hello";
  EXPECT_EQ(read_file(path, 5, "config"), "hello");
  EXPECT_EQ(file_error_of([&] { read_file(path, 4, "config"); }),
            "config '" + path + "': larger than the limit of 4 bytes");
  fs::remove_all(dir);
}

TEST(InputFile, ErrorsNameTheFile) {
  const fs::path dir = temp_dir("errors");
  const std::string d = dir.string();
  EXPECT_EQ(file_error_of([&] { read_file(d, 1024, "config"); }), "config '" + d + "': cannot read (Is a directory)");
  const std::string missing = d + "/missing.txt";
  EXPECT_EQ(file_error_of([&] { read_file(missing, 1024, "config"); }),
            "config '" + missing + "': cannot open (No such file or directory)");
  EXPECT_EQ(file_error_of([&] { expect_regular_file(d, "checkpoint"); }), "checkpoint '" + d + "': is a directory");
  EXPECT_EQ(file_error_of([&] { expect_regular_file("/dev/null", "checkpoint"); }),
            "checkpoint '/dev/null': is not a regular file");
  EXPECT_NE(file_error_of([&] { expect_regular_file(missing, "checkpoint"); }).find(missing), std::string::npos);
  std::ofstream(d + "/ok") << "x";
  EXPECT_EQ(file_error_of([&] { expect_regular_file(d + "/ok", "checkpoint"); }), "");
  fs::remove_all(dir);
}

TEST(InputFile, EndlessInputStopsAtTheLimit) {
  EXPECT_EQ(file_error_of([] { read_file("/dev/zero", size_t(1) << 20, "config"); }),
            "config '/dev/zero': larger than the limit of 1 MiB");
}

TEST(InputFile, AHugePathIsClippedInMessages) {
  const std::string path(100000, 'p');
  const std::string e = file_error_of([&] { read_file(path, 1024, "config"); });
  EXPECT_LT(e.size(), 4200u);
  EXPECT_NE(e.find("...': cannot open"), std::string::npos) << e.substr(e.size() - 100);
}

TEST(InputFile, ByteSizeText) {
  EXPECT_EQ(byte_size_text(16u << 20), "16 MiB");
  EXPECT_EQ(byte_size_text(1000), "1000 bytes");
}

}  // namespace
}  // namespace xq
