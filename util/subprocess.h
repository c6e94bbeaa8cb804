// A child process run with `/bin/sh -c COMMAND` in its own process group, spoken to line by
// line over pipes (the external UCI engines of matches). Reads wait with a deadline; output
// beyond 1 MiB without a newline is dropped from the front, so a runaway child cannot exhaust
// memory. SIGPIPE is ignored in this process from the first start(), so writing to a child
// that has gone fails instead of killing us.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace xq {

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Read { LINE, TIMEOUT, CLOSED };

  ChildProcess() = default;
  ~ChildProcess() { kill_now(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts `command`; its stderr goes to /dev/null unless `pass_stderr`. False (with `error`
  // saying why) when no process could be made; a command that does not exist starts and
  // exits with status 127.
  bool start(const std::string& command, bool pass_stderr, std::string& error);
  // False when the child no longer reads (it has gone).
  bool write_line(const std::string& line);
  // The next line (trailing CR and spaces removed), or TIMEOUT at `deadline`, or CLOSED at
  // the end of the child's output.
  Read read_line(std::string& line, Clock::time_point deadline);
  // How the child ended, once it has (reaps it); "" while it runs.
  std::string exit_reason();
  // exit_reason(), waiting up to `wait_ms` for the child to end: a child whose output has
  // closed is usually exiting, and is reaped a moment later (under load or a sanitizer, more
  // than a millisecond later).
  std::string exit_reason_within(int wait_ms);
  // Started and its output not closed.
  bool running() const { return pid_ > 0 && !eof_; }
  // Kills the child's process group and reaps the child.
  void kill_now();
  // Sends "quit", gives the child `wait_ms`, then kills what is left of its group.
  void quit(int wait_ms);

 private:
  void close_fds();

  pid_t pid_ = -1;
  int in_fd_ = -1;   // we write: the child's stdin
  int out_fd_ = -1;  // we read: the child's stdout
  std::string buffer_;
  bool eof_ = false;
};

}  // namespace xq
