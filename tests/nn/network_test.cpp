// The torch network and backend: planes, shapes, masked softmax, batched equals single,
// the batching wrapper over torch, precision rules. Tiny nets keep this fast.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <sstream>
#include <thread>

#include "nn/batching_evaluator.h"
#include "nn/device.h"
#include "nn/planes.h"
#include "nn/policy_labels.h"
#include "nn/precision_choice.h"
#include "nn/torch_evaluator.h"
#include "tests/support/net_state.h"
#include "tests/support/nn_test_util.h"
#include "tests/support/perturbed_net.h"

namespace xq::nn {
namespace {

xqzero::NetworkConfig tiny(bool se = false, bool gp = false, int history = 0) {
  xqzero::NetworkConfig c;
  c.set_blocks(2);
  c.set_channels(16);
  c.set_se(se);
  c.set_global_pool(gp);
  c.set_history(history);
  c.set_value_hidden(32);
  return c;
}

// BatchNorm statistics away from their defaults, so tests exercise real eval-mode arithmetic.
Network tiny_net(const xqzero::NetworkConfig& c, uint64_t seed) { return ::xq::test::perturbed_net(c, seed, false); }

struct Inputs {
  std::vector<EvalInput> inputs;
  std::vector<EvalRequest> requests;
  Inputs(int n, uint64_t seed) {
    for (const Position& pos : test::random_positions(n, seed)) inputs.push_back(make_eval_input(pos, int(seed % 3)));
    for (const EvalInput& in : inputs) requests.push_back(in.request());
  }
};

TEST(Planes, ExpandMatchesTheEncoding) {
  const Position pos = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 60 1");
  const EvalInput in = make_eval_input(pos, 1);
  std::vector<uint8_t> bytes(compact_width(PlaneLayout{}));
  write_compact(in.request(), PlaneLayout{}, bytes.data());
  torch::Tensor compact = torch::from_blob(bytes.data(), {1, compact_width(PlaneLayout{})}, torch::kUInt8).clone();
  torch::Tensor planes = expand_planes(compact, PlaneLayout{}, torch::kFloat);
  ASSERT_EQ(planes.sizes(), (std::vector<int64_t>{1, input_planes(PlaneLayout{}), 10, 9}));
  EXPECT_EQ(input_planes(PlaneLayout{}), 18);
  // Black to move: own king (plane 0) on e0 of the view, opponent cannon (plane 7 + 5) on e7.
  EXPECT_EQ(planes[0][KING - 1][0][4].item<float>(), 1.0f);
  EXPECT_EQ(planes[0][7 + CANNON - 1][7][4].item<float>(), 1.0f);
  EXPECT_EQ(planes.narrow(1, 0, 14).sum().item<float>(), 32.0f);
  EXPECT_EQ(planes[0][14].mean().item<float>(), 1.0f);       // repetition >= 1
  EXPECT_EQ(planes[0][15].mean().item<float>(), 0.0f);       // repetition >= 2
  EXPECT_FLOAT_EQ(planes[0][16][3][3].item<float>(), 0.5f);  // 60 / 120
  EXPECT_EQ(planes[0][17].mean().item<float>(), 1.0f);
  for (int p = 0; p < 14; ++p)
    for (Square s = 0; s < SQUARE_NB; ++s)
      ASSERT_EQ(planes[0][p][rank_of(s)][file_of(s)].item<float>(), in.encoding.squares[s] == p + 1 ? 1.0f : 0.0f);
}

TEST(Network, ShapesParametersAndLabelLogits) {
  for (bool se : {false, true})
    for (bool gp : {false, true}) {
      Network net = tiny_net(tiny(se, gp), 1);
      net->eval();
      const Inputs in(3, 1);
      std::vector<uint8_t> bytes(3 * compact_width(PlaneLayout{}));
      for (int b = 0; b < 3; ++b)
        write_compact(in.requests[size_t(b)], PlaneLayout{}, bytes.data() + b * compact_width(PlaneLayout{}));
      torch::Tensor compact = torch::from_blob(bytes.data(), {3, compact_width(PlaneLayout{})}, torch::kUInt8).clone();
      auto out = net->forward_compact(compact);
      EXPECT_EQ(out.first.sizes(), (std::vector<int64_t>{3, kPolicyPlanes * SQUARE_NB}));
      EXPECT_EQ(out.second.sizes(), (std::vector<int64_t>{3, 3}));
      torch::Tensor logits = label_logits(out.first);
      EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{3, kNumLabels}));
      EXPECT_EQ(logits[1][100].item<float>(), out.first[1][label_policy_index(100)].item<float>());
      int64_t count = 0;
      for (const auto& p : net->parameters()) count += p.numel();
      EXPECT_EQ(net->parameter_count(), count);
      EXPECT_GT(count, 10000);
    }
}

