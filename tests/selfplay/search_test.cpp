// MCTS tests with the uniform and deterministic test evaluators (no torch).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/move_parse.h"
#include "selfplay/search.h"
#include "selfplay/search_driver.h"
#include "tests/support/test_positions.h"

namespace xq::selfplay {
namespace {

SearchParams puct() { return SearchParams(); }
// Gumbel with every legal move a root candidate: with uniform priors and no Gumbel noise,
// a smaller m would consider only the first m moves of the edge order.
SearchParams gumbel() {
  SearchParams p;
  p.algorithm = RootAlgorithm::GUMBEL;
  p.gumbel_m = 128;
  return p;
}

// Visits every node of the tree.
void for_each_node(const Tree& tree, const std::function<void(const Node&)>& f) {
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
bool finish(Search& search, Game& game, nn::Evaluator& evaluator, int max_leaves, int max_rounds = 100000) {
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

uint32_t root_visits(const Search& search) { return search.tree().node(search.tree().root()).visits; }

// h6d6 is Red's only move that wins at once (mate, or stalemate, which also loses).
const char* kMateInOne = "3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w";
const char* kMateInTwo = "3R5/9/5k3/9/9/9/9/1C7/3K5/9 w";

TEST(Search, FindsTheOnlyMateInOne) {
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game(kMateInOne);
    nn::UniformEvaluator uniform;
    Search search(params, 1);
    const SearchResult r = search.run(game, uniform, 400, false);
    EXPECT_EQ(move_to_iccs(r.best), "h6d6");
    EXPECT_EQ(r.proven, Proven::WIN);
    EXPECT_EQ(r.proven_plies, 1);
    EXPECT_TRUE(test::mates_in_one(game.position(), r.best));
    EXPECT_EQ(game.ply(), 0) << "the game is returned to the root";
  }
}

TEST(Search, FindsAMateInTwo) {
  // Both algorithms: the solver ranks proven wins by length and a root proven won by a
  // longer win is searched on, so Gumbel's halving proving a longer forced win first does
  // not keep it from the mate in two.
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game(kMateInTwo);
    ASSERT_FALSE(test::has_mate_in_one(game.position()));
    nn::UniformEvaluator uniform;
    Search search(params, 2);
    const SearchResult r = search.run(game, uniform, 3000, false);
    EXPECT_TRUE(test::mates_in_two(game.position(), r.best)) << move_to_iccs(r.best);
    EXPECT_EQ(r.proven, Proven::WIN);
    EXPECT_EQ(r.proven_plies, 3);
    for (const RootMove& m : r.moves)
      if (m.proven == Proven::WIN) {
        EXPECT_GE(m.proven_plies, r.proven_plies) << move_to_iccs(m.move);
      }
  }
}

TEST(Search, ResistsLongestWhenLost) {
  // Black to move is lost with either of its two moves: one allows a mate in one, the other
  // only a forced win in two. The choice is the longer defence.
  const char* fen = "3k5/4CR3/9/9/9/9/9/4K4/9/9 b";
  Game game(fen);
  ASSERT_EQ(MoveList(game.position()).size(), 2);
  Move slow;
  for (Move m : MoveList(game.position())) {
    Position after = game.position();
    UndoInfo u;
    after.do_move(m, u);
    if (!test::has_mate_in_one(after)) slow = m;
  }
  ASSERT_FALSE(slow.is_none());
  for (SearchParams params : {puct(), gumbel()})
    for (bool immediate : {false, true}) {
      params.immediate_wins = immediate;
      nn::UniformEvaluator uniform;
      Search search(params, 3);
      const SearchResult r = search.run(game, uniform, 20000, false);
      EXPECT_EQ(r.proven, Proven::LOSS);
      EXPECT_EQ(move_to_iccs(r.best), move_to_iccs(slow));
      // Exact lengths: the immediate-win check proves Red's longer wins early too, and the
      // search goes on below them until the shortest is proven.
      EXPECT_EQ(r.proven_plies, 4);
      for (const RootMove& m : r.moves) EXPECT_EQ(m.proven_plies, m.move == slow ? 4 : 2) << move_to_iccs(m.move);
    }
}

TEST(Search, AvoidsAMoveThatAllowsMateInOne) {
  // Black to move: some of its moves let Red win at once (f1f9 and others), some do not.
  // The search must choose one after which Red has no winning move.
  const char* fen = "3k5/R8/9/9/9/9/9/3r5/5R3/4K4 b";
  Game game(fen);
  int safe = 0;
  for (Move m : MoveList(game.position())) {
    Position after = game.position();
    UndoInfo u;
    after.do_move(m, u);
    safe += !test::has_mate_in_one(after);
  }
  ASSERT_GT(safe, 0);
  ASSERT_LT(safe, MoveList(game.position()).size()) << "some move must allow a mate";
  for (const SearchParams& params : {puct(), gumbel()}) {
    nn::UniformEvaluator uniform;
    Search search(params, 3);
    const SearchResult r = search.run(game, uniform, 2000, false);
    Position after = game.position();
    UndoInfo u;
    after.do_move(r.best, u);
    EXPECT_FALSE(test::has_mate_in_one(after)) << move_to_iccs(r.best);
  }
}

TEST(Search, ImmediateWinCheckSeesMateThreatsOnTheFirstVisit) {
  // Gumbel with every root move a candidate and a budget of one visit each (plus the
  // root's): each move that lets Red win at once is proven lost on its single visit, with
  // no network call for the position after it, so the choice is a safe move.
  const char* fen = "3k5/R8/9/9/9/9/9/3r5/5R3/4K4 b";
  Game game(fen);
  const int n = MoveList(game.position()).size();
  SearchParams params = gumbel();
  ASSERT_TRUE(params.immediate_wins);
  nn::UniformEvaluator uniform;
  Search search(params, 3);
  const SearchResult r = search.run(game, uniform, n + 1, false);
  int lost = 0;
  for (const RootMove& m : r.moves) {
    Position after = game.position();
    UndoInfo u;
    after.do_move(m.move, u);
    const bool allows = test::has_mate_in_one(after);
    EXPECT_EQ(m.visits, 1u) << move_to_iccs(m.move);
    EXPECT_EQ(m.proven == Proven::LOSS, allows) << move_to_iccs(m.move);
    if (allows) {
      EXPECT_EQ(m.proven_plies, 2) << move_to_iccs(m.move);
      ++lost;
    }
  }
  ASSERT_GT(lost, 0);
  EXPECT_EQ(search.evaluations(), uint64_t(1 + n - lost)) << "proven leaves need no evaluation";
  Position after = game.position();
  UndoInfo u;
  after.do_move(r.best, u);
  EXPECT_FALSE(test::has_mate_in_one(after)) << move_to_iccs(r.best);
}

TEST(Search, ImmediateWinAtTheRootIsPlayedOutsideTheCandidates) {
  // Gumbel with one candidate: without the check the mate is found only if Gumbel-top-1
  // picks it; with it, two visits (the root's evaluation, then the mate) prove the win.
  Game game(kMateInOne);
  SearchParams params = gumbel();
  params.gumbel_m = 1;
  for (bool exploration : {false, true}) {
    nn::UniformEvaluator uniform;
    Search search(params, 11);
    const SearchResult r = search.run(game, uniform, 2, exploration);
    EXPECT_EQ(move_to_iccs(r.best), "h6d6");
    EXPECT_EQ(r.proven, Proven::WIN);
    EXPECT_EQ(r.proven_plies, 1);
    EXPECT_EQ(search.evaluations(), 1u);
  }
}

TEST(Search, ImmediateWinCheckCanBeTurnedOff) {
  // Without the check, the position after a move that allows a mate goes to the network
  // like any other: every root move's first visit is one evaluation.
  const char* fen = "3k5/R8/9/9/9/9/9/3r5/5R3/4K4 b";
  Game game(fen);
  const int n = MoveList(game.position()).size();
  SearchParams params = gumbel();
  params.immediate_wins = false;
  nn::UniformEvaluator uniform;
  Search search(params, 3);
  const SearchResult r = search.run(game, uniform, n + 1, false);
  EXPECT_EQ(search.evaluations(), uint64_t(1 + n));
  for (const RootMove& m : r.moves) EXPECT_EQ(m.proven, Proven::NONE) << move_to_iccs(m.move);
}

TEST(Search, VisitCountsAddUpAndVirtualLossLeavesNoTrace) {
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game;
    nn::TestEvaluator evaluator(5);
    Search search(params, 4);
    const SearchResult r = search.run(game, evaluator, 800, true, 16);
    EXPECT_GE(r.visits, 800u);
    uint32_t child_sum = 0;
    for (const RootMove& m : r.moves) child_sum += m.visits;
    EXPECT_EQ(r.visits, child_sum + 1);
    size_t expanded = 0;
    for_each_node(search.tree(), [&](const Node& n) {
      EXPECT_EQ(n.in_flight, 0u);
      EXPECT_EQ(n.pending, 0);
      if (!n.expanded || n.terminal) return;
      ++expanded;
      uint32_t sum = 0;
      for (NodeId c = n.first_child; c != kNoNode; c = search.tree().node(c).next_sibling)
        sum += search.tree().node(c).visits;
      if (n.proven == Proven::NONE) {
        EXPECT_EQ(n.visits, sum + 1);
      }
    });
    // Every evaluation expanded exactly one node: collisions cost no evaluation.
    EXPECT_EQ(search.evaluations(), expanded);
    EXPECT_EQ(evaluator.positions(), expanded);
  }
}

TEST(Search, TargetsArePolicies) {
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game;
    nn::TestEvaluator evaluator(6);
    Search search(params, 5);
    const SearchResult r = search.run(game, evaluator, 200, true, 8);
    ASSERT_EQ(r.moves.size(), 44u);
    float sum = 0;
    for (const RootMove& m : r.moves) {
      EXPECT_GE(m.target, 0.0f);
      sum += m.target;
    }
    EXPECT_NEAR(sum, 1.0f, 1e-4);
    EXPECT_GE(r.pv.size(), 2u);
    EXPECT_EQ(r.pv[0], r.best);
  }
}

