#include "selfplay/tree.h"

#include <algorithm>
#include <stdexcept>

#include "core/movegen.h"

namespace xq::selfplay {

int canonical_moves(const Position& pos, Move* out) {
  const int n = generate_legal(pos, out);
  std::sort(out, out + n, [](Move a, Move b) { return a.raw() < b.raw(); });
  return n;
}

void Tree::clear() {
  nodes_.clear();
  priors_.clear();
  children_.clear();
  nodes_.emplace_back();     // sentinel for kNoNode
  children_.push_back(0);    // so that children == 0 means "no child array"
  nodes_.emplace_back();
  root_ = NodeId(nodes_.size() - 1);
}

void Tree::add_edges(NodeId n, int count) {
  nodes_[n].first_prior = uint32_t(priors_.size());
  nodes_[n].num_edges = uint16_t(count);
  priors_.resize(priors_.size() + size_t(count), 0);
}

NodeId Tree::child(NodeId n, int e, Move m) {
  if (nodes_[n].children == 0) {
    if (children_.size() + nodes_[n].num_edges >= 0xFFFFFFF0u) throw std::length_error("search tree is full");
    nodes_[n].children = uint32_t(children_.size());
    children_.resize(children_.size() + nodes_[n].num_edges, kNoNode);
  }
  const uint32_t slot = nodes_[n].children + uint32_t(e);
  if (children_[slot] == kNoNode) {
    if (nodes_.size() >= 0xFFFFFFF0u) throw std::length_error("search tree is full");
    nodes_.emplace_back();
    nodes_.back().move = m.raw();
    children_[slot] = NodeId(nodes_.size() - 1);
  }
  return children_[slot];
}

std::vector<Move> Tree::principal_variation(Move first) const {
  std::vector<Move> pv{first};
  const Node& r = nodes_[root_];
  NodeId n = kNoNode;
  for (int e = 0; e < r.num_edges; ++e)
    if (const NodeId c = child_of(r, e); c != kNoNode && nodes_[c].move == first.raw()) n = c;
  while (n != kNoNode && pv.size() < 64) {
    const Node& node = nodes_[n];
    NodeId pick = kNoNode;
    uint32_t most = 0;
    for (int e = 0; e < node.num_edges; ++e)
      if (const NodeId c = child_of(node, e); c != kNoNode && nodes_[c].visits > most) {
        most = nodes_[c].visits;
        pick = c;
      }
    if (pick == kNoNode) break;
    pv.push_back(move_of(nodes_[pick]));
    n = pick;
  }
  return pv;
}

bool Tree::advance(Move move) {
  const Node& r = nodes_[root_];
  NodeId keep = kNoNode;
  for (int e = 0; e < r.num_edges && r.children; ++e) {
    const NodeId c = children_[r.children + uint32_t(e)];
    if (c != kNoNode && nodes_[c].move == move.raw()) keep = c;
  }
  if (keep == kNoNode || nodes_[keep].visits == 0) {
    clear();
    nodes_[root_].move = move.raw();
    return false;
  }
  // Copy the kept subtree breadth-first into fresh pools.
  std::vector<Node> nodes;
  std::vector<uint16_t> priors;
  std::vector<NodeId> children{0};
  nodes.reserve(nodes_.size());
  priors.reserve(priors_.size());
  children.reserve(children_.size());
  nodes.emplace_back();
  nodes.push_back(nodes_[keep]);
  for (size_t i = 1; i < nodes.size(); ++i) {
    const uint32_t old_prior = nodes[i].first_prior, old_children = nodes[i].children;
    const int num_edges = nodes[i].num_edges;
    nodes[i].first_prior = uint32_t(priors.size());
    priors.insert(priors.end(), priors_.begin() + old_prior, priors_.begin() + old_prior + num_edges);
    if (old_children == 0) continue;
    nodes[i].children = uint32_t(children.size());
    for (int e = 0; e < num_edges; ++e) {
      const NodeId c = children_[old_children + uint32_t(e)];
      if (c == kNoNode) {
        children.push_back(kNoNode);
      } else {
        nodes.push_back(nodes_[c]);
        children.push_back(NodeId(nodes.size() - 1));
      }
    }
  }
  nodes_.swap(nodes);
  priors_.swap(priors);
  children_.swap(children);
  root_ = 1;
  return true;
}

}  // namespace xq::selfplay
