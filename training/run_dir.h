// The run directory of `xqzero train` (training/train_loop.h lists its files): whether a
// path can serve as one, the lock that keeps a second trainer out, the checkpoints in it,
// and writing its small files atomically.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace xq::training {

struct RunDirError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Creates `path` (and its parents) when missing; returns why it cannot serve as a run
// directory ("the path is empty", "not a directory", "cannot create it: ...", "not
// writable"), or "" when it can.
std::string prepare_run_dir(const std::string& path);

// An advisory lock (flock) on <run_dir>/lock, held while the object lives. The kernel
// releases it when the process ends, kill -9 included; the file is never removed or renamed
// (the lock belongs to its inode). While held, the file says "pid N on host H".
class RunDirLock {
 public:
  // Throws RunDirError "run directory 'R' is in use by pid N on host H (lock file R/lock)"
  // when another process holds it. `lock_name` (relative to the directory) and `what` (the
  // subject of the messages) serve other locks in it, such as a self-play worker's id.
  explicit RunDirLock(const std::string& run_dir, const std::string& lock_name = "lock", const std::string& what = "");
  ~RunDirLock();
  RunDirLock(const RunDirLock&) = delete;
  RunDirLock& operator=(const RunDirLock&) = delete;

 private:
  int fd_ = -1;
};

// "ckpt-00000123.xqz" for step 123.
std::string checkpoint_name(int64_t step);
// The step of a checkpoint file name ("ckpt-<digits>.xqz"), or -1 for any other name.
int64_t checkpoint_step(const std::string& name);
// The checkpoint files in `dir` (names only), highest step first; none when `dir` is missing.
std::vector<std::string> checkpoints_newest_first(const std::string& dir);

// The checkpoint name a run's `latest` file holds (read with a 4 KiB bound, trailing
// whitespace removed); throws FileError naming the file when it cannot be read.
std::string read_latest(const std::string& path);

// Writes `text` to "<path>.tmp", fsyncs it, renames it over `path` and fsyncs the directory,
// so `path` holds either its old or its new contents whatever happens. Throws RunDirError.
void write_file_atomically(const std::string& path, const std::string& text);

// A fault-injection point for the tests of crash safety: when the environment variable
// XQZERO_FAULT equals `name`, the process ends at once (exit status 86, nothing flushed), as a
// kill -9 at that moment would. Does nothing otherwise.
void fault_point(const char* name);

}  // namespace xq::training
