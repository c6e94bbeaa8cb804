// What the analysis engine tests share: an engine writing to a string, its lines parsed, and
// evaluators that are slow (so searches last long enough to be reported on, terminated or
// overtaken) or constant (so values are known).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/analyse/analysis_engine.h"

namespace xq::app::analyse::session {

// Uniform answers, each call slowed down.
class SlowEvaluator final : public nn::Evaluator {
 public:
  explicit SlowEvaluator(int delay_us) : delay_us_(delay_us) {}
  void evaluate(nn::Span<const nn::EvalRequest> requests, nn::Span<nn::EvalResult> results) override {
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us_));
    uniform_.evaluate(requests, results);
  }
  std::string describe() const override { return "slow uniform"; }

 private:
  int delay_us_;
  nn::UniformEvaluator uniform_;
};

// Uniform priors and the same W/D/L for every side to move.
class ConstantEvaluator final : public nn::Evaluator {
 public:
  explicit ConstantEvaluator(std::array<float, 3> wdl) : wdl_(wdl) {}
  void evaluate(nn::Span<const nn::EvalRequest> requests, nn::Span<nn::EvalResult> results) override {
    for (size_t i = 0; i < requests.size(); ++i) {
      results[i].priors.assign(size_t(requests[i].n_labels), 1.0f / float(requests[i].n_labels));
      results[i].wdl = wdl_;
    }
  }
  std::string describe() const override { return "constant"; }

 private:
  std::array<float, 3> wdl_;
};

struct Session {
  explicit Session(int threads = 2, std::shared_ptr<nn::Evaluator> ev = std::make_shared<nn::UniformEvaluator>()) {
    AnalysisEngine::Options o;
    o.threads = threads;
    o.leaves_per_round = 4;
    QueryDefaults d;
    d.max_visits = 64;
    engine = std::make_unique<AnalysisEngine>(std::move(ev), d, o, out);
  }
  // Every line written so far, parsed (each must be valid JSON).
  std::vector<nlohmann::json> lines() {
    engine->wait_idle();
    std::vector<nlohmann::json> v;
    std::istringstream is(out.str());
    for (std::string line; std::getline(is, line);) {
      EXPECT_NO_THROW(v.push_back(nlohmann::json::parse(line))) << line;
    }
    return v;
  }
  nlohmann::json only_line() {
    const auto v = lines();
    EXPECT_EQ(v.size(), 1u) << out.str();
    return v.empty() ? nlohmann::json() : v.front();
  }
  std::ostringstream out;
  std::unique_ptr<AnalysisEngine> engine;
};

}  // namespace xq::app::analyse::session
