// The centipawn scale (app/uci/score.h) belongs to the bundled net: refit with
// scripts/fit_cp_scale.py whenever nets/xqzero-default.xqz changes. This test fits it again on
// the raw net in float32, as that script does (v = tanh(cp / S) by least squares over the
// positions of docs/evalset-fsf.tsv with |score| <= 1500 cp), and checks that kCpScale is
// within 8% of the fit. A net bundled without a refit fails it: run H's net, bundled before
// long-b's, fits 1359, 13% from today's 1200.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "app/analyse/evalset.h"
#include "app/uci/score.h"
#include "core/game.h"
#include "nn/bundled_net.h"
#include "nn/evaluator_factory.h"

#ifndef XQZERO_SOURCE_DIR
#error "XQZERO_SOURCE_DIR must name the source tree"
#endif

namespace xq::app {
namespace {

double squared_error(double scale, const std::vector<std::pair<int, float>>& pairs) {
  double sum = 0;
  for (const auto& [cp, v] : pairs) sum += std::pow(double(v) - std::tanh(cp / scale), 2);
  return sum;
}

// Golden-section search for the scale (the error is unimodal in it over this range).
double fit_scale(const std::vector<std::pair<int, float>>& pairs) {
  double lo = 20, hi = 5000;
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 80; ++i) {
    const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    if (squared_error(a, pairs) < squared_error(b, pairs))
      hi = b;
    else
      lo = a;
  }
  return (lo + hi) / 2;
}

TEST(CpScale, FitsTheBundledNet) {
  const std::string path = XQZERO_SOURCE_DIR "/docs/evalset-fsf.tsv";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  const auto set = analyse::parse_evalset(text.str(), path);

  xqzero::EvaluatorConfig config;
  config.set_name("torch");
  config.set_device("cpu");
  config.set_precision("float32");  // the same value on every CPU kind, to within rounding
  config.set_threads(1);
  const auto evaluator = nn::make_weights_evaluator(nn::bundled_net_path(), config);

  std::vector<std::pair<int, float>> pairs;
  for (const auto& p : set) {
    if (!p.has_score || std::abs(p.score_cp) > 1500) continue;
    Game game(p.fen);
    const nn::EvalInput input = nn::make_eval_input(game.position(), game.repetition_count());
    const nn::EvalRequest request = input.request();
    nn::EvalResult result;
    evaluator->evaluate(nn::Span<const nn::EvalRequest>(&request, 1), nn::Span<nn::EvalResult>(&result, 1));
    pairs.emplace_back(p.score_cp, result.value());
  }
  ASSERT_GE(pairs.size(), 200u) << "the set's positions with a score within 1500 cp";

  const double scale = fit_scale(pairs);
  const double rms = std::sqrt(squared_error(scale, pairs) / double(pairs.size()));
  EXPECT_NEAR(scale / uci::kCpScale, 1.0, 0.08) << "fitted S = " << scale << " (rms residual " << rms
                                                << "): refit app/uci/score.h for the bundled net";
  // The curve explains the net's values better than no scale at all (a constant v = mean).
  double mean = 0;
  for (const auto& pr : pairs) mean += pr.second;
  mean /= double(pairs.size());
  double spread = 0;
  for (const auto& pr : pairs) spread += std::pow(double(pr.second) - mean, 2);
  EXPECT_LT(rms, std::sqrt(spread / double(pairs.size()))) << "fitted S = " << scale;
}

}  // namespace
}  // namespace xq::app
