#include "selfplay/search.h"

#include "core/immediate_win.h"
#include "selfplay/search_driver.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace xq::selfplay {

namespace {

Proven flip(Proven p) {
  return p == Proven::WIN ? Proven::LOSS : p == Proven::LOSS ? Proven::WIN : p;
}

uint16_t plies_after(int plies) { return uint16_t(std::min(plies + 1, 65535)); }

}  // namespace

Search::Search(const SearchParams& params, uint64_t seed) : params_(params), rng_(seed) {}

void Search::reset() {
  assert(n_pending_ == 0);
  synced_ = false;
  tree_.clear();
  depth_ = SearchDepth();
  gumbel_ready_ = false;
  root_noise_applied_ = false;
}

void Search::sync_to(const Game& game) {
  const std::string fen = game.start_position().fen();
  const std::vector<Move>& moves = game.moves();
  if (synced_ && fen == synced_fen_ && synced_moves_.size() <= moves.size() &&
      std::equal(synced_moves_.begin(), synced_moves_.end(), moves.begin())) {
    for (size_t k = synced_moves_.size(); k < moves.size(); ++k) advance(moves[k]);
  } else {
    reset();
  }
  synced_ = true;
  synced_fen_ = fen;
  synced_moves_ = moves;
}

void Search::cancel_pending() {
  for (int i = 0; i < n_pending_; ++i) {
    const Pending& p = pending_[size_t(i)];
    tree_.node(p.path.back()).pending = 0;
    revert(p.path);
  }
  n_pending_ = 0;
}

void Search::start_move(Game& game, int visits, bool exploration) {
  assert(n_pending_ == 0);
  Move moves[MAX_MOVES];
  root_moves_.assign(moves, moves + canonical_moves(game.position(), moves));
  root_position_ = game.position();
  root_allowed_.assign(root_moves_.size(), uint8_t(root_filter_.empty()));
  for (Move m : root_filter_) {
    const auto it = std::find(root_moves_.begin(), root_moves_.end(), m);
    if (it != root_moves_.end()) root_allowed_[size_t(it - root_moves_.begin())] = 1;
  }
  if (std::find(root_allowed_.begin(), root_allowed_.end(), uint8_t(1)) == root_allowed_.end())
    root_allowed_.assign(root_moves_.size(), 1);  // no listed move is legal here: all are searched
  root_win_edge_ = -1;
  if (params_.immediate_wins) {
    const Move win = find_immediate_win(game.position());
    const auto it = std::find(root_moves_.begin(), root_moves_.end(), win);
    if (!win.is_none() && root_allowed_[size_t(it - root_moves_.begin())]) root_win_edge_ = int(it - root_moves_.begin());
  }
  {
    // A root reached by tree reuse may be a leaf proven by the immediate-win check (never
    // expanded): it is searched afresh, and its winning move found again through the root.
    Node& r = tree_.node(tree_.root());
    if (!r.expanded && !r.terminal && r.proven != Proven::NONE) {
      r.proven = Proven::NONE;
      r.proven_plies = 0;
    }
  }
  budget_ = std::max(1, visits);
  start_visits_ = tree_.node(tree_.root()).visits;
  depth_ = SearchDepth();
  exploration_ = exploration;
  root_noise_applied_ = false;
  gumbel_ready_ = false;
  const Node& r = tree_.node(tree_.root());
  if (r.expanded && !r.terminal) {
    if (params_.algorithm == RootAlgorithm::GUMBEL)
      init_gumbel();
    else if (exploration_)
      apply_root_noise();
  }
}

