#include "nn/batching_evaluator.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <utility>

namespace xq::nn {

using Clock = std::chrono::steady_clock;

struct BatchingEvaluator::Job {
  const EvalRequest* requests;
  EvalResult* results;
  size_t n;
  Clock::time_point arrival;
  size_t next = 0;       // first position not yet taken (queue_mutex_)
  size_t remaining = 0;  // positions not yet answered (runner thread only after submission)
  std::string error;     // first failure's message (runner thread; read by the caller after done)
  bool failed = false;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;  // guarded by m
};

struct BatchingEvaluator::Slot {
  std::unique_ptr<BatchSlot> inner;
  std::vector<EvalRequest> requests;
  std::vector<EvalResult> results;
  std::vector<std::pair<Job*, size_t>> targets;  // per position: job and index in it
  std::string error;                             // prepare() failed with this message
  bool failed = false;
};

BatchingEvaluator::BatchingEvaluator(std::shared_ptr<Evaluator> inner, Options options)
    : inner_(std::move(inner)), options_(options) {
  if (!inner_) throw std::invalid_argument("BatchingEvaluator: no inner evaluator");
  if (options_.max_batch < 1) throw std::invalid_argument("BatchingEvaluator: max_batch must be at least 1");
  if (options_.deadline_us < 0) throw std::invalid_argument("BatchingEvaluator: deadline_us must be >= 0");
  if (options_.slots < 1) throw std::invalid_argument("BatchingEvaluator: slots must be at least 1");
  if (options_.callers < 0) throw std::invalid_argument("BatchingEvaluator: callers must be >= 0");
  for (int i = 0; i < options_.slots; ++i) {
    auto slot = std::make_unique<Slot>();
    slot->inner = inner_->make_slot(options_.max_batch);
    slot->requests.reserve(size_t(options_.max_batch));
    slot->results.resize(size_t(options_.max_batch));
    slot->targets.reserve(size_t(options_.max_batch));
    free_.push_back(slot.get());
    slots_.push_back(std::move(slot));
  }
  collector_ = std::thread([this] { collector_loop(); });
  runner_ = std::thread([this] { runner_loop(); });
}

BatchingEvaluator::~BatchingEvaluator() {
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  collector_.join();
  runner_.join();
}

std::string BatchingEvaluator::describe() const {
  return "batching(max " + std::to_string(options_.max_batch) + ", " + std::to_string(options_.deadline_us) + " us" +
         (options_.callers > 0 ? ", " + std::to_string(options_.callers) + " callers" : std::string()) + ") <- " +
         inner_->describe();
}

void BatchingEvaluator::evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) {
  if (requests.size() != results.size())
    throw std::invalid_argument("BatchingEvaluator: requests and results differ in size");
  if (requests.empty()) return;
  Job job;
  job.requests = requests.data();
  job.results = results.data();
  job.n = requests.size();
  job.remaining = job.n;
  job.arrival = Clock::now();
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    if (stopping_) throw std::logic_error("BatchingEvaluator: evaluate() during destruction");
    queue_.push_back(&job);
    pending_ += job.n;
    ++calls_;
  }
  queue_cv_.notify_one();
  {
    std::unique_lock<std::mutex> lock(job.m);
    job.cv.wait(lock, [&] { return job.done; });
  }
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    --calls_;
  }
  // Each caller gets its own exception object: sharing one across threads is legal but racy
  // to reason about (and reported by ThreadSanitizer through libstdc++'s uninstrumented
  // reference counts).
  if (job.failed) throw std::runtime_error(job.error);
}

void BatchingEvaluator::collector_loop() {
  const size_t max_batch = size_t(options_.max_batch);
  const auto deadline = std::chrono::microseconds(options_.deadline_us);
  for (;;) {
    Slot* slot = nullptr;
    {
      std::unique_lock<std::mutex> lock(slot_mutex_);
      free_cv_.wait(lock, [&] { return !free_.empty(); });
      slot = free_.front();
      free_.pop_front();
    }
    slot->requests.clear();
    slot->targets.clear();
    slot->error.clear();
    slot->failed = false;
    {
      std::unique_lock<std::mutex> lock(queue_mutex_);
      queue_cv_.wait(lock, [&] { return pending_ > 0 || stopping_; });
      if (pending_ == 0) break;  // stopping with nothing left
      if (pending_ < max_batch && !stopping_ && !all_callers_wait()) {
        const auto until = queue_.front()->arrival + deadline;
        queue_cv_.wait_until(lock, until, [&] { return pending_ >= max_batch || stopping_ || all_callers_wait(); });
      }
      while (!queue_.empty() && slot->requests.size() < max_batch) {
        Job* job = queue_.front();
        const size_t take = std::min(job->n - job->next, max_batch - slot->requests.size());
        for (size_t i = 0; i < take; ++i) {
          slot->requests.push_back(job->requests[job->next + i]);
          slot->targets.emplace_back(job, job->next + i);
        }
        job->next += take;
        pending_ -= take;
        if (job->next == job->n) queue_.pop_front();
      }
    }
    try {
      inner_->prepare(*slot->inner, Span<const EvalRequest>(slot->requests.data(), slot->requests.size()));
    } catch (const std::exception& e) {
      slot->failed = true;
      slot->error = e.what();
    } catch (...) {
      slot->failed = true;
      slot->error = "unknown error in prepare()";
    }
    {
      std::lock_guard<std::mutex> lock(slot_mutex_);
      ready_.push_back(slot);
    }
    ready_cv_.notify_one();
  }
  {
    std::lock_guard<std::mutex> lock(slot_mutex_);
    collector_done_ = true;
  }
  ready_cv_.notify_one();
}

void BatchingEvaluator::runner_loop() {
  for (;;) {
    Slot* slot = nullptr;
    {
      std::unique_lock<std::mutex> lock(slot_mutex_);
      ready_cv_.wait(lock, [&] { return !ready_.empty() || collector_done_; });
      if (ready_.empty()) return;
      slot = ready_.front();
      ready_.pop_front();
    }
    const size_t n = slot->requests.size();
    bool failed = slot->failed;
    std::string error = slot->error;
    if (!failed) {
      try {
        inner_->run(*slot->inner, Span<EvalResult>(slot->results.data(), n));
      } catch (const std::exception& e) {
        failed = true;
        error = e.what();
      } catch (...) {
        failed = true;
        error = "unknown error in run()";
      }
    }
    batches_ += 1;
    positions_ += n;
    for (size_t i = 0; i < n; ++i) {
      Job* job = slot->targets[i].first;
      if (failed) {
        if (!job->failed) {
          job->failed = true;
          job->error = error;
        }
      } else {
        EvalResult& dst = job->results[slot->targets[i].second];
        dst.priors.swap(slot->results[i].priors);
        dst.wdl = slot->results[i].wdl;
      }
      if (--job->remaining == 0) {
        // Notify under the lock: the caller cannot return (and destroy the job) before it.
        std::lock_guard<std::mutex> lock(job->m);
        job->done = true;
        job->cv.notify_one();
      }
    }
    {
      std::lock_guard<std::mutex> lock(slot_mutex_);
      free_.push_back(slot);
    }
    free_cv_.notify_one();
  }
}

}  // namespace xq::nn
