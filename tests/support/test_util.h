// Helpers shared by the core tests.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/movegen.h"

namespace xq::test {

// Legal moves of the side to move, as sorted ICCS strings; only those leaving `from` when given.
inline std::vector<std::string> legal_moves(const std::string& fen, const std::string& from = "") {
  const Position pos = Position::from_fen(fen);
  std::vector<std::string> out;
  for (Move m : MoveList(pos)) {
    const std::string s = move_to_iccs(m);
    if (from.empty() || s.compare(0, 2, from) == 0) out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  return out;
}

using Moves = std::vector<std::string>;

}  // namespace xq::test
