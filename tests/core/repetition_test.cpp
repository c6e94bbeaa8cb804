// Repetition judging (棋例): perpetual check and the perpetual-chase approximation, from
// real move sequences, and the chase-target test on single moves.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "core/game.h"
#include "core/move_parse.h"
#include "core/repetition.h"

namespace xq {
namespace {

Square sq(const char* name) { return make_square(name[0] - 'a', name[1] - '0'); }
SquareSet bit(const char* name) { return SquareSet(1) << sq(name); }

std::vector<Move> parse_moves(const Position& start, const std::string& text) {
  std::vector<Move> out;
  Position pos = start;
  std::istringstream in(text);
  for (std::string t; in >> t;) {
    const Move m = parse_legal_move(pos, t);
    UndoInfo undo;
    pos.do_move(m, undo);
    out.push_back(m);
  }
  EXPECT_EQ(pos.key(), start.key()) << "not a cycle: " << text;
  return out;
}

CycleVerdict judge(const char* fen, const std::string& moves) {
  const Position start = Position::from_fen(fen);
  const std::vector<Move> m = parse_moves(start, moves);
  return judge_cycle(start, m.data(), int(m.size()));
}

GameState play_game(const char* fen, const std::string& moves) {
  Game g(fen);
  std::istringstream in(moves);
  for (std::string t; in >> t;) {
    EXPECT_FALSE(g.over()) << "over before " << t;
    g.play(t);
  }
  return g.state();
}

SquareSet targets(const char* fen, const char* move) {
  const Position pos = Position::from_fen(fen);
  return chase_targets(pos, parse_legal_move(pos, move));
}

// Red's chariot checks from the d- and e-files; the black king steps between d9 and e9.
constexpr const char* kChariotFen = "4k4/9/9/9/3R5/9/9/9/9/5K3 w";
constexpr const char* kChariotMoves = "d5e5 e9d9 e5d5 d9e9";

TEST(Repetition, ChariotCheckingFromTwoFilesLoses) {
  const CycleVerdict v = judge(kChariotFen, kChariotMoves);
  EXPECT_TRUE(v.perpetual_check[RED]);
  EXPECT_FALSE(v.perpetual_check[BLACK]);
  EXPECT_EQ(v.loser, RED);
  EXPECT_TRUE(v.by_check);
  EXPECT_EQ(play_game(kChariotFen, kChariotMoves), (GameState{Result::BLACK_WIN, Termination::PERPETUAL_CHECK}));
}

TEST(Repetition, CannonCheckAnsweredByAnAdvisorThatReblocks) {
  // The horse steps onto the e-file as the cannon's screen (check); the advisor blocks on
  // e8 (two screens); the horse leaves, the advisor alone is the screen (check again); the
  // advisor steps back to d9, leaving no screen.
  const char* fen = "3ak4/9/9/9/9/9/3N5/4C4/9/5K3 w";
  const char* moves = "d3e5 d9e8 e5d3 e8d9";
  const CycleVerdict v = judge(fen, moves);
  EXPECT_TRUE(v.perpetual_check[RED]);
  EXPECT_FALSE(v.perpetual_check[BLACK]);
  EXPECT_EQ(v.loser, RED);
  EXPECT_EQ(play_game(fen, moves), (GameState{Result::BLACK_WIN, Termination::PERPETUAL_CHECK}));
}

TEST(Repetition, BothSidesCheckingInTurnIsADraw) {
  // Each move blocks the check it faces and uncovers one: the red cannon screens the black
  // chariot's file and uncovers the red chariot; the black chariot blocks and makes the red
  // cannon the screen of the black cannon; and back.
  const char* fen = "3k5/4c4/4r4/9/9/3C5/9/4K4/3R5/9 w";
  const char* moves = "d4e4 e7d7 e4d4 d7e7";
  const CycleVerdict v = judge(fen, moves);
  EXPECT_TRUE(v.perpetual_check[RED]);
  EXPECT_TRUE(v.perpetual_check[BLACK]);
  EXPECT_EQ(v.loser, -1);
  EXPECT_EQ(play_game(fen, moves), (GameState{Result::DRAW, Termination::REPETITION_DRAW}));
}

TEST(Repetition, ChariotChasingAnUndefendedHorseLoses) {
  // The black horse shuttles b9-c7; the red chariot follows on b2-c2, attacking it each time.
  const char* fen = "1n2k4/9/9/9/9/9/9/2R6/9/3K5 w";
  const char* moves = "c2b2 b9c7 b2c2 c7b9";
  const CycleVerdict v = judge(fen, moves);
  EXPECT_FALSE(v.perpetual_check[RED]);
  EXPECT_TRUE(v.chases[RED]);
  EXPECT_FALSE(v.chases[BLACK]);
  EXPECT_EQ(v.chased[RED], sq("b9"));
  EXPECT_EQ(v.loser, RED);
  EXPECT_FALSE(v.by_check);
  EXPECT_EQ(play_game(fen, moves), (GameState{Result::BLACK_WIN, Termination::PERPETUAL_CHASE}));
}

TEST(Repetition, TheSameChaseAgainstADefendedHorseIsADraw) {
  // As above, but the chariots on a9 and i7 defend b9 and c7.
  const char* fen = "rn2k4/9/8r/9/9/9/9/2R6/9/3K5 w";
  const char* moves = "c2b2 b9c7 b2c2 c7b9";
  const CycleVerdict v = judge(fen, moves);
  EXPECT_FALSE(v.chases[RED]);
  EXPECT_FALSE(v.chases[BLACK]);
  EXPECT_EQ(v.loser, -1);
  EXPECT_EQ(play_game(fen, moves), (GameState{Result::DRAW, Termination::REPETITION_DRAW}));
}

TEST(Repetition, HorseChasingADefendedChariotLoses) {
  // The black chariot shuttles c9-c8, defended by the elephant (c9) and the horse (c8); the
  // red horse follows on b6-d7. A chariot attacked by a horse counts even when defended.
  const char* fen = "n1r2k3/9/4b4/1N7/9/9/9/9/9/4K4 w";
  const char* moves = "b6d7 c9c8 d7b6 c8c9";
  const CycleVerdict v = judge(fen, moves);
  EXPECT_FALSE(v.perpetual_check[RED]);
  EXPECT_TRUE(v.chases[RED]);
  EXPECT_EQ(v.chased[RED], sq("c9"));
  EXPECT_FALSE(v.chases[BLACK]);
  EXPECT_EQ(v.loser, RED);
  EXPECT_EQ(play_game(fen, moves), (GameState{Result::BLACK_WIN, Termination::PERPETUAL_CHASE}));
}

TEST(Repetition, AlternatingCheckAndChaseIsForbidden) {
  // The red chariot attacks the undefended cannon on i5 from i8, then checks from e8 (一将一捉).
  const char* fen = "5k3/4R4/9/9/8c/4N4/9/9/4K3n/9 w";
  const char* moves = "e8i8 f9e9 i8e8 e9f9";
  const CycleVerdict v = judge(fen, moves);
  EXPECT_FALSE(v.perpetual_check[RED]);
  EXPECT_TRUE(v.chases[RED]);
  EXPECT_EQ(v.chased[RED], sq("i5"));
  EXPECT_FALSE(v.chases[BLACK]);
  EXPECT_EQ(play_game(fen, moves), (GameState{Result::BLACK_WIN, Termination::PERPETUAL_CHASE}));
}

TEST(Repetition, BothSidesChasingIsADraw) {
  // The red cannon keeps the black chariot under fire over the horse on f2 (a chariot attacked
  // by a cannon counts even when defended); the black chariot keeps attacking that horse.
  const char* fen = "9/9/5k3/9/2n6/9/9/1C3N2r/9/4K4 w";
  const char* moves = "b2a2 i2g2 a2b2 g2i2";
  const CycleVerdict v = judge(fen, moves);
  EXPECT_TRUE(v.chases[RED]);
  EXPECT_TRUE(v.chases[BLACK]);
  EXPECT_EQ(v.chased[RED], sq("i2"));
  EXPECT_EQ(v.chased[BLACK], sq("f2"));
  EXPECT_EQ(v.loser, -1);
  EXPECT_EQ(play_game(fen, moves), (GameState{Result::DRAW, Termination::REPETITION_DRAW}));
}

TEST(Repetition, PerpetualCheckLosesEvenAgainstAChase) {
  // Red checks from h8 and h7; each black king step uncovers a black chariot against the
  // checking chariot (discovered chases). Perpetual check is judged first: Red loses.
  const char* fen = "R8/1r1k5/2r4R1/9/9/9/9/5K3/9/9 w";
  const char* moves = "h7h8 d8d7 h8h7 d7d8";
  const CycleVerdict v = judge(fen, moves);
  EXPECT_TRUE(v.perpetual_check[RED]);
  EXPECT_TRUE(v.chases[BLACK]);
  EXPECT_EQ(v.loser, RED);
  EXPECT_TRUE(v.by_check);
  EXPECT_EQ(play_game(fen, moves), (GameState{Result::BLACK_WIN, Termination::PERPETUAL_CHECK}));
}

TEST(ChaseTargets, AnAttackThatOnlyBecameLegalIsNotNew) {
  // Black is in check from the chariot on g9; the black chariot on d1 already attacks the
  // cannon on h1 but cannot take while in check. Stepping the king out makes the capture
  // legal, which is no new attack.
  EXPECT_EQ(targets("3k2R2/9/9/9/9/9/1n7/5K3/3r3C1/9 b", "d9d8"), SquareSet(0));
}

TEST(Repetition, IdleMovesOnBothSidesDraw) {
  const CycleVerdict v = judge("3ak4/9/9/9/9/9/9/9/9/R2A1K3 w", "a0a1 d9e8 a1a0 e8d9");
  EXPECT_FALSE(v.perpetual_check[RED] || v.perpetual_check[BLACK] || v.chases[RED] || v.chases[BLACK]);
  EXPECT_EQ(v.loser, -1);
}

TEST(ChaseTargets, ChariotAttackedByHorseCountsEvenWhenDefended) {
  // The horse attacks the chariot on e8, which the king defends.
  EXPECT_EQ(targets("4k4/4r4/9/9/9/2N6/9/9/9/5K3 w", "c4d6"), bit("e8"));
  // A chariot attacking the same defended chariot is no chase.
  EXPECT_EQ(targets("4k4/4r4/R8/9/9/9/9/9/9/5K3 w", "a7a8"), SquareSet(0));
}

TEST(ChaseTargets, UndefendedCountsDefendedDoesNot) {
  // The chariot goes to a5 and attacks the cannon on d5.
  EXPECT_EQ(targets("4k4/9/9/9/3c5/9/9/9/R8/5K3 w", "a1a5"), bit("d5"));
  // The horse on c7 defends d5.
  EXPECT_EQ(targets("4k4/9/2n6/9/3c5/9/9/9/R8/5K3 w", "a1a5"), SquareSet(0));
}

TEST(ChaseTargets, PinnedAttackerDoesNotCount) {
  // The red chariot on e3 attacks the horse on a3, but taking it would expose the red king to
  // the chariot on e8. The chariot on e8 itself, undefended, is a target.
  EXPECT_EQ(targets("5k3/4r4/9/9/9/9/n8/4R4/9/4K4 w", "e2e3"), bit("e8"));
}

TEST(ChaseTargets, KingsAndPawnsDoNotChaseAndUncrossedPawnsAreNotChased) {
  // A crossed red pawn steps next to the undefended horse: pawns chasing are idle.
  EXPECT_EQ(targets("4k4/9/9/3n5/4P4/9/9/9/9/5K3 w", "e5d5"), SquareSet(0));
  // The king steps next to an undefended cannon inside its palace: idle too.
  EXPECT_EQ(targets("5k3/9/9/9/9/9/9/9/3c5/4K4 w", "e0e1"), SquareSet(0));
  // A chariot attacks an uncrossed black pawn: not a chase target.
  EXPECT_EQ(targets("4k4/9/9/2p6/R8/9/9/9/9/5K3 w", "a5a6"), SquareSet(0));
  // A black pawn across the river is.
  EXPECT_EQ(targets("4k4/9/9/9/R8/2p6/9/9/9/5K3 w", "a5a4"), bit("c4"));
}

TEST(ChaseTargets, DiscoveredAttacksCountOldAttacksDoNot) {
  // The horse leaves a3 and uncovers the chariot on a0 against the horse on a7.
  EXPECT_EQ(targets("4k4/9/n8/9/9/9/N8/9/9/R2K5 w", "a3c4"), bit("a7"));
  // The chariot already attacked a7: a king move is no new attack.
  EXPECT_EQ(targets("4k4/9/n8/9/9/9/9/9/9/R2K5 w", "d0d1"), SquareSet(0));
  // The chariot that moves and still attacks it does count.
  EXPECT_EQ(targets("4k4/9/n8/9/9/9/9/9/9/R2K5 w", "a0a1"), bit("a7"));
}

}  // namespace
}  // namespace xq
