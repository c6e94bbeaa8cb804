#include "training/replay_window.h"

#include <algorithm>

namespace xq::training {

ReplayWindow::ReplayWindow(int64_t window_min, int64_t window_max, double window_fraction)
    : window_min_(std::max<int64_t>(1, window_min)),
      window_max_(std::max<int64_t>(window_min_, window_max)),
      window_fraction_(window_fraction) {}

void ReplayWindow::add(const std::vector<TrainingPosition>& positions) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const TrainingPosition& p : positions) {
    if (int64_t(ring_.size()) < window_max_)
      ring_.push_back(p);
    else
      ring_[size_t(total_ % window_max_)] = p;
    ++total_;
  }
}

int64_t ReplayWindow::total_added() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_;
}

int64_t ReplayWindow::window_size_locked() const {
  const int64_t target = std::clamp<int64_t>(int64_t(window_fraction_ * double(total_)), window_min_, window_max_);
  return std::min<int64_t>(target, int64_t(ring_.size()));
}

int64_t ReplayWindow::window_size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return window_size_locked();
}

bool ReplayWindow::sample(int n, std::mt19937_64& rng, std::vector<TrainingPosition>& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t size = window_size_locked();
  if (size <= 0) return false;
  out.clear();
  out.reserve(size_t(n));
  std::uniform_int_distribution<int64_t> pick(0, size - 1);
  for (int i = 0; i < n; ++i) {
    // The k-th newest position (k = 0 newest) sits at (total_ - 1 - k) mod ring size.
    const int64_t k = pick(rng);
    const int64_t index = ((total_ - 1 - k) % window_max_ + window_max_) % window_max_;
    const TrainingPosition& p = ring_[size_t(index)];
    out.push_back((rng() & 1) ? mirrored(p) : p);
  }
  return true;
}

}  // namespace xq::training
