// bfloat16 on CPU: the BatchNorm-folded copy computes what the module computes, and the
// output check of `xqzero bench nncheck` (nn/output_check.h) holds its stated tolerance on a
// tiny freshly-initialised net and fails past it. No timing assertions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nn/folded_network.h"
#include "nn/output_check.h"
#include "nn/planes.h"
#include "nn/torch_evaluator.h"
#include "tests/support/nn_test_util.h"
#include "tests/support/perturbed_net.h"
#include "tests/support/tiny_net.h"

namespace xq::nn {
namespace {

xqzero::NetworkConfig arch(bool se = false, bool gp = false, int history = 0) {
  xqzero::NetworkConfig c = ::xq::test::tiny_net_config();
  c.set_se(se);
  c.set_global_pool(gp);
  c.set_material_head(gp);  // the training-only heads are skipped by the folded copy
  c.set_short_value_head(gp);
  c.set_soft_policy_head(gp);
  c.set_reply_policy_head(gp);
  c.set_history(history);
  c.set_attack_planes(se);  // the attack planes feed the stem like the others
  return c;
}

// BatchNorm statistics and affine parameters away from their defaults, so folding has work.
Network perturbed_net(const xqzero::NetworkConfig& c, uint64_t seed) {
  Network net = ::xq::test::perturbed_net(c, seed, true);
  net->eval();
  return net;
}

// Positions along random games, each with its predecessors as history.
struct Inputs {
  std::vector<EvalInput> inputs;
  std::vector<EvalRequest> requests;
  Inputs(int n, uint64_t seed, int history = 0) {
    const auto positions = test::random_positions(n, seed);
    for (size_t i = 0; i < positions.size(); ++i) {
      std::vector<const Position*> hist;
      for (size_t k = 1; k <= size_t(history) && k <= i; ++k) hist.push_back(&positions[i - k]);
      inputs.push_back(make_eval_input(positions[i], int(i % 3), hist.data(), int(hist.size())));
    }
    for (const EvalInput& in : inputs) requests.push_back(in.request());
  }
  torch::Tensor compact(PlaneLayout layout) const {
    const int w = compact_width(layout);
    torch::Tensor t = torch::empty({int64_t(requests.size()), w}, torch::kUInt8);
    for (size_t b = 0; b < requests.size(); ++b) write_compact(requests[b], layout, t.data_ptr<uint8_t>() + b * w);
    return t;
  }
};

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat) - b.to(torch::kFloat)).abs().max().item<double>();
}

TEST(FoldedNetwork, EqualsTheModuleInFloat32ForEveryArchitectureOption) {
  for (bool se : {false, true})
    for (bool gp : {false, true})
      for (int history : {0, 2}) {
        SCOPED_TRACE("se " + std::to_string(se) + " gp " + std::to_string(gp) + " history " + std::to_string(history));
        Network net = perturbed_net(arch(se, gp, history), 11);
        const Inputs in(24, 11, history);
        const torch::Tensor compact = in.compact(plane_layout(net->config()));
        c10::InferenceMode guard;
        const auto expected = net->forward_compact(compact);
        for (bool channels_last : {false, true}) {
          const FoldedNetwork folded(net, torch::kCPU, torch::kFloat, channels_last);
          const auto got = folded.forward_compact(compact);
          ASSERT_EQ(got.first.sizes(), expected.first.sizes());
          ASSERT_EQ(got.second.sizes(), expected.second.sizes());
          EXPECT_LT(max_abs_diff(got.first, expected.first), 1e-4);
          EXPECT_LT(max_abs_diff(got.second, expected.second), 1e-4);
        }
      }
}

TEST(FoldedNetwork, NamesATensorItDoesNotKnowAndTheEvaluatorFallsBack) {
  Network net = make_network(arch(), 1);
  net->register_parameter("extra_head", torch::zeros({2}));
  try {
    FoldedNetwork folded(net, torch::kCPU, torch::kBFloat16, true);
    FAIL() << "folded a net with an unknown tensor";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(extra_head)"), std::string::npos) << e.what();
  }
  InferenceForm fold;
  fold.fold_batchnorm = true;
  EXPECT_THROW(TorchEvaluator(net, "cpu", "bfloat16", 0, fold), std::invalid_argument);
  // Left to choose, the evaluator runs the module cast to bfloat16 instead, and says so.
  TorchEvaluator eval(net, "cpu", "bfloat16");
  EXPECT_FALSE(eval.folded());
  EXPECT_EQ(eval.describe(), "torch(cpu, bfloat16, 1x8, channels-last)");
  const Inputs in(4, 1);
  std::vector<EvalResult> results(in.requests.size());
  eval.evaluate(in.requests, results);
  for (const EvalResult& r : results) EXPECT_NEAR(r.wdl[0] + r.wdl[1] + r.wdl[2], 1.0f, 1e-5);
}

TEST(TorchEvaluator, FormsOnCpu) {
  // Folded and channels-last by default in both precisions on CPU; the module on request.
  EXPECT_EQ(TorchEvaluator(make_network(arch(), 1), "cpu", "float32").describe(),
            "torch(cpu, float32, 1x8, bn folded, channels-last)");
  TorchEvaluator bf16(make_network(arch(), 1), "cpu", "bfloat16");
  EXPECT_TRUE(bf16.folded());
  EXPECT_TRUE(bf16.channels_last());
  InferenceForm off;
  off.fold_batchnorm = off.channels_last = false;
  EXPECT_EQ(TorchEvaluator(make_network(arch(), 1), "cpu", "bfloat16", 0, off).describe(), "torch(cpu, bfloat16, 1x8)");
  EXPECT_EQ(TorchEvaluator(make_network(arch(), 1), "cpu", "float32", 0, off).describe(), "torch(cpu, float32, 1x8)");
}

