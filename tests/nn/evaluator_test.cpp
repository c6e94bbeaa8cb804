// The evaluator interface, request building and the torch-free backends.
#include <gtest/gtest.h>

#include <numeric>

#include "nn/evaluator.h"
#include "nn/planes.h"
#include "nn/policy_labels.h"
#include "tests/support/nn_test_util.h"

namespace xq::nn {
namespace {

float sum(const std::vector<float>& v) { return std::accumulate(v.begin(), v.end(), 0.0f); }

TEST(EvalInput, BuildsEncodingLabelsAndKey) {
  const Position pos;
  const EvalInput in = make_eval_input(pos, 1);
  EXPECT_EQ(in.encoding, encode(pos, 1));
  EXPECT_EQ(in.n_labels, 44);
  EXPECT_EQ(in.key, eval_key(pos, 1));
  for (int i = 0; i < in.n_labels; ++i) EXPECT_EQ(label_of(in.moves[size_t(i)], RED), in.labels[size_t(i)]);
  const EvalRequest r = in.request();
  EXPECT_EQ(r.n_labels, 44);
  EXPECT_EQ(r.labels, in.labels.data());
  EXPECT_EQ(r.n_history, 0);
}

TEST(EvalInput, HistoryIsSeenFromTheCurrentMover) {
  Position before;
  Position now = before;
  UndoInfo undo;
  now.do_move(Move(make_square(7, 2), make_square(4, 2)), undo);  // h2e2, Black to move
  const Position* hist[] = {&before};
  const EvalInput in = make_eval_input(now, 0, hist, 1);
  ASSERT_EQ(in.history.size(), 1u);
  EXPECT_EQ(in.history[0], encode(before, BLACK, 0));
  EXPECT_NE(in.key, make_eval_input(now).key);
  uint8_t compact[compact_width(PlaneLayout{2, false})];
  write_compact(in.request(), PlaneLayout{2, false}, compact);
  EXPECT_TRUE(std::equal(in.encoding.squares, in.encoding.squares + 90, compact));
  EXPECT_TRUE(std::equal(in.history[0].squares, in.history[0].squares + 90, compact + 90));
  EXPECT_TRUE(std::all_of(compact + 180, compact + 270, [](uint8_t c) { return c == 0; }));
  EXPECT_EQ(compact[270], in.encoding.repetition);
  EXPECT_EQ(compact[271], in.encoding.halfmove);
}

TEST(UniformEvaluator, EqualPriorsAndEvenValue) {
  UniformEvaluator u;
  const EvalInput in = make_eval_input(Position());
  EvalResult r;
  u.evaluate_one(in.request(), r);
  ASSERT_EQ(r.priors.size(), 44u);
  for (float p : r.priors) EXPECT_FLOAT_EQ(p, 1.0f / 44);
  EXPECT_FLOAT_EQ(r.value(), 0.0f);
  EXPECT_NEAR(r.wdl[0] + r.wdl[1] + r.wdl[2], 1.0f, 1e-6);
  EXPECT_EQ(u.positions(), 1u);
}

TEST(TestEvaluator, DeterministicNormalisedAndSensitive) {
  TestEvaluator t(5), other_seed(6);
  const auto positions = test::random_positions(50, 1);
  for (const Position& pos : positions) {
    const EvalInput in = make_eval_input(pos);
    EvalResult a, b, c;
    t.evaluate_one(in.request(), a);
    t.evaluate_one(in.request(), b);
    other_seed.evaluate_one(in.request(), c);
    ASSERT_EQ(a.priors.size(), size_t(in.n_labels));
    EXPECT_EQ(a.priors, b.priors);
    EXPECT_EQ(a.wdl, b.wdl);
    EXPECT_NE(a.priors, c.priors);
    EXPECT_NEAR(sum(a.priors), 1.0f, 1e-5);
    EXPECT_NEAR(a.wdl[0] + a.wdl[1] + a.wdl[2], 1.0f, 1e-5);
    for (float p : a.priors) EXPECT_GT(p, 0.0f);
    EvalRequest changed = in.request();
    changed.encoding.repetition = 1;
    t.evaluate_one(changed, c);
    EXPECT_NE(a.wdl, c.wdl);
  }
  EXPECT_EQ(t.calls(), 150u);
  EXPECT_EQ(t.max_batch_seen(), 1u);
}

TEST(Evaluator, DefaultTwoStagePathMatchesEvaluate) {
  TestEvaluator t;
  std::vector<EvalInput> inputs;
  std::vector<EvalRequest> requests;
  for (const Position& pos : test::random_positions(10, 2)) inputs.push_back(make_eval_input(pos));
  for (const EvalInput& in : inputs) requests.push_back(in.request());
  auto slot = t.make_slot(10);
  t.prepare(*slot, requests);
  std::vector<EvalResult> results(10);
  t.run(*slot, results);
  for (size_t i = 0; i < 10; ++i) {
    EvalResult single;
    t.answer(requests[i], single);
    EXPECT_EQ(results[i].priors, single.priors);
  }
}

}  // namespace
}  // namespace xq::nn
