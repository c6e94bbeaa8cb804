// Search budgets and phases: Gumbel halving with evaluations in flight, every search
// finishing, budgets and depth figures after tree reuse.
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
}  // namespace xq::search
