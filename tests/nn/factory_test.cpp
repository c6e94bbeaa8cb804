// make_evaluator: backends and wrappers chosen by config, bad configs rejected by name.
#include <gtest/gtest.h>

#include <thread>

#include "nn/evaluator_factory.h"
#include "nn/net_config.h"
#include "tests/support/nn_test_util.h"
#include "tests/support/tiny_net.h"

namespace xq::nn {
namespace {

xqzero::NetworkConfig tiny() { return ::xq::test::tiny_net_config(); }

std::string error_of(const xqzero::EvaluatorConfig& ec, const xqzero::NetworkConfig& nc = tiny()) {
  try {
    make_evaluator(ec, nc);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Factory, StacksWrappersByConfig) {
  xqzero::EvaluatorConfig ec;
  ec.set_name("uniform");
  EXPECT_EQ(make_evaluator(ec)->describe().find("cache("), 0u);
  ec.set_cache_entries(0);
  EXPECT_EQ(make_evaluator(ec)->describe(), "uniform");
  ec.set_name("test");
  ec.set_max_batch(4);
  EXPECT_EQ(make_evaluator(ec)->describe(), "batching(max 4, 1000 us) <- test");
  ec.set_name("torch");
  ec.set_device("cpu");
  ec.set_max_batch(1);
  ec.set_precision("float32");
  EXPECT_EQ(make_evaluator(ec, tiny())->describe(), "torch(cpu, float32, 1x8, bn folded, channels-last)");
}

TEST(Factory, BatchesNoLargerThanWhatCanBeInFlight) {
  xqzero::EvaluatorConfig ec;
  ec.set_name("test");
  ec.set_cache_entries(0);
  ec.set_max_batch(64);
  EXPECT_EQ(make_evaluator(ec, tiny(), 12)->describe(), "batching(max 12, 1000 us) <- test");
  EXPECT_EQ(make_evaluator(ec, tiny(), 100)->describe(), "batching(max 64, 1000 us) <- test");
  EXPECT_EQ(make_evaluator(ec, tiny(), 1)->describe(), "test") << "one leaf at a time needs no batching";
  // Self-play's threads: a partial batch goes once all of them wait.
  EXPECT_EQ(make_evaluator(ec, tiny(), Callers(128, 3))->describe(), "batching(max 64, 1000 us, 3 callers) <- test");
}

TEST(Factory, WeightsNameUniformOrACheckpointOfItsOwnArchitecture) {
  EXPECT_FALSE(is_uniform_weights("")) << "empty names the bundled net: uniform only by name";
  EXPECT_TRUE(is_uniform_weights("Uniform"));
  EXPECT_TRUE(is_uniform_weights("<uniform>"));
  EXPECT_FALSE(is_uniform_weights("net.xqz"));
  xqzero::EvaluatorConfig ec;
  ec.set_max_batch(8);
  EXPECT_EQ(make_weights_evaluator("uniform", ec, 4)->describe(), "uniform");
  EXPECT_THROW(make_weights_evaluator("/nonexistent/net.xqz", ec), std::runtime_error);
}

TEST(Factory, FullStackAnswersFromManyThreads) {
  xqzero::EvaluatorConfig ec;
  ec.set_name("torch");
  ec.set_device("cpu");
  ec.set_max_batch(8);
  ec.set_deadline_us(200);
  ec.set_cache_entries(1000);
  auto e = make_evaluator(ec, tiny());
  const auto positions = test::random_positions(32, 4);
  std::vector<std::thread> threads;
  std::vector<EvalResult> results(positions.size());
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = size_t(t); i < positions.size(); i += 4) {
        const EvalInput in = make_eval_input(positions[i]);
        e->evaluate_one(in.request(), results[i]);
      }
    });
  for (auto& th : threads) th.join();
  for (size_t i = 0; i < positions.size(); ++i) {
    EXPECT_EQ(results[i].priors.size(), size_t(MoveList(positions[i]).size()));
    EXPECT_NEAR(results[i].wdl[0] + results[i].wdl[1] + results[i].wdl[2], 1.0f, 1e-4);
  }
}

TEST(Factory, BadConfigsAreNamed) {
  xqzero::EvaluatorConfig ec;
  ec.set_name("magic");
  EXPECT_NE(error_of(ec).find("evaluator.name = \"magic\""), std::string::npos);
  ec.set_name("torch");
  ec.set_max_batch(0);
  EXPECT_NE(error_of(ec).find("evaluator.max_batch = 0 is out of range"), std::string::npos);
  ec.set_max_batch(8);
  ec.set_device("tpu");
  EXPECT_NE(error_of(ec).find("bad device 'tpu'"), std::string::npos);
  ec.set_device("cpu");
  ec.set_precision("float16");
  EXPECT_NE(error_of(ec).find("needs a CUDA device"), std::string::npos);
  ec.set_precision("auto");
  xqzero::NetworkConfig nc = tiny();
  nc.set_channels(4);
  EXPECT_NE(error_of(ec, nc).find("network.channels = 4 is out of range 8..512"), std::string::npos);
}

TEST(NetConfig, ArchitectureDifferenceListsEveryField) {
  xqzero::NetworkConfig a, b;
  EXPECT_EQ(architecture_difference(a, b), "");
  b.set_blocks(6);  // explicitly the default: no difference
  EXPECT_EQ(architecture_difference(a, b), "");
  b.set_channels(128);
  b.set_history(2);
  EXPECT_EQ(architecture_difference(a, b), "channels: 64 vs 128; history: 0 vs 2");
  EXPECT_EQ(short_name(b), "6x128 h2");
}

// evaluator.devices: one evaluator per listed device (CPU devices standing in for GPUs).
TEST(Factory, OneEvaluatorPerDevice) {
  xqzero::EvaluatorConfig ec;
  ec.set_device("cpu");
  EXPECT_EQ(evaluator_devices(ec), std::vector<std::string>{"cpu"});
  ec.set_devices("cpu, cpu");
  EXPECT_EQ(evaluator_devices(ec), (std::vector<std::string>{"cpu", "cpu"}));
  ec.set_name("torch");
  ec.set_precision("float32");
  ec.set_max_batch(8);
  const auto nets = make_evaluators(ec, tiny(), Callers(10, 3));
  ASSERT_EQ(nets.size(), 2u);
  EXPECT_NE(nets[0].get(), nets[1].get());
  for (const auto& e : nets) EXPECT_EQ(e->describe().find("cache("), 0u) << e->describe();
  EXPECT_NE(nets[0]->describe().find("batching(max 5, 1000 us, 2 callers)"), std::string::npos)
      << "each gets half of 10 in flight and of 3 threads, rounded up: " << nets[0]->describe();
  // The two copies of the same fresh net answer alike.
  const Position start;
  const EvalInput in = make_eval_input(start, 0);
  const EvalRequest req = in.request();
  EvalResult a, b;
  nets[0]->evaluate(Span<const EvalRequest>(&req, 1), Span<EvalResult>(&a, 1));
  nets[1]->evaluate(Span<const EvalRequest>(&req, 1), Span<EvalResult>(&b, 1));
  for (int k = 0; k < 3; ++k) EXPECT_FLOAT_EQ(a.wdl[k], b.wdl[k]);
  ec.set_devices("cpu,,cpu");
  EXPECT_NE(error_of(ec).find("evaluator.devices 'cpu,,cpu' has an empty entry"), std::string::npos) << error_of(ec);
}

}  // namespace
}  // namespace xq::nn
