// The sanity check of the network and its encoding, independent of self-play: the small net
// of the tiny configuration's shape (global pooling in the value head), trained on random
// positions labelled by the sign of the material balance, must learn to tell who is ahead.
// If it cannot, the network or the encoding is broken, not the self-play loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/game.h"
#include "core/movegen.h"
#include "nn/evaluator_factory.h"
#include "nn/policy_labels.h"
#include "nn/precision_choice.h"
#include "training/trainer.h"

namespace fs = std::filesystem;

namespace xq::training {
namespace {

// Random positions from random games in which captures are preferred, so that material
// balances of both signs and of many sizes occur.
std::vector<Position> random_positions(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  while (int(out.size()) < n) {
    Position pos = Position::from_fen(Position::kStartFen);
    const int plies = 8 + int(rng() % 60);
    bool ok = true;
    for (int k = 0; k < plies && ok; ++k) {
      MoveList moves(pos);
      if (moves.empty()) {
        ok = false;
        break;
      }
      std::vector<Move> captures;
      for (Move m : moves)
        if (pos.piece_on(m.to()) != NO_PIECE) captures.push_back(m);
      const bool capture = !captures.empty() && rng() % 2 == 0;
      const Move m = capture ? captures[rng() % captures.size()] : moves[int(rng() % uint64_t(moves.size()))];
      UndoInfo undo;
      pos.do_move(m, undo);
    }
    if (ok && !MoveList(pos).empty()) out.push_back(pos);
  }
  return out;
}

int material_sign(const Position& pos) {
  const int d = material_half_pawns(pos, pos.side_to_move()) - material_half_pawns(pos, ~pos.side_to_move());
  return d > 0 ? 1 : d < 0 ? -1 : 0;
}

TrainingPosition sample_of(const Position& pos) {
  TrainingPosition p{};
  p.encoding = nn::encode(pos, 0);
  p.result = int8_t(material_sign(pos));
  p.termination = uint8_t(Termination::CHECKMATE);
  uint16_t labels[MAX_MOVES];
  p.n_policy = uint8_t(std::min(nn::legal_labels(pos, labels), kMaxPolicyEntries));
  for (int i = 0; i < p.n_policy; ++i) {
    p.labels[i] = labels[i];
    p.weights[i] = 1000;  // uniform: the policy is not what is tested here
  }
  p.root_value = 32768;
  return p;
}

constexpr int kFitSteps = 400;

// Trains the small net in `precision` (batches drawn with `seed`) and returns its accuracy on
// unseen positions, with the majority-class share in *chance_out.
int fit_steps() {
  const char* e = std::getenv("XQZERO_FIT_STEPS");  // for DISABLED_Spread's measurements
  return e ? std::atoi(e) : kFitSteps;
}

double fit_accuracy(const std::string& precision, uint64_t seed, double* chance_out) {
  const std::vector<Position> train = random_positions(3000, 1), test = random_positions(400, 2);
  std::vector<TrainingPosition> samples;
  for (const Position& p : train) samples.push_back(sample_of(p));

  xqzero::NetworkConfig net;
  net.set_blocks(1);
  net.set_channels(16);
  net.set_value_hidden(32);
  net.set_global_pool(true);
  xqzero::TrainingConfig t;
  t.set_device("cpu");
  t.set_threads(1);
  t.set_optimizer("adamw");
  t.set_learning_rate(3e-3f);
  t.set_weight_decay(0);
  t.set_precision(precision);
  Trainer trainer(net, t);
  std::mt19937_64 rng(seed);
  std::vector<TrainingPosition> batch;
  for (int step = 0, steps = fit_steps(); step < steps; ++step) {
    batch.clear();
    for (int i = 0; i < 64; ++i) batch.push_back(samples[rng() % samples.size()]);
    trainer.step(batch);
  }
  const std::string path =
      (fs::temp_directory_path() / ("xqzero_material_" + std::to_string(::getpid()) + ".xqz")).string();
  trainer.save(path, "material fit", rng);

  // Accuracy through the inference path (the evaluator search uses), on unseen positions.
  xqzero::EvaluatorConfig ec;
  ec.set_device("cpu");
  ec.set_threads(1);
  ec.set_max_batch(1);
  ec.set_cache_entries(0);
  ec.set_weights(path);
  auto evaluator = nn::make_evaluator(ec, net);
  int correct = 0, counts[3] = {0, 0, 0};
  for (const Position& pos : test) {
    const nn::EvalInput in = nn::make_eval_input(pos, 0);
    const nn::EvalRequest req = in.request();
    nn::EvalResult r;
    evaluator->evaluate(nn::Span<const nn::EvalRequest>(&req, 1), nn::Span<nn::EvalResult>(&r, 1));
    const int predicted = r.wdl[0] >= r.wdl[1] && r.wdl[0] >= r.wdl[2] ? 1 : (r.wdl[2] >= r.wdl[1] ? -1 : 0);
    const int truth = material_sign(pos);
    correct += predicted == truth;
    ++counts[truth + 1];
  }
  fs::remove(path);
  const double accuracy = double(correct) / double(test.size());
  const double chance = double(std::max({counts[0], counts[1], counts[2]})) / double(test.size());
  std::printf("material fit (%s): accuracy %.3f on %zu unseen positions, majority class %.3f\n", precision.c_str(),
              accuracy, test.size(), chance);
  *chance_out = chance;
  return accuracy;
}

// The median accuracy over seven batch orders. One run of 400 steps is noisy (over ten orders
// float32 ranged 0.73-0.89, bfloat16 0.63-0.91 on an AMX CPU and 0.72-0.92 with oneDNN held to
// AVX512-BF16 kernels), and the bfloat16 kernels of CPUs with and without AMX round
// differently, so a median of three orders crossed a fixed bound on one kind of machine.
double median_accuracy(const std::string& precision, double* chance) {
  std::vector<double> a;
  for (uint64_t seed = 3; seed < 10; ++seed) a.push_back(fit_accuracy(precision, seed, chance));
  std::sort(a.begin(), a.end());
  return a[3];
}

TEST(MaterialFit, SmallNetLearnsWhoIsAhead) {
  double chance = 1;
  const double accuracy = median_accuracy("float32", &chance);
  EXPECT_LT(chance, 0.6) << "the test set should not be dominated by one class";
  EXPECT_GT(accuracy, chance + 0.20) << "median accuracy " << accuracy << ", majority class " << chance;
}

// What the bfloat16 trainer (tower under autocast, heads in float32) must do: learn the
// material sign about as well as float32 on the same data and batch orders. Measured medians
// of seven orders: float32 0.825; bfloat16 0.815 with AVX512-BF16 kernels (ONEDNN_MAX_CPU_ISA=
// AVX512_CORE_BF16, the same figures as a Xeon without AMX gave), see the commit for AMX; on a
// real CPU with AVX512-BF16 and no AMX (AMD EPYC, 2026-12-04): float32 0.838, bfloat16 0.830
// (orders 0.70-0.90 in both), a difference of -0.008 against the margin's -0.08.
// Skipped on a CPU without AVX512-BF16 or AMX: there oneDNN emulates bfloat16 (an AMD EPYC with
// AVX2 only ran the tiny net 27x slower in bfloat16 than in float32), "auto" never chooses it,
// and the fourteen fits took over the suite's 300 s per test.
TEST(MaterialFit, Bfloat16LearnsAsWellAsFloat32) {
  if (!nn::cpu_info().native_bfloat16())
    GTEST_SKIP() << "bfloat16 is emulated on this CPU (" << nn::cpu_info().model << ": no avx512_bf16 or amx_bf16)";
  double chance = 1;
  const double bf16 = median_accuracy("bfloat16", &chance);
  const double f32 = median_accuracy("float32", &chance);
  EXPECT_GT(bf16, chance + 0.20) << "median accuracy " << bf16 << ", majority class " << chance;
  EXPECT_GT(bf16, f32 - 0.08) << "bfloat16 " << bf16 << " against float32 " << f32;
}

// Not part of the suite: the spread of the accuracies over ten batch orders in both
// precisions, for choosing the tests' margins on each kind of CPU (run it with
// --gtest_also_run_disabled_tests; XQZERO_FIT_STEPS changes the steps; ONEDNN_MAX_CPU_ISA,
// e.g. AVX512_CORE_BF16 or AVX2, makes oneDNN use the kernels of a CPU without AMX or bf16).
TEST(MaterialFit, DISABLED_Spread) {
  for (const char* precision : {"float32", "bfloat16"}) {
    std::vector<double> a;
    double chance = 1;
    for (uint64_t seed = 3; seed < 13; ++seed) a.push_back(fit_accuracy(precision, seed, &chance));
    std::sort(a.begin(), a.end());
    std::printf("spread %s: min %.3f median %.3f max %.3f\n", precision, a.front(), (a[4] + a[5]) / 2, a.back());
  }
}

}  // namespace
}  // namespace xq::training
