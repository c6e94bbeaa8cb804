// Training data for the training tests: self-play games of the test evaluator, and a CPU
// trainer configuration.
#pragma once

#include <vector>

#include "config.pb.h"
#include "nn/evaluator.h"
#include "selfplay/selfplay.h"
#include "training/trainer.h"
#include "training/training_position.h"

namespace xq::training::test {

// n games of self-play with the deterministic test evaluator (8/2 visits, 40-ply cap);
// full_fraction of the moves are full searches (training targets).
inline std::vector<xqzero::GameRecord> some_games(int n, float full_fraction = 0.5f) {
  selfplay::SelfplayOptions o;
  o.threads = 1;
  o.games_per_thread = 4;
  o.full_visits = 8;
  o.fast_visits = 2;
  o.full_fraction = full_fraction;
  o.game.length_cap = 40;
  nn::TestEvaluator evaluator(1);
  std::vector<xqzero::GameRecord> games;
  selfplay::SelfplayRunner runner(o, evaluator, [&](xqzero::GameRecord&& g) { games.push_back(std::move(g)); });
  runner.run(uint64_t(n));
  return games;
}

// The first `size` training positions (all, if fewer) of n such games, in order (with
// fast_value_targets their fast moves' value-only samples too). Unlike some_games, every move
// is a full search unless full_fraction says otherwise.
inline std::vector<TrainingPosition> some_batch(int n, size_t size, float full_fraction = 1.0f,
                                                bool fast_value_targets = false) {
  std::vector<TrainingPosition> batch;
  for (const auto& g : some_games(n, full_fraction))
    for (const auto& p : positions_of(g, fast_value_targets)) batch.push_back(p);
  if (batch.size() > size) batch.resize(size);
  return batch;
}

// A one-thread float32 CPU trainer with a learning rate that moves a tiny net in a few steps.
// The precision is fixed: "auto" would pick bfloat16 or float32 by a timing on the machine, and
// a loss bound that holds in one may not in the other (ShortValueHeadLearnsOnAFixedBatch failed
// every time in bfloat16 on a 2-core AMD EPYC).
inline xqzero::TrainingConfig cpu_training() {
  xqzero::TrainingConfig t;
  t.set_device("cpu");
  t.set_threads(1);
  t.set_precision("float32");
  t.set_learning_rate(0.05f);
  return t;
}

// The losses of a fresh trainer of `net` (cpu_training) on `batch`: at its first step, and at
// the last of `steps` more on the same batch.
struct FirstAndLast {
  StepLosses first, last;
};
inline FirstAndLast train_on(const xqzero::NetworkConfig& net, const std::vector<TrainingPosition>& batch, int steps = 60) {
  Trainer trainer(net, cpu_training());
  FirstAndLast out;
  out.first = trainer.step(batch);
  for (int i = 0; i < steps; ++i) out.last = trainer.step(batch);
  return out;
}

}  // namespace xq::training::test