TEST(Search, GumbelHalvesTheCandidates) {
  // With m = 4 candidates and 16 visits, sequential halving visits at most 4 root moves,
  // and the chosen move is one of the most visited.
  SearchParams p = gumbel();
  p.gumbel_m = 4;
  Game game;
  nn::TestEvaluator evaluator(7);
  Search search(p, 6);
  const SearchResult r = search.run(game, evaluator, 16, true, 1);
  int visited = 0;
  uint32_t most = 0, chosen = 0;
  for (const RootMove& m : r.moves) {
    visited += m.visits > 0;
    most = std::max(most, m.visits);
    if (m.move == r.best) chosen = m.visits;
  }
  EXPECT_EQ(visited, 4);
  EXPECT_EQ(chosen, most);
}

TEST(Search, TreeReuseKeepsTheSubtree) {
  Game game;
  nn::TestEvaluator evaluator(8);
  Search search(puct(), 7);
  const SearchResult r = search.run(game, evaluator, 600, false, 8);
  uint32_t child_visits = 0;
  for (const RootMove& m : r.moves)
    if (m.move == r.best) child_visits = m.visits;
  const size_t before = search.tree().node_count();
  search.advance(r.best);
  game.play(r.best);
  EXPECT_EQ(search.tree().node(search.tree().root()).visits, child_visits);
  EXPECT_LT(search.tree().node_count(), before);
  const SearchResult next = search.run(game, evaluator, 600, false, 8);
  EXPECT_EQ(next.visits, child_visits + 600) << "the budget counts new visits";
  // An unknown move clears the tree.
  search.advance(Move(0, 1));
  EXPECT_EQ(search.tree().node_count(), 1u);
}

