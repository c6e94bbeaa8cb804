// The batching wrapper: turns many small concurrent requests into large batches (torch-free).
//
// Search threads call evaluate() concurrently and block until their answers are written. Two
// internal threads serve one inner evaluator (one device):
//   - the collector waits for requests, forms a batch of up to max_batch positions (taking
//     whatever is queued once max_batch positions are waiting or deadline_us has passed since
//     the oldest waiting request arrived, or at once when every caller there can be is
//     waiting: Options::callers), and calls inner->prepare() on a free slot (for the
//     torch backend: copying encodings and label indices into host buffers);
//   - the runner (the one inference thread of the device) calls inner->run() on prepared
//     slots in order and hands each answer to its caller.
// With `slots` >= 2 buffers, the next batch is collected and prepared while the current one
// runs. A call with many requests may be split over several batches. When the inner
// evaluator throws, every caller whose requests were in that batch gets a std::runtime_error
// with the same message (one exception object per caller).
//
// The wrapper owns no request data: requests are copied (EvalRequest is small; history and
// labels stay the caller's, valid because the caller is blocked), answers are moved into the
// caller's EvalResults. Destroying the wrapper while calls are in flight is a caller error;
// it finishes queued work first.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "nn/evaluator.h"

namespace xq::nn {

class BatchingEvaluator final : public Evaluator {
 public:
  struct Options {
    int max_batch = 256;     // positions per inner call, >= 1
    int deadline_us = 1000;  // how long a partial batch waits to fill, >= 0
    int slots = 2;           // batch buffers in flight (2 = double buffering), >= 1
    // The most threads that call evaluate() at once (0: not known). Once that many calls
    // are waiting here, no request can come to fill a partial batch, so it goes at once
    // instead of waiting out the deadline (a self-play thread submits all its games'
    // leaves in one call and waits for them).
    int callers = 0;
  };

  BatchingEvaluator(std::shared_ptr<Evaluator> inner, Options options);
  ~BatchingEvaluator() override;

  void evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) override;
  std::string describe() const override;
  void clear_cache() override { inner_->clear_cache(); }

  uint64_t batches() const { return batches_.load(); }
  uint64_t positions() const { return positions_.load(); }
  const Options& options() const { return options_; }

 private:
  struct Job;
  struct Slot;
  void collector_loop();
  void runner_loop();
  bool all_callers_wait() const { return options_.callers > 0 && calls_ >= options_.callers; }  // queue_mutex_

  std::shared_ptr<Evaluator> inner_;
  Options options_;

  // Submitted jobs not yet fully taken into a batch.
  std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::deque<Job*> queue_;
  size_t pending_ = 0;  // positions in queue_ not yet taken
  int calls_ = 0;       // evaluate() calls waiting for their answers
  bool stopping_ = false;

  // Slots: free ones wait for the collector, prepared ones for the runner.
  std::mutex slot_mutex_;
  std::condition_variable free_cv_, ready_cv_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::deque<Slot*> free_, ready_;
  bool collector_done_ = false;

  std::atomic<uint64_t> batches_{0}, positions_{0};
  std::thread collector_, runner_;
};

}  // namespace xq::nn
