// The replay window: the newest training positions, sampled uniformly (thread-safe).
//
// Its size grows with the data: window_fraction of all target positions generated so far,
// at least window_min and at most window_max. Storage is a ring of window_max positions
// (TrainingPosition, 618 bytes: the tiny config's 480,000 take about 297 MB, a million 618 MB).
#pragma once

#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

#include "training/training_position.h"

namespace xq::training {

class ReplayWindow {
 public:
  ReplayWindow(int64_t window_min, int64_t window_max, double window_fraction);

  void add(const std::vector<TrainingPosition>& positions);
  // Positions added since the start (of this process, plus any counted with set_total).
  int64_t total_added() const;
  // The window's current size: the number of newest positions sampling draws from.
  int64_t window_size() const;
  // Uniform samples from the window (with replacement), each mirrored left-right with
  // probability 1/2. Returns false (and samples nothing) when the window is empty.
  bool sample(int n, std::mt19937_64& rng, std::vector<TrainingPosition>& out) const;

 private:
  int64_t window_size_locked() const;
  int64_t window_min_, window_max_;
  double window_fraction_;
  mutable std::mutex mutex_;
  std::vector<TrainingPosition> ring_;  // grows to window_max, then wraps
  int64_t total_ = 0;                   // positions ever added; the newest is at (total_-1) % max
};

}  // namespace xq::training