TEST(Search, SyncToKeepsTheTreeOfAContinuedGame) {
  Game game;
  nn::TestEvaluator evaluator(8);
  Search search(puct(), 7);
  search.sync_to(game);
  const SearchResult r = search.run(game, evaluator, 400, false, 8);
  uint32_t child_visits = 0;
  for (const RootMove& m : r.moves)
    if (m.move == r.best) child_visits = m.visits;
  game.play(r.best);
  search.sync_to(game);  // the game went on by the searched move: its subtree is kept
  EXPECT_EQ(search.tree().node(search.tree().root()).visits, child_visits);
  Game other;
  other.play(std::string("a3a4"));
  search.sync_to(other);  // not a continuation: a fresh tree
  EXPECT_EQ(search.tree().node_count(), 1u);
  EXPECT_EQ(search.tree().node(search.tree().root()).visits, 0u);
}

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
  int fail_at_, calls_ = 0;
  nn::TestEvaluator inner_;
};

TEST(Search, AnEvaluatorErrorLeavesAConsistentTree) {
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game;
    Search search(params, 5);
    FailingEvaluator failing(6);
    search.start_move(game, 500, false);
    EXPECT_THROW(drive_search(search, game, failing, 8), std::runtime_error);
    EXPECT_EQ(game.ply(), 0);
    const uint32_t visits = root_visits(search);
    for_each_node(search.tree(), [](const Node& n) {
      EXPECT_EQ(n.in_flight, 0u);
      EXPECT_EQ(n.pending, 0);
    });
    // The cancelled leaves are searched again: the same search finishes with a working
    // evaluator, and nothing fake was backed up (the visits are those of answered leaves).
    nn::TestEvaluator good(3);
    EXPECT_TRUE(drive_search(search, game, good, 8));
    EXPECT_GE(root_visits(search), 500u);
    EXPECT_GT(root_visits(search), visits);
    uint32_t sum = 0;
    for (const RootMove& m : search.result().moves) sum += m.visits;
    EXPECT_EQ(sum + 1, root_visits(search));
  }
}

