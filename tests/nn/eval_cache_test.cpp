// The bounded evaluation cache and the caching wrapper.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "nn/eval_cache.h"
#include "tests/support/nn_test_util.h"

namespace xq::nn {
namespace {

void expect_close(const EvalResult& a, const EvalResult& b, float tol = 2e-5f) {
  ASSERT_EQ(a.priors.size(), b.priors.size());
  for (size_t i = 0; i < a.priors.size(); ++i) EXPECT_NEAR(a.priors[i], b.priors[i], tol);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(a.wdl[i], b.wdl[i], tol);
}

TEST(EvalCache, ReturnsTheStoredAnswer) {
  EvalCache cache(1000);
  TestEvaluator t;
  const auto positions = test::random_positions(100, 2);
  std::vector<EvalInput> inputs;
  for (const Position& p : positions) inputs.push_back(make_eval_input(p));
  for (const EvalInput& in : inputs) {
    EvalResult r;
    t.answer(in.request(), r);
    cache.store(in.request(), r);
  }
  int hits = 0;
  for (const EvalInput& in : inputs) {
    EvalResult stored, expected;
    t.answer(in.request(), expected);
    if (!cache.lookup(in.request(), stored)) continue;
    ++hits;
    expect_close(stored, expected);
  }
  // Random games revisit few positions; nearly all 100 fit in 1000 entries (4-way buckets).
  EXPECT_GE(hits, 95);
  EXPECT_LE(cache.size(), 100u);
  EXPECT_GE(cache.hits(), uint64_t(hits));
}

TEST(EvalCache, AnswersOnlyForTheSameKeyAndMoves) {
  EvalCache cache(64);
  const EvalInput in = make_eval_input(Position());
  EvalResult r;
  TestEvaluator().answer(in.request(), r);
  cache.store(in.request(), r);
  EvalRequest other_key = in.request();
  other_key.key ^= 1;
  EvalResult out;
  EXPECT_FALSE(cache.lookup(other_key, out));
  EvalRequest fewer = in.request();
  fewer.n_labels -= 1;
  EXPECT_FALSE(cache.lookup(fewer, out));
  std::array<uint16_t, MAX_MOVES> swapped = in.labels;
  std::swap(swapped[0], swapped[1]);
  EvalRequest reordered = in.request();
  reordered.labels = swapped.data();
  EXPECT_FALSE(cache.lookup(reordered, out));
  EXPECT_TRUE(cache.lookup(in.request(), out));
  cache.clear();
  EXPECT_FALSE(cache.lookup(in.request(), out));
  EXPECT_EQ(cache.size(), 0u);
}

TEST(EvalCache, StaysWithinItsBound) {
  for (size_t entries : {size_t(0), size_t(1), size_t(3), size_t(10), size_t(257)}) {
    EvalCache cache(entries);
    EXPECT_LE(cache.capacity(), entries);
    EXPECT_GT(cache.capacity() + EvalCache::kWays, entries);  // at most kWays - 1 entries unused
    EXPECT_EQ(cache.memory_bytes(), cache.capacity() * EvalCache::kBytesPerEntry);
    const EvalInput in = make_eval_input(Position());
    EvalResult r;
    UniformEvaluator().evaluate_one(in.request(), r);
    for (uint64_t k = 0; k < 20 * entries + 20; ++k) {
      EvalRequest q = in.request();
      q.key = k * 0x9E3779B97F4A7C15ULL;
      cache.store(q, r);
    }
    EXPECT_LE(cache.size(), cache.capacity());
    if (entries >= 10) {
      EXPECT_GT(cache.size(), cache.capacity() / 2);
    }
  }
  EXPECT_EQ(EvalCache::kBytesPerEntry, 152u);
}

TEST(EvalCache, KeepsRecentlyUsedEntries) {
  // One bucket of four: after touching the first key, a fifth key evicts the second, not it.
  EvalCache cache(4);
  const EvalInput in = make_eval_input(Position());
  EvalResult r, out;
  UniformEvaluator().evaluate_one(in.request(), r);
  std::vector<EvalRequest> q(5, in.request());
  for (size_t i = 0; i < 5; ++i) q[i].key = 1000 + i;
  for (size_t i = 0; i < 4; ++i) cache.store(q[i], r);
  ASSERT_TRUE(cache.lookup(q[0], out));
  cache.store(q[4], r);
  EXPECT_TRUE(cache.lookup(q[0], out));
  EXPECT_FALSE(cache.lookup(q[1], out));
  EXPECT_TRUE(cache.lookup(q[4], out));
  EXPECT_EQ(cache.size(), 4u);
}

TEST(EvalCache, TooManyMovesAreNotCached) {
  EvalCache cache(100);
  std::vector<uint16_t> labels(EvalCache::kMaxMoves + 1);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = uint16_t(i);
  EvalRequest q;
  q.labels = labels.data();
  q.n_labels = int(labels.size());
  q.key = 5;
  EvalResult r, out;
  UniformEvaluator().evaluate_one(q, r);
  cache.store(q, r);
  EXPECT_FALSE(cache.lookup(q, out));
}

TEST(CachingEvaluator, RepeatsDoNotReachTheInnerEvaluator) {
  auto inner = std::make_shared<TestEvaluator>(4);
  CachingEvaluator c(inner, 4096);
  std::vector<EvalInput> inputs;
  std::vector<EvalRequest> requests;
  for (const Position& p : test::random_positions(60, 3)) inputs.push_back(make_eval_input(p));
  for (const EvalInput& in : inputs) requests.push_back(in.request());
  std::vector<EvalResult> first(requests.size()), second(requests.size());
  c.evaluate(requests, first);
  const uint64_t after_first = inner->positions();
  EXPECT_LE(after_first, 60u);
  c.evaluate(requests, second);
  EXPECT_EQ(inner->positions(), after_first);
  for (size_t i = 0; i < requests.size(); ++i) {
    EvalResult expected;
    inner->answer(requests[i], expected);
    expect_close(first[i], expected, 0.0f);
    expect_close(second[i], expected);
  }
  EvalResult one;
  c.evaluate_one(requests[0], one);
  EXPECT_EQ(inner->positions(), after_first);
  EXPECT_NE(c.describe().find("cache("), std::string::npos);
}

TEST(CachingEvaluator, ConcurrentUseGivesCorrectAnswers) {
  auto inner = std::make_shared<TestEvaluator>(1);
  CachingEvaluator c(inner, 64);  // small: constant eviction under contention
  std::vector<EvalInput> inputs;
  for (const Position& p : test::random_positions(200, 8)) inputs.push_back(make_eval_input(p));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      EvalResult r, expected;
      for (int rep = 0; rep < 3; ++rep)
        for (size_t i = size_t(t); i < inputs.size(); i += 2) {
          const EvalRequest q = inputs[i].request();
          c.evaluate_one(q, r);
          inner->answer(q, expected);
          for (size_t k = 0; k < r.priors.size(); ++k) wrong += std::abs(r.priors[k] - expected.priors[k]) > 2e-5f;
        }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(c.cache().size(), 64u);
}

}  // namespace
}  // namespace xq::nn