TEST(TorchEvaluator, PriorsAreAMaskedSoftmaxOverLegalMoves) {
  TorchEvaluator eval(tiny_net(tiny(), 2), "cpu", "float32");
  const Inputs in(20, 2);
  std::vector<EvalResult> results(in.requests.size());
  eval.evaluate(in.requests, results);
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_EQ(results[i].priors.size(), size_t(in.requests[i].n_labels));
    EXPECT_NEAR(std::accumulate(results[i].priors.begin(), results[i].priors.end(), 0.0), 1.0, 1e-5);
    for (float p : results[i].priors) EXPECT_GT(p, 0.0f);
    EXPECT_NEAR(results[i].wdl[0] + results[i].wdl[1] + results[i].wdl[2], 1.0f, 1e-5);
  }
  // The masked softmax equals a softmax over the gathered legal logits of the dense output.
  Network net = eval.network();
  std::vector<uint8_t> bytes(compact_width(PlaneLayout{}));
  write_compact(in.requests[5], PlaneLayout{}, bytes.data());
  c10::InferenceMode guard;
  auto out =
      net->forward_compact(torch::from_blob(bytes.data(), {1, compact_width(PlaneLayout{})}, torch::kUInt8).clone());
  torch::Tensor dense = label_logits(out.first)[0];
  std::vector<int64_t> legal(in.requests[5].labels, in.requests[5].labels + in.requests[5].n_labels);
  torch::Tensor expected = torch::softmax(dense.index_select(0, torch::tensor(legal)), 0);
  for (size_t j = 0; j < legal.size(); ++j) EXPECT_NEAR(results[5].priors[j], expected[int64_t(j)].item<float>(), 1e-6);
}

TEST(TorchEvaluator, BatchedEqualsSingle) {
  for (int history : {0, 2}) {
    TorchEvaluator eval(tiny_net(tiny(true, true, history), 3), "cpu");
    // With history: each position's predecessors along the random game.
    const auto positions = test::random_positions(40, 3);
    std::vector<EvalInput> inputs;
    for (size_t i = 0; i < positions.size(); ++i) {
      std::vector<const Position*> hist;
      for (size_t k = 1; k <= size_t(history) && k <= i; ++k) hist.push_back(&positions[i - k]);
      inputs.push_back(make_eval_input(positions[i], int(i % 3), hist.data(), int(hist.size())));
    }
    std::vector<EvalRequest> requests;
    for (const auto& in : inputs) requests.push_back(in.request());
    std::vector<EvalResult> batched(requests.size());
    eval.evaluate(requests, batched);
    for (size_t i = 0; i < requests.size(); ++i) {
      EvalResult single;
      eval.evaluate_one(requests[i], single);
      ASSERT_EQ(single.priors.size(), batched[i].priors.size());
      for (size_t j = 0; j < single.priors.size(); ++j) EXPECT_NEAR(single.priors[j], batched[i].priors[j], 1e-5);
      for (size_t j = 0; j < 3; ++j) EXPECT_NEAR(single.wdl[j], batched[i].wdl[j], 1e-5);
    }
  }
}

TEST(TorchEvaluator, BatchingWrapperWithManyThreadsMatchesSingle) {
  auto eval = std::make_shared<TorchEvaluator>(tiny_net(tiny(), 4), "cpu");
  BatchingEvaluator batching(eval, {8, 500, 2});
  constexpr int kThreads = 4, kPer = 12;
  std::vector<Inputs> inputs;
  for (int t = 0; t < kThreads; ++t) inputs.emplace_back(kPer, 50 + t);
  std::vector<std::vector<EvalResult>> got(kThreads, std::vector<EvalResult>(kPer));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPer; ++i)
        batching.evaluate_one(inputs[size_t(t)].requests[size_t(i)], got[size_t(t)][size_t(i)]);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPer; ++i) {
      EvalResult single;
      eval->evaluate_one(inputs[size_t(t)].requests[size_t(i)], single);
      const EvalResult& b = got[size_t(t)][size_t(i)];
      ASSERT_EQ(single.priors.size(), b.priors.size());
      for (size_t j = 0; j < single.priors.size(); ++j) EXPECT_NEAR(single.priors[j], b.priors[j], 1e-5);
      for (size_t j = 0; j < 3; ++j) EXPECT_NEAR(single.wdl[j], b.wdl[j], 1e-5);
    }
  EXPECT_EQ(batching.positions(), uint64_t(kThreads * kPer));
}

TEST(TorchEvaluator, CloneGivesTheSameAnswers) {
  Network net = tiny_net(tiny(true), 5);
  Network copy = clone_network(net);
  TorchEvaluator a(net, "cpu"), b(copy, "cpu");
  const Inputs in(5, 5);
  for (const EvalRequest& r : in.requests) {
    EvalResult x, y;
    a.evaluate_one(r, x);
    b.evaluate_one(r, y);
    EXPECT_EQ(x.priors, y.priors);
    EXPECT_EQ(x.wdl, y.wdl);
  }
}