TEST(Search, DriveSearchStopsAtTheStopFlagAndAfterRound) {
  Game game;
  nn::UniformEvaluator uniform;
  Search search(puct(), 1);
  search.start_move(game, 100000, false);
  std::atomic<bool> stop{true};
  DriveLimits limits;
  limits.stop = &stop;
  EXPECT_FALSE(drive_search(search, game, uniform, 8, limits));
  EXPECT_EQ(root_visits(search), 0u) << "a raised stop flag runs no round";
  stop = false;
  int rounds = 0;
  limits.after_round = [&] { return ++rounds < 5; };
  EXPECT_FALSE(drive_search(search, game, uniform, 8, limits));
  EXPECT_EQ(rounds, 5);
  EXPECT_GT(root_visits(search), 0u);
}

TEST(Search, SameSeedSameGame) {
  auto play = [](uint64_t seed) {
    Game game;
    nn::TestEvaluator evaluator(9);
    Search search(puct(), seed);
    std::vector<Move> moves;
    for (int ply = 0; ply < 20 && !game.over(); ++ply) {
      const SearchResult r = search.run(game, evaluator, 64, true, 4);
      moves.push_back(r.best);
      search.advance(r.best);
      game.play(r.best);
    }
    return moves;
  };
  EXPECT_EQ(play(11), play(11));
}

TEST(Search, TerminalRootIsDoneAtOnce) {
  Game game("3k1R3/9/9/9/9/9/9/9/9/3RK4 b");  // black is mated
  nn::UniformEvaluator uniform;
  Search search(puct(), 1);
  search.start_move(game, 100, false);
  std::vector<nn::EvalRequest> requests;
  EXPECT_EQ(search.gather(game, 8, requests), 0);
  EXPECT_TRUE(search.done());
  EXPECT_EQ(search.result().proven, Proven::LOSS);
  EXPECT_EQ(uniform.positions(), 0u);
}

TEST(Search, NodesAndEdgesAreCompact) {
  EXPECT_LE(sizeof(Node), 44u);
  EXPECT_EQ(kEdgeBytes, 2u);
  // A search's tree costs what its pools hold: nodes (the sentinel included) and 2 bytes
  // per edge, nothing per child.
  Game game;
  nn::TestEvaluator evaluator(3);
  Search search(SearchParams(), 1);
  search.run(game, evaluator, 2000, false, 8);
  const Tree& t = search.tree();
  EXPECT_GE(t.node_count(), 1500u);
  EXPECT_EQ(t.memory_bytes(), (t.node_count() + 1) * sizeof(Node) + t.edge_count() * kEdgeBytes);
}

