#include "core/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/input_file.h"

namespace xq {

namespace {

std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, std::string_view data, const std::string& tmp, const std::string& what) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileError(file_message(what, tmp, "cannot write: " + errno_text()));
    data.remove_prefix(size_t(n));
  }
}

// fsync of the directory holding `path`, so that a rename into it is durable (best effort).
void sync_directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

// Writes `parts` to the new file `tmp` (created exclusively) and syncs it; on failure `tmp`
// is removed and FileError names it.
void write_synced(const std::string& tmp, const std::vector<std::string_view>& parts, const std::string& what) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw FileError(file_message(what, tmp, "cannot create: " + errno_text()));
  try {
    for (std::string_view part : parts) write_all(fd, part, tmp, what);
    if (::fsync(fd) != 0) throw FileError(file_message(what, tmp, "cannot fsync: " + errno_text()));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw FileError(file_message(what, tmp, "cannot close: " + why));
  }
}

// A temporary name beside `path` that no other writer (thread or process) uses.
std::string private_tmp_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
}

}  // namespace

void replace_file(const std::string& path, const std::vector<std::string_view>& parts, const std::string& what) {
  const std::string tmp = private_tmp_name(path);
  write_synced(tmp, parts, what);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw FileError(file_message(what, path, "cannot rename " + tmp + " over it: " + why));
  }
  sync_directory_of(path);
}

bool create_file(const std::string& path, const std::vector<std::string_view>& parts, const std::string& what) {
  const std::string tmp = private_tmp_name(path);
  write_synced(tmp, parts, what);
  // link() fails when `path` exists: the file appears whole, and never over another one.
  const bool created = ::link(tmp.c_str(), path.c_str()) == 0;
  const int link_errno = errno;
  ::unlink(tmp.c_str());
  if (!created && link_errno != EEXIST)
    throw FileError(file_message(what, path, std::string("cannot create: ") + std::strerror(link_errno)));
  if (created) sync_directory_of(path);
  return created;
}

}  // namespace xq
