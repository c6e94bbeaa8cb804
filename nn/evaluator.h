// The evaluator interface that search calls (torch-free).
//
// A request is one position as the network sees it: its compact encoding (nn/encoding.h),
// optional earlier positions (history), the labels of its legal moves (nn/policy_labels.h)
// and a cache key (nn/encoding.h eval_key). The answer is a prior over exactly those legal
// moves, in the same order, summing to 1, and win/draw/loss probabilities for the side to
// move.
//
// Backends (the torch network, the uniform and test evaluators) and wrappers (batching,
// cache) all implement Evaluator, so search code sees one interface and never torch. Pick
// one by name with make_evaluator (nn/evaluator_factory.h).
//
// Threading: every Evaluator in nn/ may be called from many threads at once. A call blocks
// until all its results are written. Requests point at memory the caller owns; it must stay
// valid until the call returns.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/position.h"
#include "nn/encoding.h"

namespace xq::nn {

// A minimal C++17 stand-in for std::span.
template <class T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <class C, class = decltype(static_cast<T*>(std::declval<C&>().data()), std::declval<C&>().size())>
  Span(C& c) : data_(c.data()), size_(c.size()) {}  // vectors, arrays and spans
  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](size_t i) const { return data_[i]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }
  constexpr Span subspan(size_t offset, size_t count) const { return Span(data_ + offset, count); }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

struct EvalRequest {
  Encoding encoding;                  // current position, side to move's view
  const Encoding* history = nullptr;  // n_history earlier positions, most recent first, same view
  int n_history = 0;
  const uint16_t* labels = nullptr;  // legal move labels
  int n_labels = 0;                  // 0 < n_labels <= MAX_MOVES
  uint64_t key = 0;                  // eval_key(...): identifies everything above
};

struct EvalResult {
  std::vector<float> priors;   // resized to n_labels; priors[i] belongs to labels[i]
  std::array<float, 3> wdl{};  // win, draw, loss for the side to move; sums to 1
  float value() const { return wdl[0] - wdl[2]; }
};

// Reusable per-batch storage for the optional two-stage path (see Evaluator::prepare).
struct BatchSlot {
  virtual ~BatchSlot() = default;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;

  // Evaluates requests[i] into results[i] (the spans have equal size).
  virtual void evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) = 0;
  void evaluate_one(const EvalRequest& request, EvalResult& result) {
    evaluate(Span<const EvalRequest>(&request, 1), Span<EvalResult>(&result, 1));
  }

  // A short description, e.g. "torch(cpu, float32, 6x64)" or "batching(max 256) <- torch(...)".
  virtual std::string describe() const = 0;

  // Drops every answer cached by this evaluator and by those it wraps (the analysis
  // engine's clear_cache action); evaluators without a cache do nothing. May be called
  // while other threads evaluate: answers they store meanwhile stay.
  virtual void clear_cache() {}

  // Optional two-stage path, used by the batching wrapper to overlap preparing the next batch
  // (gathering encodings into host buffers) with running the current one. prepare() must not
  // touch results; run() must write every result. The defaults keep the requests and call
  // evaluate(). A backend may run prepare() for one slot while run() works on another slot, so
  // slots must not share mutable state. Requests stay valid until run() returns.
  virtual std::unique_ptr<BatchSlot> make_slot(int max_batch);
  virtual void prepare(BatchSlot& slot, Span<const EvalRequest> requests);
  virtual void run(BatchSlot& slot, Span<EvalResult> results);
};

// Everything an EvalRequest points to, built from a position: for tests, tools and simple
// callers. history: earlier positions, most recent first (only n_history are used).
struct EvalInput {
  Encoding encoding;
  std::vector<Encoding> history;
  std::array<uint16_t, MAX_MOVES> labels;
  std::array<Move, MAX_MOVES> moves;  // moves[i] has label labels[i]
  int n_labels = 0;
  uint64_t key = 0;

  EvalRequest request() const;
};
EvalInput make_eval_input(const Position& pos, int repetition = 0, const Position* const* history = nullptr,
                          int n_history = 0);

// What the callers of an evaluator can have waiting at once (0: not known), so that the
// batching wrapper (nn/evaluator_factory.h) never waits out its deadline for requests that cannot come:
//   max_in_flight  the most leaves all callers together can have waiting: no batch is larger
//                  (one match game, a few analysis searches);
//   threads        the most threads that call it at once: when all of them wait, a partial
//                  batch goes at once (self-play threads, each submitting all its games'
//                  leaves in one call).
// An int converts to max_in_flight alone.
struct Callers {
  Callers(int leaves = 0, int calling_threads = 0) : max_in_flight(leaves), threads(calling_threads) {}  // NOLINT
  int max_in_flight;
  int threads;
};

// Equal priors and W = D = L = 1/3 (value 0). Counts its calls.
class UniformEvaluator final : public Evaluator {
 public:
  void evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) override;
  std::string describe() const override { return "uniform"; }
  uint64_t positions() const { return positions_.load(); }

 private:
  std::atomic<uint64_t> positions_{0};
};

// Deterministic pseudo-random answers that depend on every byte of the request (encoding,
// history, labels, key) and the seed, so a wrong routing of answers shows. Priors are strictly
// positive. Keeps statistics of how it was called (for batching tests).
class TestEvaluator final : public Evaluator {
 public:
  explicit TestEvaluator(uint64_t seed = 0) : seed_(seed) {}
  void evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) override;
  std::string describe() const override { return "test"; }
  // The answer evaluate() gives for one request (pure function).
  void answer(const EvalRequest& request, EvalResult& result) const;

  uint64_t calls() const { return calls_.load(); }
  uint64_t positions() const { return positions_.load(); }
  uint64_t max_batch_seen() const { return max_batch_.load(); }

 private:
  uint64_t seed_;
  std::atomic<uint64_t> calls_{0}, positions_{0}, max_batch_{0};
};

}  // namespace xq::nn