// A proven node whose length is final: nothing below it can shorten its proof. A node won
// by its side to move (LOSS for the mover into it) holds the length of its shortest win
// found so far, final when it is a mate in one or every move there is proven; a node lost
// for its side to move (WIN) holds its longest defence, final when each defence is. Drawn,
// terminal and unexpanded (immediate-win) proofs are final.
bool Search::proof_final(NodeId id) const {
  const Node& n = tree_.node(id);
  if (n.terminal || !n.expanded || n.proven == Proven::DRAW) return true;
  if (n.proven == Proven::NONE) return false;
  if (n.proven == Proven::LOSS && n.proven_plies <= 1) return true;
  NodeId kids[MAX_MOVES];
  if (tree_.children_of(n, kids) < n.num_edges) return false;
  for (int e = 0; e < n.num_edges; ++e) {
    const Node& ch = tree_.node(kids[e]);
    if (ch.proven == Proven::NONE) return false;
    if (n.proven == Proven::WIN && ch.proven == Proven::LOSS && ch.proven_plies > 1 && ch.expanded && !ch.terminal) {
      NodeId grand[MAX_MOVES];
      if (tree_.children_of(ch, grand) < ch.num_edges) return false;
      for (int g = 0; g < ch.num_edges; ++g)
        if (tree_.node(grand[g]).proven == Proven::NONE) return false;
    }
  }
  return true;
}

bool Search::root_settled() const {
  const Node& r = tree_.node(tree_.root());
  if (r.terminal) return true;
  return r.proven != Proven::NONE && proof_final(tree_.root());
}

uint32_t Search::new_visits(bool in_flight) const {
  const Node& r = tree_.node(tree_.root());
  const uint32_t visits = r.visits + (in_flight ? r.in_flight : 0);
  return visits > start_visits_ ? visits - start_visits_ : 0;
}

bool Search::done() const {
  if (n_pending_ > 0) return false;
  if (root_settled()) return true;
  const Node& r = tree_.node(tree_.root());
  if (r.expanded && r.num_edges == 1) return true;
  return new_visits(false) >= uint32_t(budget_);
}

int Search::gather(Game& game, int max_leaves, std::vector<nn::EvalRequest>& requests) {
  assert(n_pending_ == 0);
  if (int(pending_.size()) < max_leaves) pending_.resize(size_t(max_leaves));  // stable addresses below
  int collisions = 0;
  const NodeId root = tree_.root();
  NodeId kids[MAX_MOVES];
  for (int i = 0; i < max_leaves; ++i) {
    {
      const Node& r = tree_.node(root);
      if (root_settled()) break;
      if (r.expanded && r.num_edges == 1) break;
      if (new_visits(true) >= uint32_t(budget_)) break;
    }
    path_.clear();
    NodeId n = root;
    int plies = 0;
    bool collision = false, wait = false;
    for (;;) {
      path_.push_back(n);
      Node& node = tree_.node(n);
      ++node.in_flight;
      if (node.pending) {
        collision = true;
        break;
      }
      if (node.terminal || (node.proven != Proven::NONE && n != root && proof_final(n))) {
        backup(path_, proven_value(node.proven), node.proven == Proven::DRAW ? 1.0f : 0.0f, true);
        break;
      }
      if (!node.expanded) {
        const GameState state = game.state();
        if (state.over()) {
          node.expanded = 1;
          node.terminal = 1;
          if (state.result == Result::DRAW) {
            node.proven = Proven::DRAW;
          } else {
            const Color mover = ~game.side_to_move();
            node.proven = state.result == win_for(mover) ? Proven::WIN : Proven::LOSS;
          }
          backup(path_, proven_value(node.proven), node.proven == Proven::DRAW ? 1.0f : 0.0f, true);
          break;
        }
        if (params_.immediate_wins && n != root && !find_immediate_win(game.position()).is_none()) {
          node.proven = Proven::LOSS;  // for the mover into the node: the side to move wins next ply
          node.proven_plies = 1;
          backup(path_, proven_value(node.proven), 0.0f, true);
          break;
        }
        node.pending = 1;
        Pending& p = pending_[size_t(n_pending_++)];
        p.path = path_;
        p.input = nn::make_eval_input(game.position(), game.repetition_count());
        requests.push_back(p.input.request());
        break;
      }
      tree_.children_of(tree_.node(n), kids);
      const int e = select_child(n, n == root, kids);
      if (e < 0) {  // the root hands out no more simulations before this round's evaluations
        wait = true;
        break;
      }
      NodeId c = kids[e];
      Move m;
      if (c != kNoNode) {
        m = Tree::move_of(tree_.node(c));
      } else {  // a first visit: the edge's move is the e-th canonical legal move
        if (n == root) {
          m = root_moves_[size_t(e)];  // known since start_move
        } else {
          Move moves[MAX_MOVES];
          const int count = canonical_moves(game.position(), moves);
          assert(count == tree_.node(n).num_edges);
          (void)count;
          m = moves[e];
        }
        c = tree_.add_child(n, e, m);  // may reallocate the node pool: no Node& is kept across it
      }
      n = c;
      game.play(m);
      ++plies;
    }
    if (collision || wait) revert(path_);
    if (collision) {
      ++collisions;
      ++collisions_;
    }
    for (; plies > 0; --plies) game.undo();
    if (wait) {
      assert(n_pending_ > 0);  // what the root waits for is in flight
      break;
    }
    if (collisions >= params_.max_collisions) break;
  }
  return n_pending_;
}

