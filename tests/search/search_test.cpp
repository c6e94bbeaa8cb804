// MCTS with the uniform and deterministic test evaluators (no torch): mates, targets,
// tree reuse, evaluator errors, determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/move_parse.h"
#include "search/search.h"
#include "search/search_driver.h"
#include "tests/support/search_fixtures.h"
#include "tests/support/test_positions.h"

namespace xq::search {
namespace {

using namespace fixtures;

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

// Root noise changes what PUCT explores, not the prior a result reports: RootMove.prior is the
// net's (self-play's surprise and search_kl are measured against it), with or without noise.
TEST(Search, ResultReportsTheNetsPriorUnderRootNoise) {
  Game game;
  SearchParams params = puct();
  params.dirichlet_fraction = 0.5f;
  nn::TestEvaluator evaluator(3);
  Search quiet(params, 1), noisy(params, 1);
  const SearchResult a = quiet.run(game, evaluator, 64, false);
  const SearchResult b = noisy.run(game, evaluator, 64, true);
  ASSERT_EQ(a.moves.size(), b.moves.size());
  double prior_sum = 0;
  bool visits_differ = false;
  for (size_t i = 0; i < a.moves.size(); ++i) {
    ASSERT_EQ(a.moves[i].move, b.moves[i].move);
    EXPECT_FLOAT_EQ(a.moves[i].prior, b.moves[i].prior) << move_to_iccs(a.moves[i].move);
    prior_sum += b.moves[i].prior;
    visits_differ |= a.moves[i].visits != b.moves[i].visits;
  }
  EXPECT_NEAR(prior_sum, 1.0, 1e-4);
  EXPECT_TRUE(visits_differ) << "the noise took effect on the search";
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

TEST(Search, GumbelAboveItsMaxVisitsIsThePuctSearch) {
  // Within gumbel_max_visits the halving keeps to its 4 candidates; above it the search is,
  // visit for visit, the one algorithm PUCT makes with the same parameters.
  SearchParams p = gumbel();
  p.gumbel_m = 4;
  p.gumbel_max_visits = 32;
  SearchParams as_puct = p;
  as_puct.algorithm = RootAlgorithm::PUCT;
  nn::TestEvaluator evaluator(7);
  auto visited = [](const SearchResult& r) {
    return int(std::count_if(r.moves.begin(), r.moves.end(), [](const RootMove& m) { return m.visits > 0; }));
  };
  {
    Game game;
    Search search(p, 6);
    const SearchResult r = search.run(game, evaluator, 32, false, 4);
    EXPECT_TRUE(search.gumbel());
    EXPECT_EQ(visited(r), 4);
  }
  // A fresh Game for each search: the test evaluator's priors follow the order moves are
  // generated in, which the captures and take-backs of an earlier search may have permuted.
  Game game, game_ref;
  Search search(p, 6), reference(as_puct, 6);
  const SearchResult r = search.run(game, evaluator, 200, false, 4);
  const SearchResult ref = reference.run(game_ref, evaluator, 200, false, 4);
  EXPECT_FALSE(search.gumbel());
  EXPECT_GT(visited(r), 4) << "PUCT is not held to the Gumbel candidates";
  EXPECT_EQ(r.best, ref.best);
  EXPECT_EQ(r.visits, ref.visits);
  ASSERT_EQ(r.moves.size(), ref.moves.size());
  for (size_t i = 0; i < r.moves.size(); ++i) {
    EXPECT_EQ(r.moves[i].visits, ref.moves[i].visits) << move_to_iccs(r.moves[i].move);
    EXPECT_EQ(r.moves[i].target, ref.moves[i].target) << move_to_iccs(r.moves[i].move);
  }
  // 0: Gumbel at every budget.
  p.gumbel_max_visits = 0;
  Game game_unlimited;
  Search unlimited(p, 6);
  EXPECT_EQ(visited(unlimited.run(game_unlimited, evaluator, 200, false, 4)), 4);
  EXPECT_TRUE(unlimited.gumbel());
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

}  // namespace
}  // namespace xq::search