TEST(OutputCheck, FiguresAndExcessOfHandMadeResults) {
  std::vector<EvalResult> ref(4), got(4);
  ref[0].priors = {0.5f, 0.3f, 0.2f};
  ref[0].wdl = {0.2f, 0.3f, 0.5f};
  ref[1].priors = {0.6f, 0.4f};
  ref[1].wdl = {0.6f, 0.3f, 0.1f};
  ref[2].priors = {0.3498f, 0.35f, 0.3002f};  // reference top move 1, a near-tie with 0
  ref[2].wdl = {0.3f, 0.4f, 0.3f};
  ref[3].wdl = {0.3f, 0.4f, 0.3f};  // no legal moves
  got = ref;
  got[0].priors = {0.45f, 0.35f, 0.2f};  // same top move
  got[0].wdl = {0.21f, 0.3f, 0.49f};
  got[1].priors = {0.39f, 0.61f};            // top move differs: 0.6 - 0.4 of reference prior lost
  got[2].priors = {0.3501f, 0.3499f, 0.3f};  // top move differs by a near-tie
  const OutputDifference d = compare_outputs(ref, got);
  EXPECT_EQ(d.positions, 4);
  EXPECT_NEAR(d.max_prior, 0.21, 1e-6);
  EXPECT_NEAR(d.max_wdl, 0.01, 1e-6);
  EXPECT_DOUBLE_EQ(d.top1_agreement, 0.5);
  EXPECT_DOUBLE_EQ(d.top1_agreement_beyond_ties, 0.75);
  EXPECT_NEAR(d.max_top1_loss, 0.2, 1e-6);
  EXPECT_TRUE(d.finite);

  EXPECT_EQ(tolerance_excess(d, {0.25, 0.02, 0.75}), "");
  EXPECT_EQ(tolerance_excess(d, {0.1, 0.005, 0.9}),
            "max|dprior| 0.21 > 0.1; max|dwdl| 0.01 > 0.005; top-1 agreement beyond ties 75.0% < 90.0%");
  got[0].wdl[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(tolerance_excess(compare_outputs(ref, got), {0.25, 0.02, 0.5}), "non-finite outputs");
  EXPECT_EQ(tolerance_excess(OutputDifference{}, {1, 1, 0}), "no positions compared");
  got.pop_back();
  EXPECT_THROW(compare_outputs(ref, got), std::invalid_argument);
  EXPECT_THROW(output_tolerance("float64"), std::invalid_argument);
}

// The check as nncheck runs it, on a tiny freshly-initialised net: bfloat16 on CPU (folded
// and channels-last, and the module cast) against the float32 reference.
TEST(OutputCheck, Bfloat16OnCpuIsWithinItsToleranceAndTheCheckFailsPastIt) {
  const Network net = make_network(arch(), 7);
  TorchEvaluator reference(clone_network(net), "cpu", "float32");
  const Inputs in(64, 7);
  std::vector<EvalResult> expected(in.requests.size());
  for (size_t i = 0; i < expected.size(); ++i) reference.evaluate_one(in.requests[i], expected[i]);
  const OutputTolerance tol = output_tolerance("bfloat16");
  InferenceForm module_cast;
  module_cast.fold_batchnorm = module_cast.channels_last = false;
  for (const InferenceForm& form : {InferenceForm{}, module_cast}) {
    TorchEvaluator bf16(clone_network(net), "cpu", "bfloat16", 0, form);
    SCOPED_TRACE(bf16.describe());
    std::vector<EvalResult> got(in.requests.size());
    bf16.evaluate(in.requests, got);
    const OutputDifference d = compare_outputs(expected, got);
    EXPECT_EQ(tolerance_excess(d, tol), "")
        << "max|dprior| " << d.max_prior << " max|dwdl| " << d.max_wdl << " top-1 " << d.top1_agreement;
    EXPECT_GT(d.max_prior, 0.0);  // bfloat16 arithmetic did run
    EXPECT_GT(d.max_wdl, 0.0);

    // Past the tolerance: a prior and a W/D/L moved by more than it, then top moves changed.
    std::vector<EvalResult> bad = got;
    bad[3].priors[0] += float(1.5 * tol.max_prior);
    EXPECT_NE(tolerance_excess(compare_outputs(expected, bad), tol).find("max|dprior|"), std::string::npos);
    bad = got;
    bad[5].wdl[2] -= float(1.5 * tol.max_wdl);
    EXPECT_NE(tolerance_excess(compare_outputs(expected, bad), tol).find("max|dwdl|"), std::string::npos);
    bad = got;
    for (size_t i = 0; i < bad.size() / 4; ++i) {
      // Make the reference's least likely move the top one: top-1 changes beyond ties.
      auto& p = bad[i].priors;
      const std::vector<float>& e = expected[i].priors;
      const size_t least = size_t(std::min_element(e.begin(), e.end()) - e.begin());
      p[least] = *std::max_element(p.begin(), p.end()) + 1e-4f;
    }
    const OutputDifference swapped = compare_outputs(expected, bad);
    EXPECT_GT(swapped.max_top1_loss, kTop1Tie);  // even a fresh net's priors are not all tied
    const std::string excess = tolerance_excess(swapped, tol);
    EXPECT_NE(excess.find("top-1 agreement beyond ties"), std::string::npos) << excess;
  }
}

}  // namespace
}  // namespace xq::nn
