// metrics.jsonl of a run directory (training/train_loop.h): one JSON object per line, keys in
// the order written, "kind" first ("train", "generation", "eval"). Numbers that are not
// finite (an infinite Elo bound) are written as null, the only JSON has. Lines are written
// whole and flushed, from any thread.
#pragma once

#include <cstdint>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace xq::training {

using Json = nlohmann::ordered_json;

class MetricsLog {
 public:
  explicit MetricsLog(const std::string& path);
  void write(const Json& line);

 private:
  std::mutex mutex_;
  std::ofstream out_;
};

// A measured figure: six significant digits, null when not finite.
Json figure(double x);

// {"checkmate":N,...} from counts indexed by Termination (TERMINATION_NB of them), zero
// counts left out.
Json termination_json(const int64_t* counts);

// Keeps only the lines whose "step" is at most `step` (a resumed run drops what came after
// its checkpoint); the file is replaced atomically. Nothing to do when it does not exist.
void truncate_metrics(const std::string& path, int64_t step);

// The largest "run_s" (the run's training time over all its invocations) of the file's lines:
// where a resumed run's clock goes on. 0 when the file or the field is missing.
double last_run_seconds(const std::string& path);

}  // namespace xq::training
