// Reading input files with a bound and with every failure naming the file: a directory, an
// unreadable file or /dev/zero given where a file is expected ends in one clear error
// instead of an unnamed stream error, an empty read or a read that never ends.
//
// Messages have the form "<what> '<path>': <why>", where `what` names the kind of file for
// the user ("config", "record file", "checkpoint").
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace xq {

struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "<what> '<path>': <why>" (a path longer than any that can name a file is clipped).
std::string file_message(const std::string& what, const std::string& path, const std::string& why);

// A byte count for messages: "16 MiB" when it is a whole number of MiB, else "N bytes".
std::string byte_size_text(uint64_t bytes);

// A file opened for reading. Throws FileError naming the file when it cannot be opened or
// read (a directory fails at the first read, "Is a directory").
class InputFile {
 public:
  InputFile(std::string path, std::string what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Reads up to `n` bytes into `buf`; returns 0 at the end of the file (and for n == 0).
  size_t read_some(char* buf, size_t n);
  const std::string& path() const { return path_; }
  const std::string& what() const { return what_; }

 private:
  std::string path_, what_;
  int fd_ = -1;
};

// The whole of a file of at most `max_bytes` bytes. Throws FileError naming the file and the
// limit when it holds more (it stops reading there: /dev/zero ends at the limit).
std::string read_file(const std::string& path, size_t max_bytes, const std::string& what);

// Throws FileError naming the file unless `path` is a regular file: "is a directory", "is not
// a regular file", or why it cannot be looked at ("No such file or directory"). For callers of
// readers that would otherwise fail without naming the file (a checkpoint that is a directory
// gives "basic_filebuf::underflow ... Is a directory") or never finish (/dev/zero).
void expect_regular_file(const std::string& path, const std::string& what);

}  // namespace xq
