// Data-parallel training over c10d/Gloo: two ranks in one process (a thread each) on
// 127.0.0.1, against one trainer that sees both ranks' batches.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "records/record_io.h"
#include "tests/support/free_port.h"
#include "tests/support/tiny_net.h"
#include "tests/support/training_data.h"
#include "training/collective.h"
#include "training/trainer.h"
#include "training/training_position.h"

namespace xq::training {
namespace {

DistributedOptions rank_options(int rank, int port) {
  DistributedOptions o;
  o.world_size = 2;
  o.rank = rank;
  o.master_addr = "127.0.0.1";
  o.master_port = port;
  o.timeout_s = 60;
  return o;
}

xqzero::NetworkConfig net_config() {
  xqzero::NetworkConfig n = ::xq::test::tiny_net_config();
  n.set_global_pool(true);
  n.set_material_head(true);
  return n;
}

xqzero::TrainingConfig training_config(uint64_t seed) {
  xqzero::TrainingConfig t = test::cpu_training();  // float32: the same kernels on every rank
  t.set_seed(int64_t(seed));  // different initial weights: join() must make them rank 0's
  return t;
}

TEST(Collective, OptionsFromFlagsAndEnvironment) {
  DistributedOptions o;
  parse_master("10.0.0.7:1234", o);
  EXPECT_EQ(o.master_addr, "10.0.0.7");
  EXPECT_EQ(o.master_port, 1234);
  EXPECT_THROW(parse_master("10.0.0.7", o), DistributedError);
  EXPECT_THROW(parse_master("host:70000", o), DistributedError);
  ::setenv("WORLD_SIZE", "4", 1);
  ::setenv("RANK", "3", 1);
  ::setenv("MASTER_ADDR", "trainer0", 1);
  ::setenv("MASTER_PORT", "29511", 1);
  ::setenv("LOCAL_RANK", "1", 1);
  read_distributed_environment(o);
  EXPECT_EQ(o.world_size, 4);
  EXPECT_EQ(o.rank, 3);
  EXPECT_EQ(o.master_addr, "trainer0");
  EXPECT_EQ(o.master_port, 29511);
  EXPECT_EQ(o.local_rank, 1);
  EXPECT_NO_THROW(validate_distributed(o));
  ::setenv("RANK", "x", 1);
  try {
    read_distributed_environment(o);
    ADD_FAILURE() << "RANK=x accepted";
  } catch (const DistributedError& e) {
    EXPECT_NE(std::string(e.what()).find("RANK"), std::string::npos) << e.what();
  }
  for (const char* v : {"WORLD_SIZE", "RANK", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"}) ::unsetenv(v);
  // A CPU trainer keeps its device and sends its tensors through the host.
  EXPECT_EQ(rank_device("cpu", o), (RankDevice{"cpu", false}));
  o.rank = 4;
  EXPECT_THROW(validate_distributed(o), DistributedError);
}

// After every step the two ranks hold identical weights (equal checksums), and they train
// like one trainer stepping on both ranks' batches as two parts: each step's loss, which the
// weights of the step before decide, is the same within float tolerance (the sums run in
// another order).
TEST(Collective, TwoRanksTrainAsOneOnTheUnionOfTheirBatches) {
  if (!distributed_available()) GTEST_SKIP() << "this build has no c10d/Gloo";
  std::vector<TrainingPosition> all;
  for (const auto& g : test::some_games(6, 1.0f))
    for (const auto& p : positions_of(g)) all.push_back(p);
  constexpr int kSteps = 4, kShare = 16;
  ASSERT_GE(all.size(), size_t(2 * kSteps * kShare));
  auto part = [&](int step, int rank) {
    const auto first = all.begin() + (2 * step + rank) * kShare;
    return std::vector<TrainingPosition>(first, first + kShare);
  };

  Trainer reference(net_config(), training_config(7));
  const int port = ::xq::test::free_port();
  uint64_t sums[2][kSteps] = {};
  double losses[2][kSteps] = {};
  std::string errors[2];
  // Built here, not in the threads: making a net draws from torch's global generator.
  Trainer trainers[2] = {Trainer(net_config(), training_config(7)), Trainer(net_config(), training_config(99))};
  auto rank_main = [&](int rank) {
    try {
      auto collective = Collective::connect(rank_options(rank, port));
      Trainer& trainer = trainers[rank];
      trainer.join(*collective);
      for (int s = 0; s < kSteps; ++s) {
        losses[rank][s] = trainer.step(part(s, rank)).policy;
        trainer.average_buffers();  // BatchNorm statistics: each rank's own until averaged
        sums[rank][s] = trainer.weights_checksum();
      }
      EXPECT_EQ(trainer.samples_trained(), int64_t(2 * kSteps * kShare));
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  };
  std::thread r1(rank_main, 1);
  rank_main(0);
  r1.join();
  ASSERT_EQ(errors[0], "");
  ASSERT_EQ(errors[1], "");
  for (int s = 0; s < kSteps; ++s) EXPECT_EQ(sums[0][s], sums[1][s]) << "the ranks' weights differ after step " << s;

  // One process, both parts per step: the gradient of the mean of the parts' losses.
  for (int s = 0; s < kSteps; ++s) {
    const StepLosses l = reference.step_split({part(s, 0), part(s, 1)});
    EXPECT_NEAR(l.policy, 0.5 * (losses[0][s] + losses[1][s]), 1e-4) << "step " << s;
  }
}

}  // namespace
}  // namespace xq::training