// Checks the whole tree below the root of `search` (at `game`'s position): every node is
// reached once, children have distinct edges whose canonical move they record, visit counts
// add up, nothing is left in flight, and the pools hold exactly the reachable nodes and
// their edges. Returns the number of nodes.
size_t check_tree(const Search& search, Game& game) {
  const Tree& t = search.tree();
  size_t nodes = 0, edges = 0;
  std::function<void(NodeId)> walk = [&](NodeId id) {
    const Node& n = t.node(id);
    ++nodes;
    edges += n.num_edges;
    EXPECT_EQ(n.in_flight, 0u);
    EXPECT_EQ(n.pending, 0);
    if (!n.expanded || n.terminal) {
      EXPECT_EQ(n.first_child, kNoNode);
      return;
    }
    Move moves[MAX_MOVES];
    EXPECT_EQ(canonical_moves(game.position(), moves), n.num_edges);
    NodeId kids[MAX_MOVES];
    const int count = t.children_of(n, kids);
    int seen = 0;
    uint32_t sum = 0;
    for (int e = 0; e < n.num_edges; ++e) {
      if (kids[e] == kNoNode) continue;
      ++seen;
      const Node& c = t.node(kids[e]);
      EXPECT_EQ(Tree::edge_of(c), e);
      EXPECT_EQ(t.child_of(n, e), kids[e]);
      EXPECT_EQ(Tree::move_of(c), moves[e]);
      sum += c.visits;
      game.play(moves[e]);
      walk(kids[e]);
      game.undo();
    }
    EXPECT_EQ(seen, count) << "two children on one edge";
    if (n.proven == Proven::NONE) {
      EXPECT_EQ(n.visits, sum + 1);
    }
  };
  walk(t.root());
  EXPECT_EQ(nodes, t.node_count()) << "every node is reachable from the root";
  EXPECT_EQ(edges, t.edge_count());
  EXPECT_EQ(t.memory_bytes(), (t.node_count() + 1) * sizeof(Node) + t.edge_count() * kEdgeBytes);
  return nodes;
}

TEST(Search, LargeTreeIsConsistentAndSurvivesReuse) {
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game;
    nn::UniformEvaluator uniform;
    Search search(params, 12);
    const SearchResult r = search.run(game, uniform, 20000, false, 16);
    EXPECT_GE(r.visits, 20000u);
    uint32_t child_sum = 0;
    for (const RootMove& m : r.moves) child_sum += m.visits;
    EXPECT_EQ(r.visits, child_sum + 1);
    const size_t nodes = check_tree(search, game);
    EXPECT_GE(nodes, 15000u);
    // About 40 moves a position: a node with its edges costs well under 64 + 8 * 40 bytes.
    EXPECT_LT(search.tree().memory_bytes(), nodes * (sizeof(Node) + 2 * 48));

    // Tree reuse keeps exactly the chosen move's subtree, with its visits.
    const Tree& t = search.tree();
    const NodeId kept = t.child_of(t.node(t.root()), [&] {
      for (int e = 0; e < int(r.moves.size()); ++e)
        if (r.moves[size_t(e)].move == r.best) return e;
      return -1;
    }());
    ASSERT_NE(kept, kNoNode);
    const uint32_t kept_visits = t.node(kept).visits;
    size_t kept_nodes = 0;
    std::function<void(NodeId)> count = [&](NodeId id) {
      ++kept_nodes;
      for (NodeId c = t.node(id).first_child; c != kNoNode; c = t.node(c).next_sibling) count(c);
    };
    count(kept);
    search.advance(r.best);
    game.play(r.best);
    EXPECT_EQ(search.tree().node(search.tree().root()).visits, kept_visits);
    EXPECT_EQ(check_tree(search, game), kept_nodes);
    const SearchResult next = search.run(game, uniform, 20000, false, 16);
    EXPECT_EQ(next.visits, kept_visits + 20000);
    check_tree(search, game);
  }
}

