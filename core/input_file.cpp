#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.h"

namespace xq {

namespace {

// Longer paths cannot name a file (PATH_MAX); such input is clipped like any other echo.
constexpr size_t kMaxPathChars = 4096;

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::string file_message(const std::string& what, const std::string& path, const std::string& why) {
  return what + " '" + clipped(path, kMaxPathChars) + "': " + why;
}

std::string byte_size_text(uint64_t bytes) {
  constexpr uint64_t kMiB = uint64_t(1) << 20;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

InputFile::InputFile(std::string path, std::string what) : path_(std::move(path)), what_(std::move(what)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw FileError(file_message(what_, path_, "cannot open (" + errno_text() + ")"));
}

InputFile::~InputFile() { ::close(fd_); }

size_t InputFile::read_some(char* buf, size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, buf, n);
    if (got >= 0) return size_t(got);
    if (errno != EINTR) throw FileError(file_message(what_, path_, "cannot read (" + errno_text() + ")"));
  }
}

std::string read_file(const std::string& path, size_t max_bytes, const std::string& what) {
  InputFile in(path, what);
  std::string data;
  char buf[1 << 16];
  for (size_t got; (got = in.read_some(buf, sizeof buf)) > 0;) {
    if (got > max_bytes - data.size())
      throw FileError(file_message(what, path, "larger than the limit of " + byte_size_text(max_bytes)));
    data.append(buf, got);
  }
  return data;
}

void expect_regular_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw FileError(file_message(what, path, "cannot open (" + errno_text() + ")"));
  if (S_ISDIR(st.st_mode)) throw FileError(file_message(what, path, "is a directory"));
  if (!S_ISREG(st.st_mode)) throw FileError(file_message(what, path, "is not a regular file"));
}

}  // namespace xq
