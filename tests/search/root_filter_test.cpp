// Root move filters (Search::set_root_filter, ParallelSettings::search_moves), behind UCI's
// go searchmoves and the analysis engine's searchMoves: only the listed legal moves are
// searched and chosen, illegal ones are ignored, none legal searches every move, and a kept
// tree never lends a filtered search the statistics or proofs of an excluded move.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/move_parse.h"
#include "core/movegen.h"
#include "search/parallel_search.h"
#include "search/root_merge.h"
#include "search/search.h"
#include "tests/support/search_fixtures.h"
#include "tests/support/test_positions.h"

namespace xq::search {
namespace {

using namespace fixtures;

uint32_t visits_of(const SearchResult& r, Move m) {
  for (const RootMove& rm : r.moves)
    if (rm.move == m) return rm.visits;
  return 0;
}

// Visits of the root's children outside `allowed`.
uint32_t visits_outside(const SearchResult& r, const std::vector<Move>& allowed) {
  uint32_t n = 0;
  for (const RootMove& rm : r.moves)
    if (std::find(allowed.begin(), allowed.end(), rm.move) == allowed.end()) n += rm.visits;
  return n;
}

TEST(RootFilter, OnlyTheListedMovesAreSearchedAndChosen) {
  const std::vector<Move> listed = {parse_iccs("h2e2"), parse_iccs("b0c2")};
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game;
    nn::TestEvaluator evaluator(5);
    Search search(params, 1);
    search.set_root_filter(listed);
    search.start_move(game, 200, false);
    ASSERT_TRUE(finish(search, game, evaluator, 8));
    const SearchResult r = search.result();
    EXPECT_EQ(r.visits, 200u);
    EXPECT_EQ(visits_outside(r, listed), 0u);
    EXPECT_EQ(visits_of(r, listed[0]) + visits_of(r, listed[1]), r.visits - 1) << "every visit but the root's own";
    EXPECT_GT(visits_of(r, listed[0]), 0u);
    EXPECT_GT(visits_of(r, listed[1]), 0u);
    EXPECT_NE(std::find(listed.begin(), listed.end(), r.best), listed.end()) << move_to_iccs(r.best);
  }
}

TEST(RootFilter, IllegalMovesAreIgnoredAndNoneLegalSearchesEverything) {
  const Move illegal = parse_iccs("a0a5");  // the chariot is blocked by its pawn
  ASSERT_FALSE(illegal_reason(Position(), illegal).empty());
  for (const SearchParams& params : {puct(), gumbel()}) {
    Game game;
    nn::TestEvaluator evaluator(5);
    Search one(params, 1);
    one.set_root_filter({illegal, parse_iccs("h2e2")});
    one.start_move(game, 60, false);
    ASSERT_TRUE(finish(one, game, evaluator, 8));
    EXPECT_EQ(one.result().best, parse_iccs("h2e2"));
    EXPECT_EQ(visits_of(one.result(), parse_iccs("h2e2")), 59u);

    // No listed move is legal: the same search as without a filter, visit for visit (each on
    // a fresh game: the test evaluator's answers depend on the move generation order, which
    // playing and undoing moves may change).
    Search none(params, 1), all(params, 1);
    Game g1, g2;
    none.set_root_filter({illegal});
    none.start_move(g1, 120, false);
    ASSERT_TRUE(finish(none, g1, evaluator, 8));
    all.start_move(g2, 120, false);
    ASSERT_TRUE(finish(all, g2, evaluator, 8));
    const SearchResult a = all.result(), n = none.result();
    ASSERT_EQ(a.moves.size(), n.moves.size());
    int searched = 0;
    for (size_t k = 0; k < a.moves.size(); ++k) {
      EXPECT_EQ(a.moves[k].visits, n.moves[k].visits) << move_to_iccs(a.moves[k].move);
      searched += n.moves[k].visits > 0;
    }
    EXPECT_GT(searched, 2);
    EXPECT_EQ(a.best, n.best);
  }
}

// After a search has proven the mate in one, a search restricted to other moves must not be
// ended by that proof nor report it: the kept tree is dropped.
TEST(RootFilter, AKeptTreeLendsNothingOfAnExcludedMove) {
  const Game game(kMateInOne);
  const Move mate = parse_iccs("h6d6");
  Move other;
  for (Move m : MoveList(game.position()))
    if (m != mate && other.is_none()) other = m;
  for (const SearchParams& params : {puct(), gumbel()}) {
    nn::UniformEvaluator uniform;
    Search search(params, 1);
    Game g = game;
    search.sync_to(g);
    search.start_move(g, 100, false);
    ASSERT_TRUE(finish(search, g, uniform, 8));
    ASSERT_EQ(search.result().best, mate);
    ASSERT_EQ(search.result().proven, Proven::WIN);

    search.set_root_filter({other});
    search.sync_to(g);
    search.start_move(g, 50, false);
    ASSERT_TRUE(finish(search, g, uniform, 8));
    const SearchResult r = search.result();
    EXPECT_EQ(r.best, other);
    EXPECT_NE(r.proven, Proven::WIN);
    EXPECT_EQ(visits_of(r, mate), 0u);
    EXPECT_EQ(r.visits, 50u) << "50 new visits, from a fresh root";
    for (const RootStat& s : root_stats(search)) EXPECT_EQ(s.move, other);
  }
}

ParallelSettings restricted(int threads, std::vector<Move> moves) {
  ParallelSettings s;
  s.threads = threads;
  s.leaves_per_batch = 4;
  s.search_moves = std::move(moves);
  return s;
}

void run_to_end(ParallelSearch& ps) {
  ps.start_helpers();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!ps.all_finished() && std::chrono::steady_clock::now() < give_up)
    if (!ps.main_round(false)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(ps.all_finished()) << "the helpers did not finish within a minute";
  ps.stop_helpers();
}

// Every worker of a root-parallel search keeps to the filter, and the merge chooses from it,
// also after the workers' kept trees proved an excluded mate.
TEST(RootFilter, EveryParallelWorkerKeepsToIt) {
  nn::UniformEvaluator uniform;
  ParallelSearch ps({nullptr, nullptr});
  const Game game(kMateInOne);
  const Move mate = parse_iccs("h6d6");
  ps.prepare(game, restricted(3, {}), 300, uniform);
  run_to_end(ps);
  ASSERT_EQ(ps.best_move(ps.merged_stats()), mate);

  std::vector<Move> others;
  for (Move m : MoveList(game.position()))
    if (m != mate && others.size() < 3) others.push_back(m);
  ps.prepare(game, restricted(3, others), 300, uniform);
  run_to_end(ps);
  const std::vector<RootStat> merged = ps.merged_stats();
  ASSERT_FALSE(merged.empty());
  uint64_t visits = 0;
  for (const RootStat& s : merged) {
    EXPECT_NE(std::find(others.begin(), others.end(), s.move), others.end()) << move_to_iccs(s.move);
    EXPECT_NE(s.proven, Proven::WIN) << move_to_iccs(s.move);
    visits += s.visits;
  }
  EXPECT_GE(visits, 300u - 3u);
  const Move best = ps.best_move(merged);
  EXPECT_NE(std::find(others.begin(), others.end(), best), others.end()) << move_to_iccs(best);
}

}  // namespace
}  // namespace xq::search
