// Search's rounds (start_move, gather, complete, tree reuse) and PUCT selection; the solver,
// the Gumbel root and the results are in search_solver.cpp, search_gumbel.cpp and
// search_result.cpp.
#include "search/search.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/immediate_win.h"
#include "search/search_driver.h"

namespace xq::search {

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
  {
    // A kept tree is dropped when its root has a child this search may not play (its
    // statistics and proofs would count), or was judged over where the game goes on.
    const Node& r = tree_.node(tree_.root());
    bool stale = r.terminal && !game.over();
    for (NodeId c = r.first_child; c != kNoNode && !stale; c = tree_.node(c).next_sibling)
      stale = !root_allowed_[size_t(Tree::edge_of(tree_.node(c)))];
    if (stale) tree_.clear();
  }
  root_win_edge_ = -1;
  if (params_.immediate_wins) {
    const Move win = find_immediate_win(game.position());
    const auto it = std::find(root_moves_.begin(), root_moves_.end(), win);
    if (!win.is_none() && root_allowed_[size_t(it - root_moves_.begin())])
      root_win_edge_ = int(it - root_moves_.begin());
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
  gumbel_search_ = params_.algorithm == RootAlgorithm::GUMBEL &&
                   (params_.gumbel_max_visits <= 0 || budget_ <= params_.gumbel_max_visits);
  start_visits_ = tree_.node(tree_.root()).visits;
  depth_ = SearchDepth();
  exploration_ = exploration;
  root_noise_applied_ = false;
  gumbel_ready_ = false;
  const Node& r = tree_.node(tree_.root());
  if (r.expanded && !r.terminal) {
    if (gumbel_search_)
      init_gumbel();
    else if (exploration_)
      apply_root_noise();
  }
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

// An unexpanded node reached at `game`'s position: a game end or (below the root) a position
// whose side to move wins at once is backed up now; otherwise the node waits for the network
// and a request for it is appended.
void Search::reach_leaf(NodeId n, Game& game, std::vector<nn::EvalRequest>& requests) {
  Node& node = tree_.node(n);
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
    return;
  }
  if (params_.immediate_wins && n != tree_.root() && !find_immediate_win(game.position()).is_none()) {
    node.proven = Proven::LOSS;  // for the mover into the node: the side to move wins next ply
    node.proven_plies = 1;
    backup(path_, proven_value(node.proven), 0.0f, true);
    return;
  }
  node.pending = 1;
  Pending& p = pending_[size_t(n_pending_++)];
  p.path = path_;
  p.input = nn::make_eval_input(game.position(), game.repetition_count());
  requests.push_back(p.input.request());
}

// The move of edge `e` of node `n` at `pos`: its child's when the child exists, else (a first
// visit) the e-th canonical legal move, known at the root since start_move.
Move Search::edge_move(NodeId n, int e, NodeId child, const Position& pos) const {
  if (child != kNoNode) return Tree::move_of(tree_.node(child));
  if (n == tree_.root()) return root_moves_[size_t(e)];
  Move moves[MAX_MOVES];
  const int count = canonical_moves(pos, moves);
  assert(count == tree_.node(n).num_edges);
  (void)count;
  return moves[e];
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
        reach_leaf(n, game, requests);
        break;
      }
      tree_.children_of(tree_.node(n), kids);
      const int e = select_child(n, n == root, kids);
      if (e < 0) {  // the root hands out no more simulations before this round's evaluations
        wait = true;
        break;
      }
      NodeId c = kids[e];
      const Move m = edge_move(n, e, c, game.position());
      if (c == kNoNode) c = tree_.add_child(n, e, m);  // may reallocate the node pool: no Node& is kept across it
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
    if (gumbel_search_)
      init_gumbel();
    else if (exploration_)
      apply_root_noise();
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
  if (gumbel_search_)
    return is_root ? select_gumbel_root(kids) : select_gumbel_interior(n, kids);
  return select_puct(n, is_root, kids, false);
}

int Search::select_puct(NodeId n, bool is_root, const NodeId* kids, bool skip_proven) {
  const Node& node = tree_.node(n);
  const uint32_t parent_visits = node.visits + node.in_flight;
  const float c_puct =
      params_.c_puct_init + std::log((float(parent_visits) + params_.c_puct_base + 1.0f) / params_.c_puct_base);
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
    const float score = q + c_puct * tree_.prior(node, e) * sqrt_n / float(1 + nc);
    if (best < 0 || score > best_score) {
      best_score = score;
      best = e;
    }
  }
  if (best < 0 && is_root)  // every allowed move proven and skipped: the first allowed one
    best = int(std::find(root_allowed_.begin(), root_allowed_.end(), uint8_t(1)) - root_allowed_.begin());
  return std::max(best, 0);
}

// Mixes Dirichlet noise into the root's priors in the tree, and keeps the net's priors for
// result() (the targets' surprise and search_kl are measured against those).
void Search::apply_root_noise() {
  if (root_noise_applied_) return;
  root_noise_applied_ = true;
  root_net_prior_.clear();
  Node& r = tree_.node(tree_.root());
  if (r.num_edges < 2 || params_.dirichlet_fraction <= 0) return;
  for (int e = 0; e < r.num_edges; ++e) root_net_prior_.push_back(tree_.prior(r, e));
  std::gamma_distribution<float> gamma(params_.dirichlet_alpha, 1.0f);
  std::vector<float> eta(r.num_edges);
  float sum = 0;
  for (float& x : eta) sum += (x = gamma(rng_));
  if (sum <= 0) return;
  const float f = params_.dirichlet_fraction;
  for (int e = 0; e < r.num_edges; ++e) tree_.set_prior(r, e, (1 - f) * tree_.prior(r, e) + f * eta[size_t(e)] / sum);
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

}  // namespace xq::search
