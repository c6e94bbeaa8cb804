#include "search/root_merge.h"

#include <algorithm>

namespace xq::search {

std::vector<RootStat> root_stats(const Search& search, std::atomic<uint64_t>* nodes_read) {
  std::vector<RootStat> out;
  const Tree& tree = search.tree();
  if (!tree.node(tree.root()).expanded) return out;
  const SearchResult result = search.result();
  if (nodes_read) *nodes_read += result.moves.size() + result.pv.size();
  const std::vector<uint8_t>& allowed = search.root_allowed();
  for (size_t e = 0; e < result.moves.size(); ++e) {
    if (e < allowed.size() && !allowed[e]) continue;  // outside the root filter
    const RootMove& m = result.moves[e];
    RootStat s;
    s.move = m.move;
    s.prior = m.prior;
    s.visits = m.visits;
    s.q_sum = double(m.q) * m.visits;
    s.d_sum = double(m.draw) * m.visits;
    s.proven = m.proven;
    s.proven_plies = m.proven_plies;
    out.push_back(s);
  }
  return out;
}

void merge_into(std::vector<RootStat>& into, const std::vector<RootStat>& from) {
  for (const RootStat& f : from) {
    auto it = std::find_if(into.begin(), into.end(), [&](const RootStat& s) { return s.move == f.move; });
    if (it == into.end()) {
      into.push_back(f);
      continue;
    }
    it->visits += f.visits;
    it->q_sum += f.q_sum;
    it->d_sum += f.d_sum;
    if (it->proven == Proven::NONE) {
      it->proven = f.proven;
      it->proven_plies = f.proven_plies;
    } else if (it->proven == Proven::WIN && f.proven == Proven::WIN) {
      it->proven_plies = std::min(it->proven_plies, f.proven_plies);
    }
  }
}

Move merged_best(const std::vector<RootStat>& stats, Move own_choice) {
  std::vector<RootMove> merged;
  for (const RootStat& s : stats) {
    RootMove m;
    m.move = s.move;
    m.prior = s.prior;
    m.visits = s.visits;
    m.q = float(s.q());
    m.draw = float(s.d());
    m.proven = s.proven;
    m.proven_plies = s.proven_plies;
    merged.push_back(m);
  }
  const bool all_proven = !merged.empty() && std::all_of(merged.begin(), merged.end(),
                                                         [](const RootMove& m) { return m.proven != Proven::NONE; });
  if (const int p = proven_choice(merged, all_proven); p >= 0) return merged[size_t(p)].move;
  if (!own_choice.is_none() && !stats.empty()) return own_choice;
  if (const int v = most_visited(merged); v >= 0) return merged[size_t(v)].move;
  return Move();
}

}  // namespace xq::search
