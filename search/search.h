// Monte Carlo tree search over a Game, driven in rounds so that leaves from many
// simulations (virtual loss) and many games share one evaluator call:
//
//   search.start_move(game, visits, noise);
//   while (!search.done()) {
//     requests.clear();
//     const int n = search.gather(game, max_leaves, requests);  // plays and undoes moves on game
//     results.resize(n);
//     evaluator.evaluate(requests, results);        // any nn::Evaluator
//     search.complete(results.data(), n);
//   }
//   SearchResult r = search.result();
//
// Two root algorithms (SearchParams::algorithm; a Gumbel search whose budget is above
// SearchParams::gumbel_max_visits runs PUCT):
//  - PUCT (AlphaZero): c_puct grows slowly with the parent's visits,
//    c = c_init + log((N + c_base + 1) / c_base); unvisited children get first-play urgency
//    by reduction from the parent's value; Dirichlet noise on the root priors for self-play.
//  - Gumbel AlphaZero (Danihelka et al., 2022): Gumbel-top-k sampling of m root candidates,
//    sequential halving of the visit budget over them, completed Q-values, the improved
//    policy softmax(logits + sigma(completed Q)) as training target, and the deterministic
//    improved-policy selection below the root. A phase of the halving counts this search's
//    visits of each candidate (not those kept from tree reuse) and ends only when its visits
//    have returned: a round whose leaves complete a phase stops gathering there, and the
//    next round halves (or result() chooses) on complete values.
// Both back up W/D/L means, judge terminal nodes with the game's rules (mate, stalemate,
// repetition verdicts, natural limit, ...) and prove wins and losses (MCTS-solver) with
// their length in plies. A node proven by a win that may not be the shortest (or lost with
// defences whose lengths may still shrink) is searched on when a simulation reaches it,
// among its unproven moves (its longest defence where it is lost), so that the lengths
// become exact as visits allow (Search::proof_final). With immediate_wins, a new leaf whose side to move can leave the
// opponent without a legal move is proven won for that side at once (no network call; the
// node stays unexpanded), and a root with such a move visits it first: at a few dozen
// visits a candidate move that allows a mate in one is seen to lose on its first visit. The final choice is the
// shortest proven win (the longest proven loss when every move loses); a root whose proof is not final is searched on
// in the same way until the budget is spent, so that a shorter win (or a longer defence) is found when there is one.
//
// Implementation: search.cpp (rounds, tree reuse, PUCT), search_solver.cpp (proofs),
// search_gumbel.cpp (the Gumbel root), search_result.cpp (what a search reports).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/game.h"
#include "nn/evaluator.h"
#include "search/tree.h"

