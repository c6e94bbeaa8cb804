// A bounded evaluation cache and the caching wrapper (torch-free).
//
// EvalCache holds at most `entries` answers (fixed at construction, allocated once), keyed by
// EvalRequest::key (nn/encoding.h eval_key: Zobrist key plus repetition count, halfmove clock
// and history keys, i.e. everything the encoding depends on). Each entry also stores a 32-bit
// hash of the legal label list, so an answer is only returned for the same moves in the same
// order.
//
// Entry layout (kBytesPerEntry = 152 bytes): key (8), label hash (4), last-use stamp (4),
// move count (2), W/D/L as 16-bit fixed point (6), priors of up to kMaxMoves = 64 legal moves
// as 16-bit fixed point (128). A request with more legal moves is not cached. Stored values
// are quantised to 1/65535 and renormalised on lookup, so a hit returns the stored answer to
// within about 1e-5 per value.
//
// Organisation: 4-way set-associative buckets (least recently used entry replaced), buckets
// guarded by 256 striped mutexes, so many threads can look up and store at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "nn/evaluator.h"

namespace xq::nn {

class EvalCache {
 public:
  static constexpr int kMaxMoves = 64;
  static constexpr int kWays = 4;
  struct Entry {
    uint64_t key;
    uint32_t check;
    uint32_t stamp;
    uint16_t n;  // 0 = empty
    uint16_t wdl[3];
    uint16_t priors[kMaxMoves];
  };
  static constexpr size_t kBytesPerEntry = sizeof(Entry);
  static_assert(sizeof(Entry) == 152, "the entry size stated in the header comment");

  explicit EvalCache(size_t entries);

  // On a hit writes the stored answer to `result` and returns true.
  bool lookup(const EvalRequest& request, EvalResult& result);
  // Stores an answer (replacing an older one for the same key). Ignores requests with more
  // than kMaxMoves legal moves.
  void store(const EvalRequest& request, const EvalResult& result);
  void clear();

  size_t capacity() const { return buckets_ * ways_; }  // never more than `entries`
  size_t size() const;                                  // occupied entries (takes the locks)
  size_t memory_bytes() const { return capacity() * kBytesPerEntry; }
  uint64_t hits() const { return hits_.load(); }
  uint64_t misses() const { return misses_.load(); }

 private:
  std::mutex& stripe(size_t bucket) const { return stripes_[bucket % kStripes]; }
  static constexpr size_t kStripes = 256;

  size_t buckets_ = 0, ways_ = 0;
  std::vector<Entry> table_;
  mutable std::unique_ptr<std::mutex[]> stripes_;
  std::unique_ptr<uint32_t[]> clocks_;  // per stripe use counter (guarded by the stripe)
  std::atomic<uint64_t> hits_{0}, misses_{0};
};

// Answers from the cache where it can, sends the misses to `inner` in one call, stores them.
class CachingEvaluator final : public Evaluator {
 public:
  CachingEvaluator(std::shared_ptr<Evaluator> inner, size_t entries);
  void evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) override;
  std::string describe() const override;
  void clear_cache() override;
  EvalCache& cache() { return cache_; }

 private:
  std::shared_ptr<Evaluator> inner_;
  EvalCache cache_;
};

}  // namespace xq::nn