// copy_weights copies every parameter and BatchNorm statistic in place, and refuses a net of
// another shape by naming the tensor.
TEST(Network, CopyWeightsCopiesEverythingOrNamesTheMismatch) {
  const Network from = tiny_net(tiny(true, true), 5);
  Network into = make_network(tiny(true, true), 6);
  ASSERT_GT(::xq::test::max_difference(from, into), 0.0);
  copy_weights(from, into);
  EXPECT_EQ(::xq::test::max_difference(from, into), 0.0);

  Network narrower = make_network(tiny(false, true), 6);
  const Network narrower_before = clone_network(narrower);
  try {
    copy_weights(from, narrower);
    FAIL() << "a net without squeeze-excitation took the weights";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("copy_weights: the target network has no parameter "), std::string::npos) << e.what();
  }
  EXPECT_EQ(::xq::test::max_difference(narrower, narrower_before), 0.0) << "a refused copy changed the target";
  xqzero::NetworkConfig wider_config = tiny(true, true);
  wider_config.set_channels(24);
  Network wider = make_network(wider_config, 6);
  try {
    copy_weights(from, wider);
    FAIL() << "a wider net took the weights";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(" has another shape in the target network"), std::string::npos) << e.what();
  }
  try {
    copy_weights(narrower, into);
    FAIL() << "weights without squeeze-excitation filled a net with it";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("copy_weights: the source network has no parameter "), std::string::npos) << e.what();
  }
}

TEST(TorchEvaluator, PrecisionAndDeviceRules) {
  try {
    TorchEvaluator(make_network(tiny(), 1), "cpu", "float16");
    FAIL() << "float16 accepted on CPU";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("precision float16 needs a CUDA device; use float32 or bfloat16 on CPU"),
              std::string::npos)
        << e.what();
  }
  TorchEvaluator bf16(make_network(tiny(), 1), "cpu", "bfloat16");
  EXPECT_EQ(bf16.dtype(), torch::kBFloat16);
  EXPECT_EQ(bf16.describe(), "torch(cpu, bfloat16, 2x16, bn folded, channels-last)");
  EXPECT_THROW(TorchEvaluator(make_network(tiny(), 1), "cpu", "float64"), std::invalid_argument);
  EXPECT_THROW(TorchEvaluator(make_network(tiny(), 1), "gpu"), std::invalid_argument);
  // "auto" on CPU: what the timing on this machine chose (nn/precision_choice.h).
  Network auto_net = make_network(tiny(), 1);
  const std::string chosen = auto_cpu_precision(auto_net, 0);
  EXPECT_TRUE(chosen == "float32" || chosen == "bfloat16") << chosen;
  TorchEvaluator eval(auto_net, "cpu", "auto");
  EXPECT_EQ(eval.dtype(), chosen == "bfloat16" ? torch::kBFloat16 : torch::kFloat);
  TorchEvaluator f32(make_network(tiny(), 1), "cpu", "float32");
  EXPECT_EQ(f32.describe(), "torch(cpu, float32, 2x16, bn folded, channels-last)");
  if (torch::cuda::is_available()) {
    TorchEvaluator gpu(make_network(tiny(), 1), "cuda", "auto");
    EXPECT_EQ(gpu.dtype(), torch::kHalf);
  }
}

// The first "auto" evaluator of an architecture in a process (no cache file) times it once,
// prints the figures once to the precision log, and leaves torch's generator as it was.
TEST(TorchEvaluator, AutoPrecisionIsMeasuredOnceAndLeavesNoTrace) {
  const char* before = std::getenv("XQZERO_PRECISION_CACHE");
  const std::string saved = before ? before : "";
  ::setenv("XQZERO_PRECISION_CACHE", "none", 1);
  std::ostringstream log;
  set_precision_log(&log);
  xqzero::NetworkConfig c = tiny();
  c.set_blocks(1);
  c.set_channels(24);  // an architecture no other test of this process times
  Network net = make_network(c, 1);
  torch::manual_seed(5);
  TorchEvaluator first(net, "cpu", "auto");
  const torch::Tensor after_measuring = torch::rand({4});
  torch::manual_seed(5);
  EXPECT_TRUE(torch::equal(after_measuring, torch::rand({4}))) << "measuring drew from torch's generator";
  TorchEvaluator second(make_network(c, 2), "cpu", "auto");
  EXPECT_EQ(first.dtype(), second.dtype());
  set_precision_log(nullptr);
  if (before)
    ::setenv("XQZERO_PRECISION_CACHE", saved.c_str(), 1);
  else
    ::unsetenv("XQZERO_PRECISION_CACHE");
  const std::string text = log.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_NE(text.find("precision auto: inference 1x24"), std::string::npos) << text;
  EXPECT_NE(text.find("float32 "), std::string::npos) << text;
  EXPECT_NE(text.find(first.dtype() == torch::kBFloat16 ? "-> bfloat16" : "-> float32"), std::string::npos) << text;
}

TEST(Network, RejectsBadArchitectures) {
  xqzero::NetworkConfig c = tiny();
  c.set_blocks(0);
  try {
    Network net(c);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("network.blocks = 0 is out of range 1..64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace xq::nn
