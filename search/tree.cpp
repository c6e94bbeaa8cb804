#include "search/tree.h"

#include <algorithm>
#include <stdexcept>

#include "core/movegen.h"

namespace xq::search {

int canonical_moves(const Position& pos, Move* out) {
  const int n = generate_legal(pos, out);
  std::sort(out, out + n, [](Move a, Move b) { return a.raw() < b.raw(); });
  return n;
}

void Tree::clear() {
  nodes_.clear();
  priors_.clear();
  nodes_.emplace_back();  // sentinel for kNoNode
  nodes_.emplace_back();
  root_ = NodeId(nodes_.size() - 1);
}

void Tree::add_edges(NodeId n, int count) {
  if (priors_.size() + size_t(count) >= 0xFFFFFFF0u) throw std::length_error("search tree is full");
  nodes_[n].first_prior = uint32_t(priors_.size());
  nodes_[n].num_edges = uint16_t(count);
  priors_.resize(priors_.size() + size_t(count), 0);
}

NodeId Tree::add_child(NodeId n, int e, Move m) {
  if (nodes_.size() >= 0xFFFFFFF0u) throw std::length_error("search tree is full");
  nodes_.emplace_back();  // may reallocate
  const NodeId c = NodeId(nodes_.size() - 1);
  Node& child = nodes_[c];
  child.move = m.raw();
  child.edge = uint8_t(e);
  child.next_sibling = nodes_[n].first_child;
  nodes_[n].first_child = c;
  return c;
}

NodeId Tree::root_child_by_move(Move move) const {
  for (NodeId c = nodes_[root_].first_child; c != kNoNode; c = nodes_[c].next_sibling)
    if (nodes_[c].move == move.raw()) return c;
  return kNoNode;
}

std::vector<Move> Tree::principal_variation(Move first) const {
  std::vector<Move> pv{first};
  NodeId n = root_child_by_move(first);
  while (n != kNoNode && pv.size() < 64) {
    // In a proven node the line follows the proof: the shortest win for the side to move
    // (the node is lost for the mover into it), or its longest defence (the node is won for
    // the mover into it: every child is a proven loss). Otherwise, and as a fallback, the
    // most visited child; among equals the lowest edge, as a walk over edges would pick.
    const Proven proven = nodes_[n].proven;
    NodeId pick = kNoNode;
    for (NodeId c = nodes_[n].first_child; c != kNoNode; c = nodes_[c].next_sibling) {
      const Node& ch = nodes_[c];
      if (proven == Proven::LOSS && ch.proven == Proven::WIN &&
          (pick == kNoNode || ch.proven_plies < nodes_[pick].proven_plies))
        pick = c;
      if (proven == Proven::WIN && ch.proven == Proven::LOSS &&
          (pick == kNoNode || ch.proven_plies > nodes_[pick].proven_plies))
        pick = c;
    }
    uint32_t most = 0;
    if (pick == kNoNode) {
      for (NodeId c = nodes_[n].first_child; c != kNoNode; c = nodes_[c].next_sibling) {
        const Node& ch = nodes_[c];
        if (ch.visits > most || (ch.visits == most && most > 0 && ch.edge < nodes_[pick].edge)) {
          most = ch.visits;
          pick = c;
        }
      }
    }
    if (pick == kNoNode) break;
    pv.push_back(move_of(nodes_[pick]));
    n = pick;
  }
  return pv;
}

bool Tree::advance(Move move) {
  const NodeId keep = root_child_by_move(move);
  if (keep == kNoNode || nodes_[keep].visits == 0) {
    clear();
    nodes_[root_].move = move.raw();
    return false;
  }
  // Copy the kept subtree breadth-first into fresh pools; each node's children are copied
  // together, in list order, so the links are rebuilt as the copies are made.
  std::vector<Node> nodes;
  std::vector<uint16_t> priors;
  nodes.reserve(nodes_.size());
  priors.reserve(priors_.size());
  nodes.emplace_back();
  nodes.push_back(nodes_[keep]);
  nodes.back().next_sibling = kNoNode;
  nodes.back().edge = 0;  // a root is no parent's child
  for (size_t i = 1; i < nodes.size(); ++i) {
    const uint32_t old_prior = nodes[i].first_prior;
    nodes[i].first_prior = uint32_t(priors.size());
    priors.insert(priors.end(), priors_.begin() + old_prior, priors_.begin() + old_prior + nodes[i].num_edges);
    NodeId* link = &nodes[i].first_child;  // nodes is reserved: no reallocation below
    for (NodeId c = *link; c != kNoNode; c = nodes_[c].next_sibling) {
      nodes.push_back(nodes_[c]);
      *link = NodeId(nodes.size() - 1);
      link = &nodes.back().next_sibling;
    }
    *link = kNoNode;
  }
  nodes_.swap(nodes);
  priors_.swap(priors);
  root_ = 1;
  return true;
}

}  // namespace xq::search
