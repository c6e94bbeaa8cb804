#include "util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace xq {

namespace {

void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, nullptr);
  });
}

constexpr size_t kMaxBuffered = size_t(1) << 20;

}  // namespace

bool ChildProcess::start(const std::string& command, bool pass_stderr, std::string& error) {
  kill_now();
  ignore_sigpipe();
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    close(to_child[0]);
    close(to_child[1]);
    return false;
  }
  const pid_t child = fork();
  if (child < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
    return false;
  }
  if (child == 0) {
    // Only async-signal-safe calls from here to exec.
    setpgid(0, 0);
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &sa, nullptr);
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    if (!pass_stderr) {
      const int null_fd = open("/dev/null", O_WRONLY);
      if (null_fd >= 0) dup2(null_fd, 2);
    }
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(child, child);  // also done by the child; whichever runs first wins
  close(to_child[0]);
  close(from_child[1]);
  pid_ = child;
  in_fd_ = to_child[1];
  out_fd_ = from_child[0];
  fcntl(out_fd_, F_SETFL, fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
  buffer_.clear();
  eof_ = false;
  return true;
}

bool ChildProcess::write_line(const std::string& line) {
  if (in_fd_ < 0) return false;
  const std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(in_fd_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;  // EPIPE: the child has gone
    }
    done += size_t(n);
  }
  return true;
}

ChildProcess::Read ChildProcess::read_line(std::string& line, Clock::time_point deadline) {
  for (;;) {
    const size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      return Read::LINE;
    }
    if (eof_ || out_fd_ < 0) return Read::CLOSED;
    const auto now = Clock::now();
    if (now >= deadline) return Read::TIMEOUT;
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    struct pollfd p;
    p.fd = out_fd_;
    p.events = POLLIN;
    p.revents = 0;
    const int r = poll(&p, 1, int(std::min<int64_t>(ms, 1000)));
    if (r < 0 && errno != EINTR) return Read::CLOSED;
    if (r <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, size_t(n));
      if (buffer_.size() > kMaxBuffered) buffer_.erase(0, buffer_.size() - kMaxBuffered);  // runaway output
    } else if (n == 0) {
      eof_ = true;
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      eof_ = true;
    }
  }
}

std::string ChildProcess::exit_reason() {
  if (pid_ <= 0) return "not running";
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return "";
  pid_ = -1;
  if (WIFSIGNALED(status)) return "engine crashed (signal " + std::to_string(WTERMSIG(status)) + ")";
  return "engine exited (status " + std::to_string(WEXITSTATUS(status)) + ")";
}

std::string ChildProcess::exit_reason_within(int wait_ms) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    std::string reason = exit_reason();
    if (!reason.empty() || Clock::now() >= deadline) return reason;
    usleep(1000);
  }
}

void ChildProcess::close_fds() {
  if (in_fd_ >= 0) close(in_fd_);
  if (out_fd_ >= 0) close(out_fd_);
  in_fd_ = out_fd_ = -1;
}

void ChildProcess::kill_now() {
  close_fds();
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
}

void ChildProcess::quit(int wait_ms) {
  if (pid_ <= 0) {
    close_fds();
    return;
  }
  write_line("quit");
  const auto deadline = Clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    // WNOWAIT keeps the zombie, so the process group id stays ours until the kill below.
    if (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) break;
    if (Clock::now() >= deadline) break;
    usleep(2000);
  }
  kill_now();
}

}  // namespace xq
