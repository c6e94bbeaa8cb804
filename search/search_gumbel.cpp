// The Gumbel AlphaZero root and interior selection of Search (search/search.h): Gumbel-top-k
// candidates, sequential halving, completed Q-values and the improved policy.
#include "search/search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace xq::search {

float Search::sigma(float q_normalized, uint32_t max_visits) const {
  return (params_.gumbel_c_visit + float(max_visits)) * params_.gumbel_c_scale * q_normalized;
}

// Q of each child of n for its side to move, normalised to [0, 1]; unvisited children get
// the mixed value estimate of the paper (network value mixed with the visited children's
// prior-weighted Q).
std::vector<float> Search::completed_q(NodeId n, const NodeId* kids, float* max_visits) const {
  const Node& node = tree_.node(n);
  std::vector<float> out(node.num_edges, -1.0f);
  float sum_n = 0, sum_p = 0, sum_pq = 0, max_n = 0;
  for (int e = 0; e < node.num_edges; ++e) {
    const NodeId c = kids[e];
    if (c == kNoNode) continue;
    const Node& ch = tree_.node(c);
    const uint32_t nv = ch.visits;
    if (nv == 0 && ch.proven == Proven::NONE) continue;
    const float q = ch.proven != Proven::NONE ? proven_value(ch.proven) : ch.q;
    out[size_t(e)] = (q + 1) * 0.5f;
    sum_n += float(nv);
    max_n = std::max(max_n, float(nv + ch.in_flight));
    sum_p += tree_.prior(node, e);
    sum_pq += tree_.prior(node, e) * out[size_t(e)];
  }
  const float v_net = (node.net_value + 1) * 0.5f;
  const float v_mix = sum_p > 0 ? (v_net + sum_n / sum_p * sum_pq) / (1 + sum_n) : v_net;
  for (float& q : out)
    if (q < 0) q = v_mix;
  if (max_visits) *max_visits = max_n;
  return out;
}

std::vector<float> Search::improved_policy(NodeId n, const NodeId* kids) const {
  const Node& node = tree_.node(n);
  float max_n = 0;
  const std::vector<float> cq = completed_q(n, kids, &max_n);
  std::vector<float> out(node.num_edges);
  float hi = -std::numeric_limits<float>::infinity();
  for (int e = 0; e < node.num_edges; ++e) {
    out[size_t(e)] = std::log(std::max(tree_.prior(node, e), 1e-6f)) + sigma(cq[size_t(e)], uint32_t(max_n));
    hi = std::max(hi, out[size_t(e)]);
  }
  float sum = 0;
  for (float& x : out) sum += (x = std::exp(x - hi));
  for (float& x : out) x /= sum;
  return out;
}

int Search::select_gumbel_interior(NodeId n, const NodeId* kids) {
  const std::vector<float> pi = improved_policy(n, kids);
  const Node& node = tree_.node(n);
  float total = 0;
  for (int e = 0; e < node.num_edges; ++e)
    if (const NodeId c = kids[e]; c != kNoNode) {
      const Node& ch = tree_.node(c);
      if (ch.proven == Proven::WIN) return e;
      total += float(ch.visits + ch.in_flight);
    }
  int best = 0;
  float best_score = -std::numeric_limits<float>::infinity();
  for (int e = 0; e < node.num_edges; ++e) {
    const NodeId c = kids[e];
    const float nv = c != kNoNode ? float(tree_.node(c).visits + tree_.node(c).in_flight) : 0;
    const float score = pi[size_t(e)] - nv / (1 + total);
    if (score > best_score) {
      best_score = score;
      best = e;
    }
  }
  return best;
}

void Search::init_gumbel() {
  const Node& r = tree_.node(tree_.root());
  const int k = r.num_edges;
  gumbel_.assign(size_t(k), 0.0f);
  if (exploration_) {
    std::uniform_real_distribution<float> u(1e-6f, 1.0f - 1e-6f);
    for (float& g : gumbel_) g = -std::log(-std::log(u(rng_)));
  }
  // Visits kept from tree reuse: the halving counts only this search's visits.
  NodeId kids[MAX_MOVES];
  tree_.children_of(r, kids);
  base_visits_.resize(size_t(k));
  for (int e = 0; e < k; ++e) base_visits_[size_t(e)] = kids[e] != kNoNode ? tree_.node(kids[e]).visits : 0;
  candidates_.clear();
  for (int e = 0; e < k; ++e)
    if (root_allowed_[size_t(e)]) candidates_.push_back(e);
  auto score = [&](int e) { return gumbel_[size_t(e)] + std::log(std::max(tree_.prior(r, e), 1e-6f)); };
  std::stable_sort(candidates_.begin(), candidates_.end(), [&](int a, int b) { return score(a) > score(b); });
  const int m = std::max(1, std::min(params_.gumbel_m, int(candidates_.size())));
  candidates_.resize(size_t(m));
  phases_left_ = m > 1 ? int(std::ceil(std::log2(float(m)))) : 1;
  phase_target_ = 0;
  gumbel_ready_ = true;
  // The first phase's target is set on the first selection.
}

int Search::select_gumbel_root(const NodeId* kids) {
  const NodeId root = tree_.root();
  if (!gumbel_ready_) init_gumbel();
  // A candidate's visits in this search: those returned, or with those in flight too.
  auto visits_of = [&](int e, bool in_flight) -> uint32_t {
    const NodeId c = kids[e];
    if (c == kNoNode) return 0;
    const Node& ch = tree_.node(c);
    return ch.visits - base_visits_[size_t(e)] + (in_flight ? ch.in_flight : 0);
  };
  for (int e : candidates_) {
    const NodeId c = kids[e];
    if (c != kNoNode && tree_.node(c).proven == Proven::WIN) return e;
  }
  for (int guard = 0; guard < 64; ++guard) {
    int best = -1;
    uint32_t best_n = std::numeric_limits<uint32_t>::max();
    bool returned = true;
    for (int e : candidates_) {
      const uint32_t nv = visits_of(e, true);
      if (nv < phase_target_ && nv < best_n) {
        best_n = nv;
        best = e;
      }
      returned = returned && visits_of(e, false) >= phase_target_;
    }
    if (best >= 0) return best;
    // Every candidate has its visits for this phase, some still in flight: the phase ends
    // when their values are back, in a later round (gather() stops here).
    if (!returned) return -1;
    // The phase is complete: halve the candidates (not before the first phase), then give
    // each survivor an equal share of what is left of the budget.
    if (phase_target_ > 0 && candidates_.size() > 1) {
      float max_n = 0;
      const std::vector<float> cq = completed_q(root, kids, &max_n);
      const Node& r = tree_.node(root);
      auto score = [&](int e) {
        return gumbel_[size_t(e)] + std::log(std::max(tree_.prior(r, e), 1e-6f)) +
               sigma(cq[size_t(e)], uint32_t(max_n));
      };
      std::stable_sort(candidates_.begin(), candidates_.end(), [&](int a, int b) { return score(a) > score(b); });
      candidates_.resize((candidates_.size() + 1) / 2);
      phases_left_ = std::max(1, phases_left_ - 1);
    }
    const int left = std::max(1, budget_ - int(new_visits(true)));
    const uint32_t share = uint32_t(std::max(1, left / (phases_left_ * int(candidates_.size()))));
    phase_target_ += share;
  }
  return candidates_.front();
}

}  // namespace xq::search