namespace xq::search {

enum class RootAlgorithm { PUCT, GUMBEL };

struct SearchParams {
  RootAlgorithm algorithm = RootAlgorithm::PUCT;
  float c_puct_init = 1.25f;     // AlphaZero's c_init
  float c_puct_base = 19652.0f;  // AlphaZero's c_base
  float fpu_reduction = 0.25f;   // unvisited child: parent value - reduction * sqrt(visited prior mass)
  float fpu_reduction_root = 0.0f;
  float dirichlet_alpha = 0.3f;  // root noise (PUCT, when asked for)
  float dirichlet_fraction = 0.25f;
  int gumbel_m = 16;  // root candidates (Gumbel)
  float gumbel_c_visit = 50.0f;
  float gumbel_c_scale = 1.0f;
  int max_collisions = 8;      // per gather(), before giving up on more leaves
  bool immediate_wins = true;  // one-ply win check at new leaves and at the root
  // Gumbel only for budgets up to this many new root visits: a longer search runs PUCT (root
  // and below, as algorithm PUCT would). 0: Gumbel at every budget.
  int gumbel_max_visits = 0;
};

// One root move's statistics.
struct RootMove {
  Move move;
  float prior = 0;  // the net's prior (before any root noise of the search)
  uint32_t visits = 0;
  float q = 0;                   // mean (win - loss) for the side to move at the root
  float draw = 0;                // mean draw probability
  Proven proven = Proven::NONE;  // proven outcome for the side to move at the root
  int proven_plies = 0;          // with proven: plies from the root to the proven end
  float target = 0;              // training target weight (visits share, or the Gumbel improved policy)
};

// The root-move choice, shared by Search::result and the UCI engine's merge of several trees.
// `allowed` (empty: every move) masks moves out.
// The proven move to play: the shortest proven win; when every move is proven (`all_proven`:
// the root is proven lost or drawn), a draw, else the longest loss. -1 when there is none.
int proven_choice(const std::vector<RootMove>& moves, bool all_proven, const std::vector<uint8_t>& allowed = {});
// The most visited move, then the better q, then the higher prior; -1 when none is allowed.
int most_visited(const std::vector<RootMove>& moves, const std::vector<uint8_t>& allowed = {});

struct SearchResult {
  Move best;                     // the search's choice (most visits, proven win, or Gumbel's pick)
  std::vector<RootMove> moves;   // every legal root move
  float value = 0;               // root mean (win - loss) for the side to move
  float draw = 0;                // root mean draw probability
  uint32_t visits = 0;           // root visits, those kept from tree reuse included
  Proven proven = Proven::NONE;  // for the side to move at the root
  int proven_plies = 0;          // with proven: plies to the proven end, through `best`
  std::vector<Move> pv;          // most visited line
};

// Depth figures of one search's simulations (those backed up since start_move(), kept as
// they are backed up, so reading them costs the same whatever the size of the tree).
struct SearchDepth {
  uint64_t simulations = 0;
  uint64_t plies = 0;  // sum over the simulations of their leaf's depth below the root
  int max = 0;         // the deepest leaf reached
  double average() const { return simulations ? double(plies) / double(simulations) : 0.0; }
};

class Search {
 public:
  explicit Search(const SearchParams& params = SearchParams(), uint64_t seed = 0);

  const SearchParams& params() const { return params_; }
  // Whether the search begun by the last start_move() is Gumbel's (algorithm GUMBEL and a
  // budget within gumbel_max_visits) rather than PUCT.
  bool gumbel() const { return gumbel_search_; }
  void set_params(const SearchParams& p) { params_ = p; }

  // Forgets the tree (a new game, or a position not reached by advance()).
  void reset();
  // Tree reuse for callers that get whole games (match players, the UCI engine): when
  // `game` continues the game of the last sync_to() (the same start position, its moves a
  // prefix of game's), the tree advances through the new moves; otherwise it is reset.
  void sync_to(const Game& game);
  // Takes back the leaves of the last gather() without evaluating them (their virtual loss
  // is reverted, nothing is backed up): the tree stays consistent after an evaluator error.
  void cancel_pending();
  // Root moves the next searches may choose and visit (UCI searchmoves, analysis
  // searchMoves); empty (the default) allows all. Taken at start_move(); listed moves that
  // are not legal at the root are ignored, and when none is legal every move is searched.
  // A kept tree (tree reuse) whose root has a child the filter excludes is dropped at
  // start_move(): its root statistics and proofs could rest on moves this search may not play.
  void set_root_filter(std::vector<Move> moves) { root_filter_ = std::move(moves); }
  // Per root edge (the order of result().moves): whether this search may play it (set by
  // start_move()).
  const std::vector<uint8_t>& root_allowed() const { return root_allowed_; }
  // Prepares a search from game's current position with a budget of `visits` new root
  // visits, i.e. simulations of this search (visits kept from tree reuse do not count).
  // A kept root judged over while the game goes on (Game::play_on) is searched afresh.
  // `exploration`: root noise (Dirichlet for PUCT, Gumbel samples for Gumbel); without it
  // the search is deterministic.
  void start_move(Game& game, int visits, bool exploration);
  // True when the budget is spent (or the root is proven, or has a single move) and nothing
  // is in flight.
  bool done() const;

  // Descends up to `max_leaves` times from the root, applying virtual loss, and appends one
  // request per leaf that needs the network. Terminal and proven leaves are backed up at
  // once. Fewer descents when the budget is spent, after too many collisions, or at the end
  // of a Gumbel phase. The requests point into this Search and stay valid until complete().
  // `game` must be at the root position; it is returned there.
  int gather(Game& game, int max_leaves, std::vector<nn::EvalRequest>& requests);
  // Takes the evaluations of the last gather()'s requests, in order.
  void complete(const nn::EvalResult* results, int count);

