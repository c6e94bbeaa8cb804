// Weight averaging (training.ema_decay): checkpoints carry the moving average of the trained
// weights, the trained weights ride in a section of their own, and a resumed run goes on
// with both exactly.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "nn/checkpoint.h"
#include "tests/support/net_state.h"
#include "tests/support/tiny_net.h"
#include "tests/support/training_data.h"
#include "training/trainer.h"

namespace fs = std::filesystem;

namespace xq::training {
namespace {

using test::cpu_training;
using ::xq::test::max_difference;
using ::xq::test::net_state;


// The network a checkpoint carries and, when it has them, its trained weights.
struct Saved {
  nn::Network average{nullptr}, trained{nullptr};
};

Saved read_saved(const std::string& path) {
  Saved s;
  s.average = nn::load_network(path);
  nn::CheckpointSections sections;
  nn::read_checkpoint(path, &sections);
  if (sections.count("trained_weights")) {
    s.trained = nn::Network(s.average->config());
    nn::load_weights_bytes(path, "trained_weights", sections["trained_weights"], s.trained);
  }
  return s;
}

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("xqzero_ema_" + std::to_string(::getpid()) + "_" + name + ".xqz")).string();
}

// After each step the average is d * average + (1 - d) * trained with d = min(decay,
// (1 + t) / (10 + t)) at step t, for the parameters and the BatchNorm statistics; the
// checkpoint's network is that average and its trained weights are the trainer's own.
TEST(WeightAverage, CheckpointCarriesTheAverageOfTheTrainedWeights) {
  const std::vector<TrainingPosition> batch = test::some_batch(4, 32);
  ASSERT_EQ(batch.size(), 32u);
  xqzero::TrainingConfig t = cpu_training();
  t.set_ema_decay(0.15f);
  Trainer trainer(xq::test::tiny_net_config(), t);
  std::mt19937_64 rng(1);
  std::vector<Saved> saved;
  for (int step = 0; step <= 3; ++step) {
    if (step > 0) trainer.step(batch);
    const std::string path = temp_path(std::to_string(step));
    trainer.save(path, "test", rng);
    saved.push_back(read_saved(path));
    fs::remove(path);
    ASSERT_FALSE(saved.back().trained.is_empty()) << "step " << step << ": no trained_weights section";
  }
  EXPECT_EQ(max_difference(saved[0].average, saved[0].trained), 0.0) << "the average starts at the weights";
  for (int step = 1; step <= 3; ++step) {
    const double d = std::min(0.15, (1.0 + (step - 1)) / (10.0 + (step - 1)));  // 0.1, then the cap
    const std::vector<torch::Tensor> before = net_state(saved[size_t(step) - 1].average);
    const std::vector<torch::Tensor> trained = net_state(saved[size_t(step)].trained);
    std::vector<torch::Tensor> expected;
    for (size_t i = 0; i < before.size(); ++i) expected.push_back(d * before[i] + (1 - d) * trained[i]);
    EXPECT_LT(max_difference(net_state(saved[size_t(step)].average), expected), 1e-6) << "step " << step;
    EXPECT_GT(max_difference(net_state(saved[size_t(step)].average), trained), 1e-4)
        << "step " << step << ": the average is not the trained weights";
  }
}

// Stopped after 5 steps and resumed, a trainer that averages ends 3 steps later where one
// that never stopped does: the same average and the same trained weights.
TEST(WeightAverage, ResumesExactly) {
  const std::vector<TrainingPosition> batch = test::some_batch(4, 32);
  xqzero::TrainingConfig t = cpu_training();
  t.set_ema_decay(0.9f);
  const std::string mid = temp_path("mid"), straight = temp_path("straight"), resumed = temp_path("resumed");
  std::mt19937_64 rng(1);
  Trainer a(xq::test::tiny_net_config(), t);
  for (int i = 0; i < 5; ++i) a.step(batch);
  a.save(mid, "test", rng);
  for (int i = 0; i < 3; ++i) a.step(batch);
  a.save(straight, "test", rng);

  Trainer b(xq::test::tiny_net_config(), t);
  b.load(mid, rng);
  for (int i = 0; i < 3; ++i) b.step(batch);
  b.save(resumed, "test", rng);
  const Saved x = read_saved(straight), y = read_saved(resumed);
  for (const std::string& p : {mid, straight, resumed}) fs::remove(p);
  ASSERT_FALSE(x.trained.is_empty() || y.trained.is_empty());
  EXPECT_LT(max_difference(x.average, y.average), 1e-6);
  EXPECT_LT(max_difference(x.trained, y.trained), 1e-6);
  EXPECT_GT(max_difference(x.average, x.trained), 1e-4);
}

// Without averaging a checkpoint is what it was (no extra section: its network is the trained
// weights). A trainer that averages, resumed from such a checkpoint, starts its average there;
// one that does not, resumed from an averaging run's checkpoint, trains on its trained weights.
TEST(WeightAverage, SwitchesOnAndOffAcrossAResume) {
  const std::vector<TrainingPosition> batch = test::some_batch(4, 32);
  xqzero::TrainingConfig plain = cpu_training(), averaging = cpu_training();
  averaging.set_ema_decay(0.9f);
  const std::string p = temp_path("plain"), q = temp_path("switched_on"), r = temp_path("averaged"),
                    s = temp_path("switched_off");
  std::mt19937_64 rng(1);
  Trainer a(xq::test::tiny_net_config(), plain);
  for (int i = 0; i < 3; ++i) a.step(batch);
  a.save(p, "test", rng);
  const Saved plain_saved = read_saved(p);
  EXPECT_TRUE(plain_saved.trained.is_empty()) << "a checkpoint without averaging has no trained_weights section";

  Trainer on(xq::test::tiny_net_config(), averaging);
  on.load(p, rng);
  on.save(q, "test", rng);
  const Saved on_saved = read_saved(q);
  ASSERT_FALSE(on_saved.trained.is_empty());
  EXPECT_EQ(max_difference(on_saved.average, plain_saved.average), 0.0);
  EXPECT_EQ(max_difference(on_saved.trained, plain_saved.average), 0.0);

  for (int i = 0; i < 3; ++i) on.step(batch);
  on.save(r, "test", rng);
  const Saved averaged = read_saved(r);
  Trainer off(xq::test::tiny_net_config(), plain);
  off.load(r, rng);
  off.save(s, "test", rng);
  const Saved off_saved = read_saved(s);
  for (const std::string& f : {p, q, r, s}) fs::remove(f);
  ASSERT_FALSE(averaged.trained.is_empty());
  EXPECT_TRUE(off_saved.trained.is_empty());
  EXPECT_EQ(max_difference(off_saved.average, averaged.trained), 0.0);
  EXPECT_GT(max_difference(averaged.average, averaged.trained), 1e-4);
}

}  // namespace
}  // namespace xq::training
