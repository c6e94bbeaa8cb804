#include "training/run_dir.h"

#include "core/input_file.h"
#include "core/output_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace xq::training {

namespace {

std::string errno_text() { return std::strerror(errno); }

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace

std::string prepare_run_dir(const std::string& path) {
  if (path.empty()) return "the path is empty";
  std::error_code ec;
  const fs::path p(path);
  if (fs::exists(p, ec) && !fs::is_directory(p, ec)) return "'" + path + "' is not a directory";
  fs::create_directories(p, ec);
  if (ec) return "cannot create '" + path + "': " + ec.message();
  if (::access(path.c_str(), W_OK | X_OK) != 0) return "'" + path + "' is not writable: " + errno_text();
  return "";
}

RunDirLock::RunDirLock(const std::string& run_dir, const std::string& lock_name, const std::string& what) {
  const std::string path = (fs::path(run_dir) / lock_name).string();
  const std::string subject = what.empty() ? "run directory '" + run_dir + "'" : what;
  // O_CLOEXEC: a child process (an engine started for evaluation) must not keep the lock.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw RunDirError(subject + ": cannot open " + path + ": " + errno_text());
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;
    char buf[256] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    fd_ = -1;
    if (why != EWOULDBLOCK) throw RunDirError(subject + ": cannot lock " + path + ": " + std::strerror(why));
    const std::string holder = n > 0 ? trim(std::string(buf, size_t(n))) : "";
    throw RunDirError(subject + " is in use by " + (holder.empty() ? std::string("another process") : holder) +
                      " (lock file " + path + ")");
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
  const std::string holder = "pid " + std::to_string(::getpid()) + " on host " + host + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, holder.data(), holder.size(), 0) != ssize_t(holder.size())) {
    const std::string why = errno_text();
    ::close(fd_);
    fd_ = -1;
    throw RunDirError(subject + ": cannot write " + path + ": " + why);
  }
}

RunDirLock::~RunDirLock() {
  if (fd_ < 0) return;
  // Emptied while still held, so no other process reads a stale holder from a free lock.
  if (::ftruncate(fd_, 0) != 0) {
  }
  ::close(fd_);
}

std::string checkpoint_name(int64_t step) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "ckpt-%08lld.xqz", (long long)step);
  return buf;
}

int64_t checkpoint_step(const std::string& name) {
  const std::string prefix = "ckpt-", suffix = ".xqz";
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoll(digits);
}

std::vector<std::string> checkpoints_newest_first(const std::string& dir) {
  std::vector<std::pair<int64_t, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const int64_t step = checkpoint_step(name);
    if (step >= 0 && it->is_regular_file(ec)) found.emplace_back(step, name);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a > b; });
  std::vector<std::string> names;
  for (auto& f : found) names.push_back(std::move(f.second));
  return names;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  try {
    replace_file(path, {text}, "run file");
  } catch (const FileError& e) {
    throw RunDirError(e.what());
  }
}

std::string read_latest(const std::string& path) {
  std::string s = read_file(path, 4096, "run file 'latest'");
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

void fault_point(const char* name) {
  const char* at = std::getenv("XQZERO_FAULT");
  if (at && std::strcmp(at, name) == 0) std::_Exit(86);
}

}  // namespace xq::training
