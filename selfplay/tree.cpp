#include "selfplay/tree.h"

#include <stdexcept>

namespace xq::selfplay {

void Tree::clear() {
  nodes_.clear();
  edges_.clear();
  nodes_.emplace_back();  // sentinel for kNoNode
  root_ = new_node();
}

NodeId Tree::new_node() {
  if (nodes_.size() >= 0xFFFFFFF0u) throw std::length_error("search tree is full");
  nodes_.emplace_back();
  return NodeId(nodes_.size() - 1);
}

void Tree::add_edges(NodeId n, int count) {
  nodes_[n].first_edge = uint32_t(edges_.size());
  nodes_[n].num_edges = uint16_t(count);
  edges_.resize(edges_.size() + size_t(count), Edge{0, 0, kNoNode});
}

NodeId Tree::child(NodeId n, int e) {
  const uint32_t index = nodes_[n].first_edge + uint32_t(e);
  if (edges_[index].child == kNoNode) {
    const NodeId c = new_node();  // may reallocate nodes_, not edges_
    edges_[index].child = c;
  }
  return edges_[index].child;
}

bool Tree::advance(Move move) {
  const Node& r = nodes_[root_];
  NodeId keep = kNoNode;
  for (int i = 0; i < r.num_edges; ++i)
    if (edges_[r.first_edge + uint32_t(i)].move == move.raw()) keep = edges_[r.first_edge + uint32_t(i)].child;
  if (keep == kNoNode || nodes_[keep].visits == 0) {
    clear();
    return false;
  }
  // Copy the kept subtree breadth-first into fresh pools.
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  nodes.reserve(nodes_.size());
  edges.reserve(edges_.size());
  nodes.emplace_back();
  nodes.push_back(nodes_[keep]);
  for (size_t i = 1; i < nodes.size(); ++i) {
    const uint32_t old_first = nodes[i].first_edge;
    const int num_edges = nodes[i].num_edges;
    nodes[i].first_edge = uint32_t(edges.size());
    for (int e = 0; e < num_edges; ++e) {
      Edge edge = edges_[old_first + uint32_t(e)];
      if (edge.child != kNoNode) {
        nodes.push_back(nodes_[edge.child]);
        edge.child = NodeId(nodes.size() - 1);
      }
      edges.push_back(edge);
    }
  }
  nodes_.swap(nodes);
  edges_.swap(edges);
  root_ = 1;
  return true;
}

}  // namespace xq::selfplay
