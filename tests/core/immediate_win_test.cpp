// find_immediate_win and has_legal_move against brute force over full legal-move lists.
#include <gtest/gtest.h>

#include <random>

#include "core/immediate_win.h"
#include "core/move_parse.h"
#include "core/movegen.h"

namespace xq {
namespace {

bool brute_wins(const Position& pos, Move m) {
  Position p = pos;
  UndoInfo u;
  p.do_move(m, u);
  return MoveList(p).empty();
}

bool brute_has_win(const Position& pos) {
  for (Move m : MoveList(pos))
    if (brute_wins(pos, m)) return true;
  return false;
}

TEST(ImmediateWin, FindsTheOnlyMate) {
  // h6d6 is Red's only move that leaves Black without a legal move.
  const Position pos = Position::from_fen("3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w");
  EXPECT_EQ(move_to_iccs(find_immediate_win(pos)), "h6d6");
}

TEST(ImmediateWin, NoneAtTheStart) {
  const Position pos = Position::from_fen(Position::kStartFen);
  EXPECT_TRUE(find_immediate_win(pos).is_none());
  EXPECT_TRUE(has_legal_move(pos));
}

TEST(ImmediateWin, MatchesBruteForceAlongRandomGames) {
  // Random games reach mates, stalemates and many positions with a mate in one; every
  // position on the way is checked both ways.
  std::mt19937 rng(7);
  int wins = 0, positions = 0;
  for (int g = 0; g < 300; ++g) {
    Position pos = Position::from_fen(Position::kStartFen);
    for (int ply = 0; ply < 300; ++ply) {
      const MoveList moves(pos);
      ++positions;
      ASSERT_EQ(has_legal_move(pos), !moves.empty()) << pos.fen();
      const Move w = find_immediate_win(pos);
      ASSERT_EQ(!w.is_none(), brute_has_win(pos)) << pos.fen();
      if (!w.is_none()) {
        ++wins;
        ASSERT_TRUE(moves.contains(w)) << pos.fen();
        ASSERT_TRUE(brute_wins(pos, w)) << pos.fen();
      }
      if (moves.empty()) break;
      UndoInfo u;
      pos.do_move(moves[int(rng() % unsigned(moves.size()))], u);
    }
  }
  EXPECT_GT(wins, 50) << "the walk must meet positions with an immediate win (" << positions << " positions)";
}

}  // namespace
}  // namespace xq
