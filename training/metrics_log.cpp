#include "training/metrics_log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/game.h"
#include "core/input_file.h"
#include "training/run_dir.h"

namespace xq::training {

namespace {

// About 1.5 KB per logged step: a few MB for an hour.
constexpr size_t kMaxMetricsBytes = size_t(1) << 30;

}  // namespace

MetricsLog::MetricsLog(const std::string& path) : out_(path, std::ios::app) {}

void MetricsLog::write(const Json& line) {
  const std::string text = line.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << text << "\n";
  out_.flush();
}

Json figure(double x) {
  if (!std::isfinite(x)) return nullptr;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return std::strtod(buf, nullptr);
}

Json termination_json(const int64_t* counts) {
  Json j = Json::object();
  for (int t = 0; t < TERMINATION_NB; ++t)
    if (counts[t] != 0) j[to_string(Termination(t))] = counts[t];
  return j;
}

void truncate_metrics(const std::string& path, int64_t step) {
  if (!std::filesystem::exists(path)) return;
  std::istringstream in(read_file(path, kMaxMetricsBytes, "metrics file"));
  std::string kept, line;
  for (; std::getline(in, line);) {
    const size_t at = line.find("\"step\":");
    if (at == std::string::npos) continue;
    const long long s = std::atoll(line.c_str() + at + 7);
    if (s <= step) kept += line + "\n";
  }
  write_file_atomically(path, kept);
}

double last_run_seconds(const std::string& path) {
  if (!std::filesystem::exists(path)) return 0;
  std::istringstream in(read_file(path, kMaxMetricsBytes, "metrics file"));
  double last = 0;
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("\"run_s\":");
    if (at != std::string::npos) last = std::max(last, std::strtod(line.c_str() + at + 8, nullptr));
  }
  return last;
}

}  // namespace xq::training
