// Hand-made positions for each awkward case of docs/architecture.md §5.
#include <gtest/gtest.h>

#include "core/movegen.h"
#include "tests/support/perft_cases.h"
#include "tests/support/test_util.h"

namespace xq {
namespace {

using test::legal_moves;
using test::Moves;

TEST(MoveGen, StartPositionHorseLegBlockedByOwnElephant) {
  // b0's right leg c0 holds the elephant, so d1 is unreachable.
  EXPECT_EQ(legal_moves(Position::kStartFen, "b0"), (Moves{"b0a2", "b0c2"}));
}

TEST(MoveGen, HorseLegBlockedByEnemyPiece) {
  // A black pawn on e5 blocks the red horse on e4 upward; the other legs are free.
  const char* fen = "3k5/9/9/9/4p4/4N4/9/9/9/5K3 w";
  EXPECT_EQ(legal_moves(fen, "e4"), (Moves{"e4c3", "e4c5", "e4d2", "e4f2", "e4g3", "e4g5"}));
}

TEST(MoveGen, ElephantEyeBlockedAndRiver) {
  // Elephant on c4 cannot cross the river (no c4a6/e6); its a2 eye b3 is blocked by a pawn.
  const char* fen = "3k5/9/9/9/9/2B6/1p7/9/9/5K3 w";
  EXPECT_EQ(legal_moves(fen, "c4"), (Moves{"c4e2"}));
}

TEST(MoveGen, CannonNeedsExactlyOneScreenToCapture) {
  // Red cannon b2 slides to b3/b4, captures the horse b7 over its own pawn b5 (the
  // screen may be either colour), and cannot reach the chariot b9 behind two pieces.
  const char* fen = "1r1k5/9/1n7/9/1P7/9/9/1C7/9/5K3 w";
  EXPECT_EQ(legal_moves(fen, "b2"), (Moves{"b2a2", "b2b0", "b2b1", "b2b3", "b2b4", "b2b7", "b2c2", "b2d2", "b2e2",
                                           "b2f2", "b2g2", "b2h2", "b2i2"}));
}

TEST(MoveGen, CannonScreenIsTheKingsOwnPiece) {
  // Black cannon e5 checks the red king e0 over the red advisor e1. Any advisor move lifts
  // the screen; e0d0 would face the black king d9.
  const Position pos = Position::from_fen("3k5/9/9/9/4c4/9/9/9/4A4/4K4 w");
  EXPECT_TRUE(pos.in_check());
  EXPECT_EQ(legal_moves(pos.fen()), (Moves{"e0f0", "e1d0", "e1d2", "e1f0", "e1f2"}));
}

TEST(MoveGen, MovingIntoACannonScreenIsIllegal) {
  // Red king e0, black cannon e7, nothing between: no check, but the advisor d0 stepping
  // to e1 would become the cannon's screen.
  const char* fen = "3k5/9/4c4/9/9/9/9/9/9/3AK4 w";
  EXPECT_FALSE(Position::from_fen(fen).in_check());
  EXPECT_EQ(legal_moves(fen, "d0"), Moves{});
}

TEST(MoveGen, FlyingGeneralPinsTheOnlyBlocker) {
  // The black advisor e8 is the only piece between the kings: every advisor move opens the file.
  EXPECT_EQ(legal_moves("4k4/4a4/9/9/9/9/9/9/9/4K4 b"), (Moves{"e9d9", "e9f9"}));
  // Same with a red horse on e5: no horse move is legal.
  EXPECT_EQ(legal_moves("4k4/9/9/9/4N4/9/9/9/9/4K4 w"), (Moves{"e0d0", "e0e1", "e0f0"}));
}

TEST(MoveGen, KingMayNotStepOntoTheOpenFileOfTheOtherKing) {
  // Black king e9, red king d0, d-file empty: e9d9 would face the kings.
  EXPECT_EQ(legal_moves("4k4/9/9/9/9/9/9/9/9/3K5 b"), (Moves{"e9e8", "e9f9"}));
}

TEST(MoveGen, EvadeHorseCheckByBlockingItsLeg) {
  // Black horse g2 checks the red king f0 through the leg g1; the chariot a1 blocks on g1.
  const Position pos = Position::from_fen("3k5/9/9/9/9/9/9/6n2/R8/5K3 w");
  EXPECT_TRUE(pos.in_check());
  EXPECT_EQ(legal_moves(pos.fen()), (Moves{"a1g1", "f0e0", "f0f1"}));
}

TEST(MoveGen, EvadeCannonCheckByRemovingTheScreen) {
  // Black cannon e7 checks the red king e0 over the red horse e3: any horse move ends the
  // check, and the chariot a5 can block by adding a second piece between on e5.
  const Position pos = Position::from_fen("3k5/9/4c4/9/R8/9/4N4/9/9/4K4 w");
  EXPECT_TRUE(pos.in_check());
  const Moves all = legal_moves(pos.fen());
  // Horse e3: c2, c4, d1, d5, f1, f5, g2, g4 all lift the screen.
  for (const char* m : {"e3c2", "e3c4", "e3d1", "e3d5", "e3f1", "e3f5", "e3g2", "e3g4"})
    EXPECT_TRUE(std::find(all.begin(), all.end(), m) != all.end()) << m;
  // a5a6 does not help.
  EXPECT_TRUE(std::find(all.begin(), all.end(), "a5e5") != all.end());
  EXPECT_TRUE(std::find(all.begin(), all.end(), "a5a6") == all.end());
}

TEST(MoveGen, PawnsBeforeAndAfterTheRiverAndOnTheLastRank) {
  const char* fen = "P2k5/9/9/9/4P4/2P6/9/9/9/5K3 w";
  EXPECT_EQ(legal_moves(fen, "c4"), (Moves{"c4c5"}));
  EXPECT_EQ(legal_moves(fen, "e5"), (Moves{"e5d5", "e5e6", "e5f5"}));
  EXPECT_EQ(legal_moves(fen, "a9"), (Moves{"a9b9"}));
}

TEST(MoveGen, AdvisorAndKingStayInThePalace) {
  // d0e0 would face the black king e9 on an open file.
  const char* fen = "4k4/9/9/9/9/9/9/5A3/9/3K5 w";
  EXPECT_EQ(legal_moves(fen, "f2"), (Moves{"f2e1"}));
  EXPECT_EQ(legal_moves(fen, "d0"), (Moves{"d0d1"}));
}

TEST(MoveGen, StalemateHasNoMovesAndNoCheck) {
  // Black king e9 alone: d9 and f9 are covered by chariots, e8 by the pawn e7.
  const Position pos = Position::from_fen("4k4/9/4P4/9/9/9/9/3R1R3/9/4K4 b");
  EXPECT_FALSE(pos.in_check());
  EXPECT_TRUE(MoveList(pos).empty());
}

TEST(MoveGen, CheckmateHasNoMovesAndCheck) {
  // Chariot f9 checks along rank 9 and covers e9; chariot d0 covers d8.
  const Position pos = Position::from_fen("3k1R3/9/9/9/9/9/9/9/9/3RK4 b");
  EXPECT_TRUE(pos.in_check());
  EXPECT_TRUE(MoveList(pos).empty());
}

TEST(MoveGen, CheckersAreReported) {
  const Position pos = Position::from_fen("3k5/9/9/9/9/9/9/6n2/R8/5K3 w");
  Square out[16];
  ASSERT_EQ(pos.checkers(out), 1);
  EXPECT_EQ(square_name(out[0]), "g2");
}

// The slow definition of legality: apply each pseudo-legal move and ask whether the
// mover's king is attacked (the facing kings included).
std::vector<Move> slow_legal_moves(const Position& pos) {
  Move pseudo[MAX_MOVES];
  const int np = generate_pseudo_legal(pos, pseudo);
  std::vector<Move> out;
  for (int i = 0; i < np; ++i) {
    Position after = pos;
    UndoInfo undo;
    after.do_move(pseudo[i], undo);
    if (!after.is_attacked(after.king_square(pos.side_to_move()), after.side_to_move())) out.push_back(pseudo[i]);
  }
  return out;
}

void expect_fast_equals_slow(const Position& pos) {
  Move moves[MAX_MOVES];
  const int n = generate_legal(pos, moves);
  const std::vector<Move> slow = slow_legal_moves(pos);
  ASSERT_EQ(size_t(n), slow.size()) << pos.fen();
  for (Move m : slow) ASSERT_TRUE(std::find(moves, moves + n, m) != moves + n) << pos.fen() << " " << move_to_iccs(m);
}

void walk_tree(Position& pos, int depth) {
  expect_fast_equals_slow(pos);
  if (depth == 0 || ::testing::Test::HasFatalFailure()) return;
  for (Move m : MoveList(pos)) {
    UndoInfo undo;
    pos.do_move(m, undo);
    walk_tree(pos, depth - 1);
    pos.undo_move(m, undo);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(MoveGen, FastLegalityFilterMatchesTheSlowDefinitionOnReferenceTrees) {
  for (const test::PerftCase& c : test::kPerftTable) {
    Position pos = Position::from_fen(c.fen);
    walk_tree(pos, 3);
  }
}

TEST(MoveGen, FastLegalityFilterMatchesTheSlowDefinitionOnRandomGames) {
  uint64_t seed = 12345;
  for (int game = 0; game < 200; ++game) {
    Position pos;
    for (int ply = 0; ply < 200; ++ply) {
      expect_fast_equals_slow(pos);
      if (HasFatalFailure()) return;
      MoveList moves(pos);
      if (moves.empty()) break;
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      UndoInfo undo;
      pos.do_move(moves[int((seed >> 33) % uint64_t(moves.size()))], undo);
    }
  }
}

}  // namespace
}  // namespace xq
