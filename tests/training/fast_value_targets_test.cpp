// Value-only samples (training.fast_value_targets): the fast searches' moves of playout cap
// randomisation as samples without a policy target, and the trainer's policy loss over the
// samples that have one.
#include <gtest/gtest.h>
#include "tests/support/tiny_net.h"
#include "tests/support/training_data.h"

#include "core/move_parse.h"
#include "records/record_io.h"
#include "training/trainer.h"

namespace xq::training {
namespace {

using test::cpu_training;
using test::some_games;

// training.fast_value_targets: every move is a sample; the fast searches' moves are
// value-only (no policy entries), the full searches' ones are the same samples as without it.
TEST(TrainingPosition, FastMovesBecomeValueOnlySamplesWhenAsked) {
  int fast = 0;
  for (const auto& g : some_games(4, 0.5f)) {
    const auto targets = positions_of(g);
    const auto all = positions_of(g, true);
    ASSERT_EQ(int(all.size()), g.moves_size());
    Game game(g.start_fen(), records::record_settings(g));
    size_t k = 0;
    for (int i = 0; i < g.moves_size(); ++i) {
      const auto& m = g.moves(i);
      const TrainingPosition& p = all[size_t(i)];
      EXPECT_EQ(p.encoding, nn::encode(game.position(), game.repetition_count()));
      if (m.training_target()) {
        const TrainingPosition& t = targets[k++];
        EXPECT_EQ(p.n_policy, t.n_policy);
        EXPECT_EQ(p.material, t.material);
        for (int e = 0; e < p.n_policy; ++e) EXPECT_EQ(p.weights[e], t.weights[e]);
      } else {
        ++fast;
        EXPECT_EQ(p.n_policy, 0) << "a fast move is a value-only sample";
        const int expected =
            g.result() == "1/2-1/2" ? 0 : ((g.result() == "1-0") == (game.side_to_move() == RED) ? 1 : -1);
        EXPECT_EQ(p.result, expected);
      }
      game.play(parse_legal_move(game.position(), m.move()));
    }
    EXPECT_EQ(k, targets.size());
  }
  EXPECT_GT(fast, 0) << "the games should contain fast moves";
}

// Value-only samples (n_policy 0) add nothing to the policy loss, nor to its count: a batch
// with them has the policy loss and target entropy of its policy-bearing samples alone.
TEST(Trainer, ValueOnlySamplesLeaveThePolicyLossToTheOthers) {
  std::vector<TrainingPosition> batch = test::some_batch(4, 32);
  std::vector<TrainingPosition> mixed = batch;
  for (TrainingPosition p : batch) {
    p.n_policy = 0;
    mixed.push_back(p);
  }
  Trainer trainer(::xq::test::tiny_net_config(), cpu_training());
  const StepLosses alone = trainer.measure(batch), with = trainer.measure(mixed);
  EXPECT_NEAR(with.policy, alone.policy, 1e-4);
  EXPECT_NEAR(with.policy_entropy, alone.policy_entropy, 1e-9);
  EXPECT_GT(alone.policy, 0.5);
  // A batch of value-only samples trains the value: its policy loss is 0, its value loss falls.
  std::vector<TrainingPosition> values(mixed.begin() + std::ptrdiff_t(batch.size()), mixed.end());
  const StepLosses first = trainer.step(values);
  StepLosses last;
  for (int i = 0; i < 30; ++i) last = trainer.step(values);
  EXPECT_EQ(first.policy, 0.0);
  EXPECT_EQ(last.policy, 0.0);
  EXPECT_LT(last.value, first.value);
}

}  // namespace
}  // namespace xq::training