  // Convenience: runs a whole search with `evaluator`, `max_leaves` leaves per call
  // (search/search_driver.h's drive_search; an evaluator error propagates).
  SearchResult run(Game& game, nn::Evaluator& evaluator, int visits, bool exploration, int max_leaves = 8);

  SearchResult result() const;
  // The line after root move `first` (Tree::principal_variation, completed by the winning
  // move of a leaf the immediate-win check proved); result().pv is the best move's.
  std::vector<Move> principal_variation(Move first) const;
  // Keeps the subtree of `move` for the next search (tree reuse); start_move() must follow.
  void advance(Move move);

  const Tree& tree() const { return tree_; }
  uint64_t evaluations() const { return evaluations_; }
  uint64_t collisions() const { return collisions_; }
  const SearchDepth& depth() const { return depth_; }

 private:
  struct Pending {
    std::vector<NodeId> path;
    nn::EvalInput input;
  };
  // `kids`: the child behind each edge of n (Tree::children_of).
  void reach_leaf(NodeId n, Game& game, std::vector<nn::EvalRequest>& requests);
  Move edge_move(NodeId n, int e, NodeId child, const Position& pos) const;
  int select_child(NodeId n, bool is_root, const NodeId* kids);
  int select_puct(NodeId n, bool is_root, const NodeId* kids, bool skip_proven);
  int select_in_proof(NodeId n, bool is_root, const NodeId* kids);
  bool proof_final(NodeId n) const;
  void extend_with_immediate_win(std::vector<Move>& pv) const;
  int select_gumbel_interior(NodeId n, const NodeId* kids);
  // -1 while the current phase waits for its visits in flight (the round ends there).
  int select_gumbel_root(const NodeId* kids);
  bool root_settled() const;
  // Root visits made since start_move(), with or without those in flight.
  uint32_t new_visits(bool in_flight) const;
  void expand(NodeId n, const nn::EvalInput& input, const nn::EvalResult& result);
  void backup(const std::vector<NodeId>& path, float value, float draw, bool proven_leaf);
  void revert(const std::vector<NodeId>& path);
  void apply_root_noise();
  void init_gumbel();
  float sigma(float q_normalized, uint32_t max_visits) const;
  std::vector<float> completed_q(NodeId n, const NodeId* kids, float* max_visits) const;
  std::vector<float> improved_policy(NodeId n, const NodeId* kids) const;
  static float proven_value(Proven p) { return p == Proven::WIN ? 1.0f : p == Proven::LOSS ? -1.0f : 0.0f; }

  SearchParams params_;
  Tree tree_;
  std::mt19937_64 rng_;
  int budget_ = 0;             // new root visits
  uint32_t start_visits_ = 0;  // root visits at start_move() (kept from tree reuse)
  bool exploration_ = false;
  bool root_noise_applied_ = false;
  std::vector<float> root_net_prior_;  // the root's priors before apply_root_noise (empty: none)
  std::vector<Move> root_moves_;   // the root's legal moves in edge order (set by start_move)
  Position root_position_;         // the root position (set by start_move)
  std::vector<Move> root_filter_;  // set_root_filter()
  bool synced_ = false;            // sync_to(): the game the tree belongs to
  std::string synced_fen_;
  std::vector<Move> synced_moves_;
  std::vector<uint8_t> root_allowed_;  // per root edge: may be searched (set by start_move)
  int root_win_edge_ = -1;             // a root move that wins at once (immediate_wins), else -1
  std::vector<Pending> pending_;
  int n_pending_ = 0;
  std::vector<NodeId> path_;
  uint64_t evaluations_ = 0, collisions_ = 0;
  SearchDepth depth_;  // of this search (since start_move)
  // Gumbel root state.
  std::vector<float> gumbel_;          // per root edge
  std::vector<uint32_t> base_visits_;  // per root edge: its visits when the halving began
  std::vector<int> candidates_;        // root edge indices still in the halving
  uint32_t phase_target_ = 0;          // new visits each candidate should reach in this phase
  int phases_left_ = 0;
  bool gumbel_ready_ = false;
  bool gumbel_search_ = false;  // this search runs Gumbel (set by start_move)
};

}  // namespace xq::search
