#include <gtest/gtest.h>

#include "core/movegen.h"
#include "core/zobrist.h"

namespace xq {
namespace {

// Hash from scratch, to compare with the incremental one.
uint64_t full_key(const Position& pos) {
  uint64_t k = pos.side_to_move() == BLACK ? zobrist().black_to_move : 0;
  for (Square s = 0; s < SQUARE_NB; ++s) k ^= zobrist().piece_square[pos.piece_on(s)][s];
  return k;
}

TEST(Position, IncrementalHashAndUndoOverRandomGames) {
  uint64_t seed = 99;
  for (int game = 0; game < 30; ++game) {
    Position pos;
    std::vector<std::pair<Move, UndoInfo>> played;
    std::vector<std::string> fens{pos.fen()};
    for (int ply = 0; ply < 200; ++ply) {
      MoveList moves(pos);
      if (moves.empty()) break;
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      const Move m = moves[int((seed >> 33) % uint64_t(moves.size()))];
      UndoInfo undo;
      const bool capture = !pos.empty(m.to());
      const int clock = pos.halfmove_clock();
      pos.do_move(m, undo);
      EXPECT_EQ(pos.halfmove_clock(), capture ? 0 : clock + 1);
      ASSERT_EQ(pos.key(), full_key(pos));
      ASSERT_EQ(Position::from_fen(pos.fen()).key(), pos.key());
      played.emplace_back(m, undo);
      fens.push_back(pos.fen());
    }
    while (!played.empty()) {
      pos.undo_move(played.back().first, played.back().second);
      played.pop_back();
      fens.pop_back();
      ASSERT_EQ(pos.fen(), fens.back());
      ASSERT_EQ(pos.key(), full_key(pos));
    }
  }
}

TEST(Position, FullmoveCountsBlackMoves) {
  Position pos;
  UndoInfo u1, u2;
  pos.do_move(Move(make_square(7, 2), make_square(4, 2)), u1);
  EXPECT_EQ(pos.fullmove_number(), 1);
  pos.do_move(Move(make_square(7, 9), make_square(6, 7)), u2);
  EXPECT_EQ(pos.fullmove_number(), 2);
  EXPECT_EQ(pos.fen(), "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2");
}

TEST(Position, AttackQueries) {
  const Position pos;
  EXPECT_FALSE(pos.in_check());
  EXPECT_TRUE(pos.is_attacked(make_square(4, 1), RED));   // e1: advisors and king
  EXPECT_TRUE(pos.is_attacked(make_square(4, 2), RED));   // e2: elephants over free eyes
  EXPECT_TRUE(pos.is_attacked(make_square(4, 4), RED));   // e4: the pawn e3
  EXPECT_FALSE(pos.is_attacked(make_square(4, 3), RED));  // e3: the king far below does not count
  EXPECT_FALSE(pos.is_attacked(make_square(4, 5), RED));
  EXPECT_TRUE(pos.is_attacked(make_square(2, 7), BLACK));   // c7: horse b9
  EXPECT_FALSE(pos.is_attacked(make_square(4, 6), BLACK));  // e6: nothing black reaches it
  // The black cannon h7 captures the horse h0 over the screen h2 (the red cannon).
  EXPECT_TRUE(pos.is_attacked(make_square(7, 0), BLACK));
  // Flying general counts only against a king.
  const Position open = Position::from_fen("4k4/4a4/9/9/9/9/9/9/9/4K4 b");
  Square out[16];
  EXPECT_EQ(open.attackers(make_square(4, 4), RED, out), 0);
  EXPECT_FALSE(open.is_attacked(make_square(4, 4), RED));
}

TEST(Position, AttackCountsEqualAttackersOnEverySquareOverRandomGames) {
  uint64_t seed = 7;
  int positions = 0;
  for (int game = 0; game < 20; ++game) {
    Position pos;
    for (int ply = 0; ply < 200; ++ply) {
      for (Color c : {RED, BLACK}) {
        uint8_t counts[SQUARE_NB];
        pos.attack_counts(c, counts);
        Square out[32];
        for (Square s = 0; s < SQUARE_NB; ++s)
          ASSERT_EQ(int(counts[s]), pos.attackers(s, c, out))
              << pos.fen() << " square " << int(s) << " colour " << int(c);
      }
      ++positions;
      MoveList moves(pos);
      if (moves.empty()) break;
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      UndoInfo undo;
      pos.do_move(moves[int((seed >> 33) % uint64_t(moves.size()))], undo);
    }
  }
  EXPECT_GT(positions, 1000);
  // Start position by hand: e1 has the king and both advisors; b9 Red's cannon over b7.
  uint8_t red[SQUARE_NB];
  Position().attack_counts(RED, red);
  EXPECT_EQ(red[make_square(4, 1)], 3);
  EXPECT_EQ(red[make_square(1, 9)], 1);
  EXPECT_EQ(red[make_square(1, 7)], 0);
}

}  // namespace
}  // namespace xq