void Search::complete(const nn::EvalResult* results, int count) {
  assert(count == n_pending_);
  for (int i = 0; i < count; ++i) {
    Pending& p = pending_[size_t(i)];
    const NodeId leaf = p.path.back();
    expand(leaf, p.input, results[i]);
    const float v = results[i].wdl[0] - results[i].wdl[2];  // for the side to move at the leaf
    tree_.node(leaf).net_value = v;
    backup(p.path, -v, results[i].wdl[1], false);
  }
  evaluations_ += uint64_t(count);
  n_pending_ = 0;
}

void Search::expand(NodeId n, const nn::EvalInput& input, const nn::EvalResult& result) {
  // Edges follow the canonical move order (tree.h): sort the request's moves.
  int order[MAX_MOVES];
  for (int j = 0; j < input.n_labels; ++j) order[j] = j;
  std::sort(order, order + input.n_labels,
            [&](int a, int b) { return input.moves[size_t(a)].raw() < input.moves[size_t(b)].raw(); });
  tree_.add_edges(n, input.n_labels);
  const Node& added = tree_.node(n);
  for (int j = 0; j < input.n_labels; ++j) tree_.set_prior(added, j, result.priors[size_t(order[j])]);
  Node& node = tree_.node(n);
  node.expanded = 1;
  node.pending = 0;
  if (n == tree_.root()) {
    if (params_.algorithm == RootAlgorithm::GUMBEL)
      init_gumbel();
    else if (exploration_)
      apply_root_noise();
  }
}

void Search::backup(const std::vector<NodeId>& path, float value, float draw, bool proven_leaf) {
  const int leaf_depth = int(path.size()) - 1;
  ++depth_.simulations;
  depth_.plies += uint64_t(leaf_depth);
  depth_.max = std::max(depth_.max, leaf_depth);
  float v = value;
  bool propagate = proven_leaf;
  for (size_t k = path.size(); k-- > 0;) {
    Node& n = tree_.node(path[k]);
    --n.in_flight;
    ++n.visits;
    n.q += (v - n.q) / float(n.visits);
    n.d += (draw - n.d) / float(n.visits);
    // MCTS-solver, on the way up from a proven leaf: a child proven won for the side to
    // move here makes this node lost for its mover, in one ply more than the shortest such
    // win; all children proven makes it the best of them for the side to move: a draw (the
    // shortest), or a loss in one ply more than the longest loss. A node proven before is
    // recomputed too (a shorter win found below it shortens its length: proof_final), and
    // the proof goes on up while it changes something.
    if (propagate && k + 1 < path.size()) {
      propagate = false;
      int children = 0;
      bool unknown = false;
      int best = -1;  // for the side to move here: -1 loss, 0 draw, 1 win
      int win_plies = 65535, draw_plies = 65535, loss_plies = 0;
      for (NodeId c = n.first_child; c != kNoNode; c = tree_.node(c).next_sibling) {
        ++children;
        const Node& ch = tree_.node(c);
        switch (ch.proven) {
          case Proven::NONE: unknown = true; break;
          case Proven::WIN: best = 1; win_plies = std::min(win_plies, int(ch.proven_plies)); break;
          case Proven::DRAW: best = std::max(best, 0); draw_plies = std::min(draw_plies, int(ch.proven_plies)); break;
          case Proven::LOSS: loss_plies = std::max(loss_plies, int(ch.proven_plies)); break;
        }
      }
      unknown = unknown || children < n.num_edges;
      Proven proven = Proven::NONE;
      uint16_t plies = 0;
      if (best == 1) {
        proven = Proven::LOSS;
        plies = plies_after(win_plies);
      } else if (!unknown && n.num_edges > 0) {
        proven = best == 0 ? Proven::DRAW : Proven::WIN;
        plies = plies_after(best == 0 ? draw_plies : loss_plies);
      }
      if (proven != Proven::NONE && (proven != n.proven || plies != n.proven_plies)) {
        n.proven = proven;
        n.proven_plies = plies;
        propagate = true;
      }
    } else if (k + 1 < path.size()) {
      propagate = false;
    }
    v = -v;
  }
}

