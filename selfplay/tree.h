// The search tree: compact nodes and edges in two pools, indexed by 32-bit ids.
//
// A tree belongs to one search and is used by one thread at a time; simulations in flight
// (virtual loss) make parallelism inside a tree unnecessary, since leaves from many
// simulations and many games are batched into one evaluator call instead.
//
// Values are stored from the point of view of the player who made the move into the node
// (the parent's side to move), so a parent picks the child with the best q directly.
#pragma once

#include <cstdint>
#include <vector>

#include "core/types.h"

namespace xq::selfplay {

using NodeId = uint32_t;
constexpr NodeId kNoNode = 0;  // id 0 is never a child (the pools keep a sentinel there)

struct Edge {
  uint16_t move;   // Move::raw()
  uint16_t prior;  // prior probability * 65535, rounded
  NodeId child;    // kNoNode until the edge is first visited
  float prior_f() const { return float(prior) * (1.0f / 65535.0f); }
  void set_prior(float p) { prior = uint16_t(p <= 0 ? 0 : p >= 1 ? 65535 : p * 65535.0f + 0.5f); }
};
static_assert(sizeof(Edge) == 8, "an edge is 8 bytes");

// Proven outcomes (MCTS-solver), from the point of view of the mover into the node.
enum class Proven : int8_t { LOSS = -1, DRAW = 0, WIN = 1, NONE = 2 };

struct Node {
  uint32_t first_edge = 0;
  uint16_t num_edges = 0;
  uint8_t expanded = 0;  // children's edges exist (or the node is terminal)
  uint8_t pending = 0;   // waiting for an evaluation
  Proven proven = Proven::NONE;
  uint8_t terminal = 0;  // the game is over at this node; proven holds its outcome
  uint16_t reserved = 0;
  uint32_t visits = 0;
  uint32_t in_flight = 0;  // simulations through this node awaiting their evaluation
  float q = 0;             // mean of (win - loss) for the mover into the node
  float d = 0;             // mean draw probability
  float net_value = 0;     // the network's (win - loss) for the side to move at the node
};
static_assert(sizeof(Node) <= 64, "a node must stay within 64 bytes");

class Tree {
 public:
  Tree() { clear(); }
  void clear();

  NodeId root() const { return root_; }
  Node& node(NodeId id) { return nodes_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  Edge* edges(const Node& n) { return edges_.data() + n.first_edge; }
  const Edge* edges(const Node& n) const { return edges_.data() + n.first_edge; }

  NodeId new_node();
  // Reserves `count` edges for `n` (which must have none yet).
  void add_edges(NodeId n, int count);
  // The child behind edge `e` of node `n`, created on first use.
  NodeId child(NodeId n, int e);

  // Makes the child reached by `move` the new root, keeping its subtree and freeing the
  // rest (the pools are compacted). Returns false (and clears the tree) when the root has
  // no such visited child.
  bool advance(Move move);

  size_t node_count() const { return nodes_.size() - 1; }
  size_t edge_count() const { return edges_.size(); }
  size_t memory_bytes() const {
    return nodes_.capacity() * sizeof(Node) + edges_.capacity() * sizeof(Edge);
  }

 private:
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  NodeId root_ = kNoNode;
};

}  // namespace xq::selfplay
