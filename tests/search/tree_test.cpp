// The search tree: compact nodes and edges, a large tree checked node by node, edges in
// the canonical move order.
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

}  // namespace
}  // namespace xq::search