void Search::revert(const std::vector<NodeId>& path) {
  for (NodeId id : path) --tree_.node(id).in_flight;
}

int Search::select_child(NodeId n, bool is_root, const NodeId* kids) {
  // A proven node searched on for an exact length (proof_final), the root included, for
  // both algorithms: where its side to move wins, PUCT over the moves not proven yet (a
  // shorter win may hide there); where it loses, the longest defence not final yet.
  if (tree_.node(n).proven != Proven::NONE) return select_in_proof(n, is_root, kids);
  if (is_root && root_win_edge_ >= 0 && kids[root_win_edge_] == kNoNode) return root_win_edge_;
  if (params_.algorithm == RootAlgorithm::GUMBEL) return is_root ? select_gumbel_root(kids) : select_gumbel_interior(n, kids);
  return select_puct(n, is_root, kids, false);
}

int Search::select_in_proof(NodeId n, bool is_root, const NodeId* kids) {
  const Node& node = tree_.node(n);
  if (node.proven == Proven::WIN) {
    int best = -1;
    for (int e = 0; e < node.num_edges; ++e) {
      const NodeId c = kids[e];
      if (c == kNoNode || proof_final(c)) continue;
      if (best < 0 || tree_.node(c).proven_plies > tree_.node(kids[best]).proven_plies) best = e;
    }
    if (best >= 0) return best;
  }
  return select_puct(n, is_root, kids, true);
}

int Search::select_puct(NodeId n, bool is_root, const NodeId* kids, bool skip_proven) {
  const Node& node = tree_.node(n);
  const uint32_t parent_visits = node.visits + node.in_flight;
  const float c = params_.c_puct_init + std::log((float(parent_visits) + params_.c_puct_base + 1.0f) / params_.c_puct_base);
  const float sqrt_n = std::sqrt(float(std::max<uint32_t>(parent_visits, 1)));
  float visited_mass = 0;
  for (int e = 0; e < node.num_edges; ++e)
    if (const NodeId c = kids[e]; c != kNoNode && tree_.node(c).visits > 0) visited_mass += tree_.prior(node, e);
  const float parent_q = node.visits > 0 ? -node.q : 0.0f;
  const float fpu = parent_q - (is_root ? params_.fpu_reduction_root : params_.fpu_reduction) * std::sqrt(visited_mass);
  int best = -1;
  float best_score = -std::numeric_limits<float>::infinity();
  for (int e = 0; e < node.num_edges; ++e) {
    if (is_root && !root_allowed_[size_t(e)]) continue;
    float q = fpu;
    uint32_t nc = 0;
    if (const NodeId c = kids[e]; c != kNoNode) {
      const Node& ch = tree_.node(c);
      if (skip_proven && ch.proven != Proven::NONE) continue;
      if (ch.proven == Proven::WIN) return e;
      nc = ch.visits + ch.in_flight;
      if (ch.proven != Proven::NONE)
        q = proven_value(ch.proven);
      else if (nc > 0)
        q = (ch.q * float(ch.visits) - float(ch.in_flight)) / float(nc);  // in-flight visits count as losses
    }
    const float score = q + c * tree_.prior(node, e) * sqrt_n / float(1 + nc);
    if (best < 0 || score > best_score) {
      best_score = score;
      best = e;
    }
  }
  if (best < 0 && is_root)  // every allowed move proven and skipped: the first allowed one
    best = int(std::find(root_allowed_.begin(), root_allowed_.end(), uint8_t(1)) - root_allowed_.begin());
  return std::max(best, 0);
}