TEST(Search, EdgesFollowTheCanonicalMoveOrder) {
  // Children record the move leading to them, which must be the canonical move of its edge.
  Game game;
  nn::TestEvaluator evaluator(4);
  Search search(SearchParams(), 2);
  const SearchResult r = search.run(game, evaluator, 300, false, 4);
  Move moves[MAX_MOVES];
  const int n = canonical_moves(game.position(), moves);
  const Tree& t = search.tree();
  const Node& root = t.node(t.root());
  ASSERT_EQ(root.num_edges, n);
  for (int e = 0; e < n; ++e) {
    EXPECT_EQ(r.moves[size_t(e)].move, moves[e]);
    if (const NodeId c = t.child_of(root, e); c != kNoNode) {
      EXPECT_EQ(Tree::move_of(t.node(c)), moves[e]);
      EXPECT_EQ(Tree::edge_of(t.node(c)), e);
    }
  }
}

TEST(Search, GumbelHalvingWaitsForTheEvaluationsInFlight) {
  // Two candidates and a budget of one phase of one visit each: both first visits are in
  // flight together when a round gathers several leaves. The halving that decides the move
  // must wait for their values: the second candidate's position is lost for the opponent,
  // so it is the choice however many leaves a round gathers.
  Game game;
  const nn::EvalInput root = nn::make_eval_input(game.position());
  Move moves[MAX_MOVES];
  const int n = canonical_moves(game.position(), moves);
  const Move first = moves[0], second = moves[1];  // the candidates, by their priors below
  Position after = game.position();
  UndoInfo u;
  after.do_move(second, u);
  const uint64_t lost_for_opponent = nn::make_eval_input(after).key;
  ScriptedEvaluator evaluator([&](const nn::EvalRequest& q, nn::EvalResult& a) {
    a.priors.assign(size_t(q.n_labels), 1.0f / float(q.n_labels));
    a.wdl = {1.0f / 3, 1.0f / 3, 1.0f / 3};
    if (q.key == root.key)
      for (int i = 0; i < q.n_labels; ++i) {
        const Move m = root.moves[size_t(i)];
        a.priors[size_t(i)] = m == first ? 0.32f : m == second ? 0.28f : 0.4f / float(n - 2);
      }
    if (q.key == lost_for_opponent) a.wdl = {0.0f, 0.0f, 1.0f};
  });
  SearchParams p = gumbel();
  p.gumbel_m = 2;
  for (int leaves : {1, 8}) {
    Search search(p, 1);
    search.start_move(game, 4, false);
    ASSERT_TRUE(finish(search, game, evaluator, leaves));
    EXPECT_EQ(move_to_iccs(search.result().best), move_to_iccs(second)) << leaves << " leaves per round";
  }
}

TEST(Search, EverySearchFinishes) {
  // Small budgets (below the candidate count too), several leaves per round, proven and
  // terminal children, a single legal move, and tree reuse: every search ends, spends no
  // more than its budget of new visits, and all of it unless the root is proven or forced.
  const char* fens[] = {Position::kStartFen, kMateInOne, kMateInTwo, "3k5/4CR3/9/9/9/9/9/4K4/9/9 b",
                        "3k5/3R5/9/9/9/9/9/9/9/4K4 b"};
  std::vector<SearchParams> all{puct()};
  for (int m : {2, 3, 16}) {
    SearchParams p = gumbel();
    p.gumbel_m = m;
    all.push_back(p);
  }
  nn::TestEvaluator evaluator(13);
  for (const char* fen : fens)
    for (const SearchParams& params : all)
      for (int budget : {1, 2, 3, 7, 33})
        for (int leaves : {1, 3, 8}) {
          const std::string what = std::string(fen) + ", m " + std::to_string(params.gumbel_m) + ", budget " +
                                   std::to_string(budget) + ", " + std::to_string(leaves) + " leaves";
          Game game(fen);
          Search search(params, 5);
          for (int move = 0; move < 3 && !game.over(); ++move) {  // then two reused trees
            const uint32_t before = root_visits(search);
            search.start_move(game, budget, move == 1);
            ASSERT_TRUE(finish(search, game, evaluator, leaves)) << what << ", move " << move;
            const SearchResult r = search.result();
            EXPECT_LE(r.visits, before + uint32_t(budget)) << what;
            if (r.proven == Proven::NONE && r.moves.size() > 1) {
              EXPECT_EQ(r.visits, before + uint32_t(budget)) << what;
            }
            search.advance(r.best);
            game.play(r.best);
          }
        }
}

