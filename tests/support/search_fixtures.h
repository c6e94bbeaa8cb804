// Shared pieces of the search tests: parameter presets, a scripted evaluator, a round
// loop that cannot hang, a tree walk and test positions.
#pragma once

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nn/evaluator.h"
#include "search/search.h"

namespace xq::search::fixtures {

inline SearchParams puct() { return SearchParams(); }
// Gumbel with every legal move a root candidate: with uniform priors and no Gumbel noise,
// a smaller m would consider only the first m moves of the edge order.
inline SearchParams gumbel() {
  SearchParams p;
  p.algorithm = RootAlgorithm::GUMBEL;
  p.gumbel_m = 128;
  return p;
}

// Visits every node of the tree.
inline void for_each_node(const Tree& tree, const std::function<void(const Node&)>& f) {
  std::vector<NodeId> stack{tree.root()};
  while (!stack.empty()) {
    const Node& n = tree.node(stack.back());
    stack.pop_back();
    f(n);
    for (NodeId c = n.first_child; c != kNoNode; c = tree.node(c).next_sibling) stack.push_back(c);
  }
}

// Answers every request with a function of it (to single out positions by their key).
class ScriptedEvaluator final : public nn::Evaluator {
 public:
  using Answer = std::function<void(const nn::EvalRequest&, nn::EvalResult&)>;
  explicit ScriptedEvaluator(Answer answer) : answer_(std::move(answer)) {}
  void evaluate(nn::Span<const nn::EvalRequest> requests, nn::Span<nn::EvalResult> results) override {
    for (size_t i = 0; i < requests.size(); ++i) answer_(requests[i], results[i]);
  }
  std::string describe() const override { return "scripted"; }

 private:
  Answer answer_;
};

// Runs the rounds of a search that start_move() began until done(), but at most
// `max_rounds`; returns whether it finished (a stalled search does not hang the test).
inline bool finish(Search& search, Game& game, nn::Evaluator& evaluator, int max_leaves, int max_rounds = 100000) {
  std::vector<nn::EvalRequest> requests;
  std::vector<nn::EvalResult> results;
  for (int round = 0; round < max_rounds; ++round) {
    if (search.done()) return true;
    requests.clear();
    const int n = search.gather(game, max_leaves, requests);
    results.resize(size_t(n));
    if (n > 0) evaluator.evaluate(requests, results);
    search.complete(results.data(), n);
  }
  return search.done();
}

inline uint32_t root_visits(const Search& search) { return search.tree().node(search.tree().root()).visits; }

// h6d6 is Red's only move that wins at once (mate, or stalemate, which also loses).
inline constexpr const char* kMateInOne = "3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w";
inline constexpr const char* kMateInTwo = "3R5/9/5k3/9/9/9/9/1C7/3K5/9 w";

// Answers from a TestEvaluator until `fail_at` calls have been made, then throws.
class FailingEvaluator final : public nn::Evaluator {
 public:
  explicit FailingEvaluator(int fail_at) : fail_at_(fail_at), inner_(3) {}
  void evaluate(nn::Span<const nn::EvalRequest> requests, nn::Span<nn::EvalResult> results) override {
    if (++calls_ >= fail_at_) throw std::runtime_error("backend lost");
    inner_.evaluate(requests, results);
  }
  std::string describe() const override { return "failing"; }

 private:
  int fail_at_;
  std::atomic<int> calls_{0};  // searches on several threads may share one
  nn::TestEvaluator inner_;
};

}  // namespace xq::search::fixtures
