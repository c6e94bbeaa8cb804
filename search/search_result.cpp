// What a Search reports (search/search.h): root move statistics, targets, the move chosen
// and the principal variation.
#include "search/search.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/immediate_win.h"

namespace xq::search {

namespace {

Proven flip(Proven p) { return p == Proven::WIN ? Proven::LOSS : p == Proven::LOSS ? Proven::WIN : p; }

bool allowed_at(const std::vector<uint8_t>& allowed, size_t e) { return allowed.empty() || allowed[e]; }

}  // namespace

int proven_choice(const std::vector<RootMove>& moves, bool all_proven, const std::vector<uint8_t>& allowed) {
  auto better = [](const RootMove& a, const RootMove& b) {
    if (a.proven != b.proven) return int(a.proven) > int(b.proven);  // win, then draw, then loss
    if (a.proven == Proven::WIN && a.proven_plies != b.proven_plies) return a.proven_plies < b.proven_plies;
    if (a.proven == Proven::LOSS && a.proven_plies != b.proven_plies) return a.proven_plies > b.proven_plies;
    return a.visits > b.visits;
  };
  int best = -1;
  for (size_t e = 0; e < moves.size(); ++e) {
    const RootMove& m = moves[e];
    if (!allowed_at(allowed, e)) continue;
    if (m.proven == Proven::WIN || (all_proven && m.proven != Proven::NONE))
      if (best < 0 || better(m, moves[size_t(best)])) best = int(e);
  }
  return best;
}

int most_visited(const std::vector<RootMove>& moves, const std::vector<uint8_t>& allowed) {
  int best = -1;
  for (size_t e = 0; e < moves.size(); ++e) {
    if (!allowed_at(allowed, e)) continue;
    const RootMove& a = moves[e];
    if (best < 0) {
      best = int(e);
      continue;
    }
    const RootMove& b = moves[size_t(best)];
    if (a.visits > b.visits || (a.visits == b.visits && (a.q > b.q || (a.q == b.q && a.prior > b.prior))))
      best = int(e);
  }
  return best;
}

SearchResult Search::result() const {
  SearchResult out;
  const NodeId root = tree_.root();
  const Node& r = tree_.node(root);
  out.visits = r.visits;
  out.value = r.visits > 0 ? -r.q : 0.0f;
  out.draw = r.d;
  out.proven = flip(r.proven);
  if (r.proven == Proven::WIN) out.value = -1;  // mover into root wins: side to move lost
  if (r.proven == Proven::LOSS) out.value = 1;
  uint32_t total = 0;
  assert(!r.expanded || root_moves_.size() == r.num_edges);
  NodeId kids[MAX_MOVES];
  tree_.children_of(r, kids);
  const bool noised = root_noise_applied_ && root_net_prior_.size() == size_t(r.num_edges);
  for (int e = 0; e < r.num_edges; ++e) {
    RootMove m;
    m.move = root_moves_[size_t(e)];
    m.prior = noised ? root_net_prior_[size_t(e)] : tree_.prior(r, e);
    if (const NodeId c = kids[e]; c != kNoNode) {
      const Node& ch = tree_.node(c);
      m.visits = ch.visits;
      m.q = ch.proven != Proven::NONE ? proven_value(ch.proven) : ch.q;
      m.draw = ch.d;
      m.proven = ch.proven;
      if (ch.proven != Proven::NONE) m.proven_plies = int(ch.proven_plies) + 1;
    }
    total += m.visits;
    out.moves.push_back(m);
  }
  if (out.moves.empty()) return out;

  // A proven win is always the choice, the shortest one (then the most visited). A root
  // proven lost or drawn (every move proven): the longest loss, or a draw.
  int best = proven_choice(out.moves, r.proven == Proven::WIN || r.proven == Proven::DRAW, root_allowed_);
  if (gumbel_search_ && gumbel_ready_) {
    const std::vector<float> pi = improved_policy(root, kids);
    for (int e = 0; e < r.num_edges; ++e) out.moves[size_t(e)].target = pi[size_t(e)];
    if (best < 0 && !candidates_.empty()) {
      float max_n = 0;
      const std::vector<float> cq = completed_q(root, kids, &max_n);
      float best_score = -std::numeric_limits<float>::infinity();
      for (int e : candidates_) {
        const float s =
            gumbel_[size_t(e)] + std::log(std::max(tree_.prior(r, e), 1e-6f)) + sigma(cq[size_t(e)], uint32_t(max_n));
        if (s > best_score) {
          best_score = s;
          best = e;
        }
      }
    }
  } else {
    for (auto& m : out.moves) m.target = total > 0 ? float(m.visits) / float(total) : 1.0f / float(out.moves.size());
  }
  if (best < 0) best = std::max(0, most_visited(out.moves, root_allowed_));
  out.best = out.moves[size_t(best)].move;
  if (r.proven != Proven::NONE) out.proven_plies = out.moves[size_t(best)].proven_plies;
  out.pv = principal_variation(out.best);
  return out;
}

// The tree's line, and when it ends at a leaf proven by the immediate-win check (never
// expanded: its winning move is not in the tree), that move, found again.
std::vector<Move> Search::principal_variation(Move first) const {
  std::vector<Move> pv = tree_.principal_variation(first);
  extend_with_immediate_win(pv);
  return pv;
}

void Search::extend_with_immediate_win(std::vector<Move>& pv) const {
  if (pv.empty() || pv.size() >= 64) return;
  NodeId n = tree_.root();
  for (Move m : pv) {
    NodeId next = kNoNode;
    for (NodeId c = tree_.node(n).first_child; c != kNoNode; c = tree_.node(c).next_sibling)
      if (Tree::move_of(tree_.node(c)) == m) next = c;
    if (next == kNoNode) return;
    n = next;
  }
  const Node& leaf = tree_.node(n);
  if (leaf.expanded || leaf.terminal || leaf.proven != Proven::LOSS || leaf.proven_plies != 1) return;
  Position pos = root_position_;
  for (Move m : pv) {
    UndoInfo undo;
    pos.do_move(m, undo);
  }
  const Move win = find_immediate_win(pos);
  if (!win.is_none()) pv.push_back(win);
}

}  // namespace xq::search