TEST(Search, BudgetCountsNewVisitsAfterTreeReuse) {
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game;
    nn::TestEvaluator evaluator(10);
    Search search(params, 8);
    const SearchResult first = search.run(game, evaluator, 400, false, 8);
    search.advance(first.best);
    game.play(first.best);
    const uint32_t kept = root_visits(search);
    ASSERT_GT(kept, 40u) << "the kept subtree alone is over the next budget";
    const uint64_t evaluations = search.evaluations();
    const SearchResult next = search.run(game, evaluator, 40, false, 8);
    EXPECT_EQ(next.visits, kept + 40);
    EXPECT_GT(search.evaluations(), evaluations);
  }
}

// The depth figures are kept as simulations are backed up (no walk of the tree): on a fresh
// tree they match the tree itself (each simulation that reaches depth k passes k non-root
// nodes, so the non-root visits sum to the simulations' depths); after tree reuse they
// describe the new search's simulations only.
TEST(Search, DepthFiguresCountThisSearchsSimulations) {
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game;
    nn::TestEvaluator evaluator(10);
    Search search(params, 8);
    const SearchResult first = search.run(game, evaluator, 500, false, 8);
    uint64_t non_root_visits = 0;
    int deepest = 0;
    std::vector<std::pair<NodeId, int>> stack{{search.tree().root(), 0}};
    while (!stack.empty()) {
      const auto [id, depth] = stack.back();
      stack.pop_back();
      const Node& n = search.tree().node(id);
      if (depth > 0) non_root_visits += n.visits;
      if (n.visits > 0) deepest = std::max(deepest, depth);
      for (NodeId c = n.first_child; c != kNoNode; c = search.tree().node(c).next_sibling)
        stack.push_back({c, depth + 1});
    }
    const SearchDepth& d = search.depth();
    EXPECT_EQ(d.simulations, 500u);
    EXPECT_EQ(d.plies, non_root_visits);
    EXPECT_EQ(d.max, deepest);
    EXPECT_GT(d.average(), 1.0);

    search.advance(first.best);
    game.play(first.best);
    search.start_move(game, 30, false);
    EXPECT_EQ(search.depth().simulations, 0u) << "kept visits are not this search's";
    EXPECT_TRUE(finish(search, game, evaluator, 8));
    EXPECT_EQ(search.depth().simulations, 30u);
    EXPECT_GE(search.depth().max, 1);
    search.reset();
    EXPECT_EQ(search.depth().simulations, 0u);
  }
}

TEST(Search, GumbelHalvesAgainAfterTreeReuse) {
  // A reused root whose children already have visits: a Gumbel search with m = 4 and 16 new
  // visits still runs its own sequential halving, as GumbelHalvesTheCandidates does on a new
  // tree: 4 root moves get new visits, 2 of them more than one, the chosen one the most.
  Game game;
  nn::TestEvaluator evaluator(7);
  Search search(gumbel(), 6);
  const SearchResult first = search.run(game, evaluator, 2000, false, 8);
  search.advance(first.best);
  game.play(first.best);
  SearchParams p = gumbel();
  p.gumbel_m = 4;
  search.set_params(p);
  search.start_move(game, 16, false);
  const SearchResult before = search.result();
  ASSERT_TRUE(finish(search, game, evaluator, 1));
  const SearchResult after = search.result();
  ASSERT_EQ(after.moves.size(), before.moves.size());
  int visited = 0, more_than_one = 0;
  uint32_t most = 0, chosen = 0, total = 0;
  for (size_t i = 0; i < after.moves.size(); ++i) {
    const uint32_t added = after.moves[i].visits - before.moves[i].visits;
    visited += added > 0;
    more_than_one += added > 1;
    most = std::max(most, added);
    total += added;
    if (after.moves[i].move == after.best) chosen = added;
  }
  EXPECT_EQ(total, 16u);
  EXPECT_EQ(visited, 4);
  EXPECT_EQ(more_than_one, 2);
  EXPECT_EQ(chosen, most);
}

}  // namespace
}  // namespace xq::selfplay
