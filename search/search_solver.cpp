// The MCTS-solver part of Search: proving wins, losses and draws with their length in
// plies, and searching on below proofs whose length may still shrink (search/search.h).
#include "search/search.h"

#include <algorithm>

namespace xq::search {

namespace {

uint16_t plies_after(int plies) { return uint16_t(std::min(plies + 1, 65535)); }

}  // namespace

// A proven node whose length is final: nothing below it can shorten its proof. A node won
// by its side to move (LOSS for the mover into it) holds the length of its shortest win
// found so far, final when it is a mate in one or every move there is proven; a node lost
// for its side to move (WIN) holds its longest defence, final when each defence is. Drawn,
// terminal and unexpanded (immediate-win) proofs are final.
bool Search::proof_final(NodeId id) const {
  const Node& n = tree_.node(id);
  if (n.terminal || !n.expanded || n.proven == Proven::DRAW) return true;
  if (n.proven == Proven::NONE) return false;
  if (n.proven == Proven::LOSS && n.proven_plies <= 1) return true;
  NodeId kids[MAX_MOVES];
  if (tree_.children_of(n, kids) < n.num_edges) return false;
  for (int e = 0; e < n.num_edges; ++e) {
    const Node& ch = tree_.node(kids[e]);
    if (ch.proven == Proven::NONE) return false;
    if (n.proven == Proven::WIN && ch.proven == Proven::LOSS && ch.proven_plies > 1 && ch.expanded && !ch.terminal) {
      NodeId grand[MAX_MOVES];
      if (tree_.children_of(ch, grand) < ch.num_edges) return false;
      for (int g = 0; g < ch.num_edges; ++g)
        if (tree_.node(grand[g]).proven == Proven::NONE) return false;
    }
  }
  return true;
}

bool Search::root_settled() const {
  const Node& r = tree_.node(tree_.root());
  if (r.terminal) return true;
  return r.proven != Proven::NONE && proof_final(tree_.root());
}

void Search::backup(const std::vector<NodeId>& path, float value, float draw, bool proven_leaf) {
  const int leaf_depth = int(path.size()) - 1;
  ++depth_.simulations;
  depth_.plies += uint64_t(leaf_depth);
  depth_.max = std::max(depth_.max, leaf_depth);
  float v = value;
  bool propagate = proven_leaf;
  for (size_t k = path.size(); k-- > 0;) {
    Node& n = tree_.node(path[k]);
    --n.in_flight;
    ++n.visits;
    n.q += (v - n.q) / float(n.visits);
    n.d += (draw - n.d) / float(n.visits);
    // MCTS-solver, on the way up from a proven leaf: a child proven won for the side to
    // move here makes this node lost for its mover, in one ply more than the shortest such
    // win; all children proven makes it the best of them for the side to move: a draw (the
    // shortest), or a loss in one ply more than the longest loss. A node proven before is
    // recomputed too (a shorter win found below it shortens its length: proof_final), and
    // the proof goes on up while it changes something.
    if (propagate && k + 1 < path.size()) {
      propagate = false;
      int children = 0;
      bool unknown = false;
      int best = -1;  // for the side to move here: -1 loss, 0 draw, 1 win
      int win_plies = 65535, draw_plies = 65535, loss_plies = 0;
      for (NodeId c = n.first_child; c != kNoNode; c = tree_.node(c).next_sibling) {
        ++children;
        const Node& ch = tree_.node(c);
        switch (ch.proven) {
          case Proven::NONE: unknown = true; break;
          case Proven::WIN:
            best = 1;
            win_plies = std::min(win_plies, int(ch.proven_plies));
            break;
          case Proven::DRAW:
            best = std::max(best, 0);
            draw_plies = std::min(draw_plies, int(ch.proven_plies));
            break;
          case Proven::LOSS: loss_plies = std::max(loss_plies, int(ch.proven_plies)); break;
        }
      }
      unknown = unknown || children < n.num_edges;
      Proven proven = Proven::NONE;
      uint16_t plies = 0;
      if (best == 1) {
        proven = Proven::LOSS;
        plies = plies_after(win_plies);
      } else if (!unknown && n.num_edges > 0) {
        proven = best == 0 ? Proven::DRAW : Proven::WIN;
        plies = plies_after(best == 0 ? draw_plies : loss_plies);
      }
      if (proven != Proven::NONE && (proven != n.proven || plies != n.proven_plies)) {
        n.proven = proven;
        n.proven_plies = plies;
        propagate = true;
      }
    } else if (k + 1 < path.size()) {
      propagate = false;
    }
    v = -v;
  }
}

int Search::select_in_proof(NodeId n, bool is_root, const NodeId* kids) {
  const Node& node = tree_.node(n);
  if (node.proven == Proven::WIN) {
    int best = -1;
    for (int e = 0; e < node.num_edges; ++e) {
      const NodeId c = kids[e];
      if (c == kNoNode || proof_final(c)) continue;
      if (best < 0 || tree_.node(c).proven_plies > tree_.node(kids[best]).proven_plies) best = e;
    }
    if (best >= 0) return best;
  }
  return select_puct(n, is_root, kids, true);
}

}  // namespace xq::search
