// The search tree: compact nodes in pools, indexed by 32-bit ids.
//
// A tree belongs to one search and is used by one thread at a time; simulations in flight
// (virtual loss) make parallelism inside a tree unnecessary, since leaves from many
// simulations and many games are batched into one evaluator call instead.
//
// Memory. Xiangqi positions have about 40 legal moves and most nodes of a large tree are
// leaves that were evaluated once, so per-edge storage dominates. An edge is only its prior
// (16 bits, in the node's prior pool); the move is not stored with the edge: the edges of a
// node follow the canonical order of its legal moves (canonical_moves: generation order
// sorted by the move's value). Nothing is stored for an edge that was never visited: the
// children of a node form a singly linked list (Node::first_child, Node::next_sibling, the
// most recently created first), and a child records its edge index and the move that leads
// to it. So a node costs sizeof(Node) (44 bytes) + 2 bytes per legal move, leaf or not,
// and nothing else (about 120 bytes per node in a search from the start position).
//
// Lookups: children_of() fills a per-edge array from one walk of the list (O(edges +
// children)); loops over all edges use that, never child_of() per edge.
//
// Values are stored from the point of view of the player who made the move into the node
// (the parent's side to move), so a parent picks the child with the best q directly.
#pragma once

#include <cstdint>
#include <vector>

#include "core/position.h"

namespace xq::search {

using NodeId = uint32_t;
constexpr NodeId kNoNode = 0;  // id 0 is never a node (the pools keep a sentinel there)

// Proven outcomes (MCTS-solver), from the point of view of the mover into the node.
enum class Proven : int8_t { LOSS = -1, DRAW = 0, WIN = 1, NONE = 2 };

struct Node {
  uint32_t first_prior = 0;  // index of edge 0's prior in the prior pool
  NodeId first_child = 0;    // the most recently created child; kNoNode when none
  NodeId next_sibling = 0;   // the next child of this node's parent; kNoNode at the end
  uint16_t num_edges = 0;
  uint16_t move = 0;          // Move::raw() of the move into this node (0 at the first root)
  uint16_t proven_plies = 0;  // with proven: plies to the proven end of the game (0: terminal)
  uint8_t edge = 0;           // this node's edge index in its parent (MAX_MOVES <= 256)
  uint8_t expanded = 0;       // priors exist (or the node is terminal)
  uint8_t pending = 0;        // waiting for an evaluation
  Proven proven = Proven::NONE;
  uint8_t terminal = 0;  // the game is over at this node; proven holds its outcome
  uint32_t visits = 0;
  uint32_t in_flight = 0;  // simulations through this node awaiting their evaluation
  float q = 0;             // mean of (win - loss) for the mover into the node
  float d = 0;             // mean draw probability
  float net_value = 0;     // the network's (win - loss) for the side to move at the node
};
static_assert(sizeof(Node) <= 44, "a node must stay within 44 bytes");
static_assert(MAX_MOVES <= 256, "Node::edge holds an edge index in 8 bits");

// Bytes per edge (its prior; the same for leaves and inner nodes: no child ids per edge).
constexpr size_t kEdgeBytes = sizeof(uint16_t);

// The legal moves of `pos` in the canonical edge order; returns the count.
int canonical_moves(const Position& pos, Move* out);

class Tree {
 public:
  Tree() { clear(); }
  void clear();

  NodeId root() const { return root_; }
  Node& node(NodeId id) { return nodes_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }

  float prior(const Node& n, int e) const { return float(priors_[n.first_prior + uint32_t(e)]) * (1.0f / 65535.0f); }
  void set_prior(const Node& n, int e, float p) {
    priors_[n.first_prior + uint32_t(e)] = uint16_t(p <= 0 ? 0 : p >= 1 ? 65535 : p * 65535.0f + 0.5f);
  }
  // Fills out[0, n.num_edges) with the child behind each edge (kNoNode for edges never
  // visited) in one walk of the children list; returns the number of children.
  int children_of(const Node& n, NodeId* out) const {
    for (int e = 0; e < n.num_edges; ++e) out[e] = kNoNode;
    int count = 0;
    for (NodeId c = n.first_child; c != kNoNode; c = nodes_[c].next_sibling, ++count) out[nodes_[c].edge] = c;
    return count;
  }
  // The child behind edge e, or kNoNode when that edge was never visited. Walks the list:
  // for single lookups only; loops over edges use children_of().
  NodeId child_of(const Node& n, int e) const {
    for (NodeId c = n.first_child; c != kNoNode; c = nodes_[c].next_sibling)
      if (nodes_[c].edge == e) return c;
    return kNoNode;
  }
  static Move move_of(const Node& child) { return Move::from_raw(child.move); }
  static int edge_of(const Node& child) { return child.edge; }

  // Gives node n `count` edges (priors zero); n must have none yet.
  void add_edges(NodeId n, int count);
  // Creates the child behind edge e of node n, reached by move `m`; the edge must have no
  // child yet. May reallocate the node pool: no Node& survives it.
  NodeId add_child(NodeId n, int e, Move m);

  // Makes the child reached by `move` the new root, keeping its subtree and freeing the
  // rest (the pools are compacted). Returns false (and clears the tree) when the root has
  // no such visited child.
  bool advance(Move move);

  // `first` (a root move), then at each step the move of the proof where the node is proven
  // (the shortest win, the longest defence), else the most visited child; at most 64 moves.
  std::vector<Move> principal_variation(Move first) const;

  size_t node_count() const { return nodes_.size() - 1; }
  size_t edge_count() const { return priors_.size(); }
  // Bytes in use by nodes (the sentinel included) and priors (not counting spare vector
  // capacity): (node_count() + 1) * sizeof(Node) + edge_count() * kEdgeBytes.
  size_t memory_bytes() const { return nodes_.size() * sizeof(Node) + priors_.size() * kEdgeBytes; }

 private:
  // The root's child reached by `move`, or kNoNode.
  NodeId root_child_by_move(Move move) const;

  std::vector<Node> nodes_;
  std::vector<uint16_t> priors_;
  NodeId root_ = kNoNode;
};

}  // namespace xq::search