void Search::apply_root_noise() {
  if (root_noise_applied_) return;
  root_noise_applied_ = true;
  Node& r = tree_.node(tree_.root());
  if (r.num_edges < 2 || params_.dirichlet_fraction <= 0) return;
  std::gamma_distribution<float> gamma(params_.dirichlet_alpha, 1.0f);
  std::vector<float> eta(r.num_edges);
  float sum = 0;
  for (float& x : eta) sum += (x = gamma(rng_));
  if (sum <= 0) return;
  const float f = params_.dirichlet_fraction;
  for (int e = 0; e < r.num_edges; ++e) tree_.set_prior(r, e, (1 - f) * tree_.prior(r, e) + f * eta[size_t(e)] / sum);
}

// ---- Gumbel AlphaZero ----

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
        return gumbel_[size_t(e)] + std::log(std::max(tree_.prior(r, e), 1e-6f)) + sigma(cq[size_t(e)], uint32_t(max_n));
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

// ---- results ----

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
  for (int e = 0; e < r.num_edges; ++e) {
    RootMove m;
    m.move = root_moves_[size_t(e)];
    m.prior = tree_.prior(r, e);
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
  int best = -1;
  auto better_proven = [&](const RootMove& a, const RootMove& b) {
    if (a.proven != b.proven) return int(a.proven) > int(b.proven);
    if (a.proven == Proven::WIN && a.proven_plies != b.proven_plies) return a.proven_plies < b.proven_plies;
    if (a.proven == Proven::LOSS && a.proven_plies != b.proven_plies) return a.proven_plies > b.proven_plies;
    return a.visits > b.visits;
  };
  const bool all_proven = r.proven == Proven::WIN || r.proven == Proven::DRAW;
  for (int e = 0; e < int(out.moves.size()); ++e) {
    const RootMove& m = out.moves[size_t(e)];
    if (!root_allowed_.empty() && !root_allowed_[size_t(e)]) continue;
    if (m.proven == Proven::WIN || (all_proven && m.proven != Proven::NONE))
      if (best < 0 || better_proven(m, out.moves[size_t(best)])) best = e;
  }
  if (params_.algorithm == RootAlgorithm::GUMBEL && gumbel_ready_) {
    const std::vector<float> pi = improved_policy(root, kids);
    for (int e = 0; e < r.num_edges; ++e) out.moves[size_t(e)].target = pi[size_t(e)];
    if (best < 0 && !candidates_.empty()) {
      float max_n = 0;
      const std::vector<float> cq = completed_q(root, kids, &max_n);
      float best_score = -std::numeric_limits<float>::infinity();
      for (int e : candidates_) {
        const float s = gumbel_[size_t(e)] + std::log(std::max(tree_.prior(r, e), 1e-6f)) + sigma(cq[size_t(e)], uint32_t(max_n));
        if (s > best_score) {
          best_score = s;
          best = e;
        }
      }
    }
  } else {
    for (auto& m : out.moves) m.target = total > 0 ? float(m.visits) / float(total) : 1.0f / float(out.moves.size());
  }
  if (best < 0) {  // most visits, then best q, then prior (among the allowed moves)
    for (int e = 0; e < r.num_edges; ++e) {
      if (!root_allowed_.empty() && !root_allowed_[size_t(e)]) continue;
      const RootMove& a = out.moves[size_t(e)];
      if (best < 0) {
        best = e;
        continue;
      }
      const RootMove& b = out.moves[size_t(best)];
      if (a.visits > b.visits || (a.visits == b.visits && (a.q > b.q || (a.q == b.q && a.prior > b.prior)))) best = e;
    }
    best = std::max(best, 0);
  }
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

void Search::advance(Move move) {
  assert(n_pending_ == 0);
  tree_.advance(move);
  gumbel_ready_ = false;
  root_noise_applied_ = false;
}

SearchResult Search::run(Game& game, nn::Evaluator& evaluator, int visits, bool exploration, int max_leaves) {
  start_move(game, visits, exploration);
  drive_search(*this, game, evaluator, max_leaves);
  return result();
}

}  // namespace xq::selfplay
