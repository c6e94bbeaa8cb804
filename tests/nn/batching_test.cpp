// The batching wrapper over the deterministic test evaluator: answers reach the right callers,
// batches form and stay within their bound, preparation overlaps running, errors propagate,
// a partial batch goes at once when every caller waits.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "nn/batching_evaluator.h"
#include "tests/support/nn_test_util.h"

namespace xq::nn {
namespace {

struct Inputs {
  std::vector<EvalInput> inputs;
  std::vector<EvalRequest> requests;
  explicit Inputs(int n, uint64_t seed) {
    for (const Position& pos : test::random_positions(n, seed)) inputs.push_back(make_eval_input(pos));
    for (const EvalInput& in : inputs) requests.push_back(in.request());
  }
};

void expect_same(const EvalResult& a, const EvalResult& b) {
  ASSERT_EQ(a.priors, b.priors);
  ASSERT_EQ(a.wdl, b.wdl);
}

TEST(BatchingEvaluator, OneBigCallIsSplitAndAnsweredInOrder) {
  auto inner = std::make_shared<TestEvaluator>(3);
  BatchingEvaluator b(inner, {16, 100, 2});
  const Inputs in(200, 4);
  std::vector<EvalResult> results(in.requests.size());
  b.evaluate(in.requests, results);
  for (size_t i = 0; i < results.size(); ++i) {
    EvalResult single;
    inner->answer(in.requests[i], single);
    expect_same(results[i], single);
  }
  EXPECT_EQ(inner->positions(), 200u);
  EXPECT_EQ(inner->max_batch_seen(), 16u);
  EXPECT_EQ(b.batches(), 13u);  // 12 full batches of 16 and one of 8
  EXPECT_EQ(b.positions(), 200u);
}

TEST(BatchingEvaluator, ManyThreadsEachGetTheirOwnAnswers) {
  auto inner = std::make_shared<TestEvaluator>(9);
  BatchingEvaluator b(inner, {8, 200, 2});
  constexpr int kThreads = 8, kPerThread = 150;
  std::vector<Inputs> inputs;
  for (int t = 0; t < kThreads; ++t) inputs.emplace_back(kPerThread, 100 + t);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      EvalResult r, expected;
      for (int i = 0; i < kPerThread; ++i) {
        const EvalRequest& q = inputs[size_t(t)].requests[size_t(i)];
        if (i % 10 == 9) {  // now and then a small multi-position call
          const int n = std::min(3, kPerThread - i);
          std::vector<EvalResult> rs(static_cast<size_t>(n));
          b.evaluate(Span<const EvalRequest>(&q, size_t(n)), rs);
          for (int k = 0; k < n; ++k) {
            inner->answer((&q)[k], expected);
            wrong += rs[size_t(k)].priors != expected.priors || rs[size_t(k)].wdl != expected.wdl;
          }
          continue;
        }
        b.evaluate_one(q, r);
        inner->answer(q, expected);
        wrong += r.priors != expected.priors || r.wdl != expected.wdl;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(inner->max_batch_seen(), 8u);
  EXPECT_EQ(b.positions(), inner->positions());
  EXPECT_GE(inner->positions(), uint64_t(kThreads * kPerThread));
}

TEST(BatchingEvaluator, WaitsForAFullBatchBeforeTheDeadline) {
  // A deadline far longer than the test: the only way to finish is a batch of all four.
  auto inner = std::make_shared<TestEvaluator>();
  BatchingEvaluator b(inner, {4, 600000000, 2});  // 600 s
  const Inputs in(4, 8);
  std::vector<std::thread> threads;
  std::vector<EvalResult> results(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { b.evaluate_one(in.requests[size_t(t)], results[size_t(t)]); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(inner->calls(), 1u);
  EXPECT_EQ(inner->max_batch_seen(), 4u);
  EXPECT_EQ(b.batches(), 1u);
}

// An inner evaluator whose first run() only returns once a second batch has been prepared:
// with two slots that happens (preparation overlaps running); it proves the overlap.
class OverlapProbe final : public Evaluator {
 public:
  void evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) override {
    for (size_t i = 0; i < requests.size(); ++i) inner_.answer(requests[i], results[i]);
  }
  std::string describe() const override { return "probe"; }
  void prepare(BatchSlot& slot, Span<const EvalRequest> requests) override {
    Evaluator::prepare(slot, requests);
    std::lock_guard<std::mutex> lock(m_);
    ++prepared_;
    cv_.notify_all();
  }
  void run(BatchSlot& slot, Span<EvalResult> results) override {
    {
      std::unique_lock<std::mutex> lock(m_);
      if (runs_++ == 0) overlapped_ = cv_.wait_for(lock, std::chrono::seconds(60), [&] { return prepared_ >= 2; });
    }
    Evaluator::run(slot, results);
  }
  bool overlapped() {
    std::lock_guard<std::mutex> lock(m_);
    return overlapped_;
  }

 private:
  TestEvaluator inner_;
  std::mutex m_;
  std::condition_variable cv_;
  int prepared_ = 0, runs_ = 0;
  bool overlapped_ = false;
};

TEST(BatchingEvaluator, PreparesTheNextBatchWhileOneRuns) {
  // max_batch 1: a call with two positions becomes two batches; the second is prepared in the
  // other slot while the first runs (the probe's first run() waits for that).
  auto probe = std::make_shared<OverlapProbe>();
  BatchingEvaluator b(probe, {1, 0, 2});
  const Inputs in(2, 12);
  std::vector<EvalResult> results(2);
  b.evaluate(in.requests, results);
  EXPECT_TRUE(probe->overlapped());
  EXPECT_EQ(b.batches(), 2u);
  TestEvaluator reference;
  EvalResult expected;
  reference.answer(in.requests[1], expected);
  EXPECT_EQ(results[1].priors, expected.priors);
}

class Throwing final : public Evaluator {
 public:
  void evaluate(Span<const EvalRequest>, Span<EvalResult>) override { throw std::runtime_error("device lost"); }
  std::string describe() const override { return "throwing"; }
};

TEST(BatchingEvaluator, InnerErrorsReachEveryCaller) {
  BatchingEvaluator b(std::make_shared<Throwing>(), {4, 100, 2});
  const Inputs in(8, 1);
  std::atomic<int> caught{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      EvalResult r;
      try {
        b.evaluate_one(in.requests[size_t(t)], r);
      } catch (const std::runtime_error& e) {
        caught += std::string(e.what()) == "device lost";
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(caught.load(), 8);
}

TEST(BatchingEvaluator, RejectsBadOptionsAndEmptyCallsAreFine) {
  auto inner = std::make_shared<TestEvaluator>();
  EXPECT_THROW(BatchingEvaluator(inner, {0, 1, 2}), std::invalid_argument);
  EXPECT_THROW(BatchingEvaluator(inner, {4, -1, 2}), std::invalid_argument);
  EXPECT_THROW(BatchingEvaluator(inner, {4, 1, 0}), std::invalid_argument);
  EXPECT_THROW(BatchingEvaluator(inner, {4, 1, 2, -1}), std::invalid_argument);
  EXPECT_THROW(BatchingEvaluator(nullptr, {4, 1, 2}), std::invalid_argument);
  BatchingEvaluator b(inner, {4, 1, 1});
  b.evaluate(Span<const EvalRequest>(), Span<EvalResult>());
  EXPECT_EQ(inner->calls(), 0u);
  const Inputs in(3, 2);
  std::vector<EvalResult> results(3);
  b.evaluate(in.requests, results);  // a single slot works too
  EXPECT_EQ(inner->positions(), 3u);
  EXPECT_NE(b.describe().find("test"), std::string::npos);
}

// With Options::callers, a partial batch goes as soon as that many calls wait, instead of
// waiting out the deadline for requests that cannot come; without it, it waits. The deadlines
// are far from the margins: the first call would take 20 s if it waited.
TEST(BatchingEvaluator, APartialBatchGoesAtOnceWhenEveryCallerWaits) {
  using Clock = std::chrono::steady_clock;
  const Inputs in(5, 11);
  std::vector<EvalResult> results(in.requests.size());
  {
    BatchingEvaluator b(std::make_shared<TestEvaluator>(1), {64, 20 * 1000 * 1000, 2, 1});
    const auto t0 = Clock::now();
    b.evaluate(in.requests, results);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 10.0);
    EXPECT_EQ(b.batches(), 1u);
    EXPECT_NE(b.describe().find("1 callers"), std::string::npos) << b.describe();
  }
  {
    // Two callers: one alone waits out the deadline; when the second arrives, both go.
    BatchingEvaluator b(std::make_shared<TestEvaluator>(1), {64, 300 * 1000, 2, 2});
    const auto t0 = Clock::now();
    b.evaluate(in.requests, results);
    EXPECT_GE(std::chrono::duration<double>(Clock::now() - t0).count(), 0.29);
    BatchingEvaluator c(std::make_shared<TestEvaluator>(1), {64, 20 * 1000 * 1000, 2, 2});
    std::vector<EvalResult> other(results.size());
    const auto t1 = Clock::now();
    std::thread second([&] { c.evaluate(in.requests, other); });
    c.evaluate(in.requests, results);
    second.join();
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t1).count(), 10.0);
    for (size_t i = 0; i < results.size(); ++i) expect_same(results[i], other[i]);
  }
  {
    BatchingEvaluator b(std::make_shared<TestEvaluator>(1), {64, 300 * 1000, 2, 0});
    const auto t0 = Clock::now();
    b.evaluate(in.requests, results);
    EXPECT_GE(std::chrono::duration<double>(Clock::now() - t0).count(), 0.29);
  }
}

}  // namespace
}  // namespace xq::nn
