// Game: history, undo, and the judged state (docs/architecture.md §5): mate, stalemate, natural limit,
// dead draw, length cap, resignation, adjudication, and repetition settings.
#include <gtest/gtest.h>

#include <sstream>

#include "core/errors.h"
#include "core/game.h"
#include "core/movegen.h"

namespace xq {
namespace {

void play_all(Game& g, const std::string& moves) {
  std::istringstream in(moves);
  for (std::string m; in >> m;) g.play(m);
}

GameState S(Result r, Termination t) { return GameState{r, t}; }

TEST(Game, Names) {
  EXPECT_STREQ(to_string(Result::RED_WIN), "1-0");
  EXPECT_STREQ(to_string(Result::BLACK_WIN), "0-1");
  EXPECT_STREQ(to_string(Result::DRAW), "1/2-1/2");
  EXPECT_STREQ(to_string(Result::ONGOING), "*");
  const std::pair<Termination, const char*> names[] = {
      {Termination::ONGOING, "ongoing"},
      {Termination::CHECKMATE, "checkmate"},
      {Termination::STALEMATE, "stalemate"},
      {Termination::PERPETUAL_CHECK, "perpetual check"},
      {Termination::PERPETUAL_CHASE, "perpetual chase"},
      {Termination::REPETITION_DRAW, "repetition draw"},
      {Termination::NATURAL_LIMIT, "natural limit"},
      {Termination::DEAD_DRAW, "dead draw"},
      {Termination::LENGTH_CAP, "length cap"},
      {Termination::RESIGNATION, "resignation"},
      {Termination::ADJUDICATION, "adjudication"},
  };
  for (const auto& [t, name] : names) {
    EXPECT_STREQ(to_string(t), name);
    Termination back;
    ASSERT_TRUE(parse_termination(name, back));
    EXPECT_EQ(back, t);
  }
  Result r;
  EXPECT_TRUE(parse_result("1/2-1/2", r));
  EXPECT_EQ(r, Result::DRAW);
  EXPECT_FALSE(parse_result("1-1", r));
  Termination t;
  EXPECT_FALSE(parse_termination("boredom", t));
  EXPECT_EQ(S(Result::RED_WIN, Termination::CHECKMATE).to_string(), "result: 1-0 reason: checkmate");
}

TEST(Game, StartIsOngoingAndUndoRestores) {
  Game g;
  EXPECT_EQ(g.state(), GameState());
  EXPECT_FALSE(g.over());
  EXPECT_EQ(g.ply(), 0);
  const uint64_t start_key = g.key();
  play_all(g, "h2e2 h9g7 h0g2 i9h9");
  EXPECT_EQ(g.ply(), 4);
  EXPECT_EQ(move_to_iccs(g.move_at(1)), "h9g7");
  EXPECT_EQ(move_to_iccs(g.last_move()), "i9h9");
  EXPECT_EQ(g.position().fen(), "rnbakabr1/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3");
  for (int i = 0; i < 4; ++i) g.undo();
  EXPECT_EQ(g.key(), start_key);
  EXPECT_EQ(g.position().fen(), Position().fen());
  EXPECT_THROW(g.undo(), std::logic_error);
}

TEST(Game, IllegalMovesAreRejectedWithTheReason) {
  Game g;
  try {
    g.play("h2h8");
    FAIL() << "no exception";
  } catch (const MoveError& e) {
    EXPECT_NE(std::string(e.what()).find("h2h8"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a cannon jumps only to capture"), std::string::npos) << e.what();
  }
  EXPECT_THROW(g.play("x"), MoveError);
  EXPECT_EQ(g.ply(), 0);  // nothing was played
  EXPECT_THROW(Game("not a fen"), FenError);
}

TEST(Game, CheckmateAndStalemateLoseForTheSideToMove) {
  // Two chariots: a9 checks along rank 9, b8 holds rank 8; f9 is covered through e9.
  Game mate("R3k4/1R7/9/9/9/9/9/9/9/5K3 b");
  EXPECT_TRUE(mate.in_check());
  EXPECT_FALSE(mate.has_legal_move());
  EXPECT_EQ(mate.state(), S(Result::RED_WIN, Termination::CHECKMATE));
  // Not in check, but d9, f9 (chariots) and e8 (horse) are all covered.
  Game stale("4k4/9/2N6/9/3R1R3/9/9/9/9/5K3 b");
  EXPECT_FALSE(stale.in_check());
  EXPECT_EQ(stale.state(), S(Result::RED_WIN, Termination::STALEMATE));
  // Red stalemated: black wins.
  Game red_stale("3k5/9/9/9/9/9/9/9/3r1r3/4K4 w");
  EXPECT_EQ(red_stale.state(), S(Result::BLACK_WIN, Termination::STALEMATE));
  // Reached by a move: the chariot on a7 goes to a9 and mates.
  Game g("4k4/1R7/R8/9/9/9/9/9/9/5K3 w");
  EXPECT_FALSE(g.over());
  g.play("a7a9");
  EXPECT_EQ(g.state(), S(Result::RED_WIN, Termination::CHECKMATE));
  g.undo();
  EXPECT_EQ(g.state(), GameState());
}

TEST(Game, NaturalLimitCountsPliesWithoutCapture) {
  Game g("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 118 80");
  g.play("a0a1");
  EXPECT_FALSE(g.over());
  g.play("e9e8");
  EXPECT_EQ(g.position().halfmove_clock(), 120);
  EXPECT_EQ(g.state(), S(Result::DRAW, Termination::NATURAL_LIMIT));
  g.undo();
  EXPECT_FALSE(g.over());
  // A capture resets the counter.
  Game c("4k4/9/9/9/9/9/9/9/r3A4/R2K5 w - - 119 80");
  c.play("a0a1");
  EXPECT_EQ(c.position().halfmove_clock(), 0);
  EXPECT_FALSE(c.over());
  // The limit is a setting; 0 turns it off.
  GameSettings off;
  off.natural_limit = 0;
  Game o("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 500 80", off);
  EXPECT_FALSE(o.over());
  GameSettings ten;
  ten.natural_limit = 10;
  Game t("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 10 80", ten);
  EXPECT_EQ(t.state(), S(Result::DRAW, Termination::NATURAL_LIMIT));
}

TEST(Game, DeadDrawWithoutPiecesThatCrossTheRiver) {
  EXPECT_EQ(Game("3ak4/4a4/4b4/9/9/9/9/4B4/4A4/3K1A3 w").state(), S(Result::DRAW, Termination::DEAD_DRAW));
  EXPECT_EQ(Game("4k4/9/9/9/9/9/9/9/9/3K5 b").state(), S(Result::DRAW, Termination::DEAD_DRAW));
  // One pawn, horse, cannon or chariot on either side is enough to play on.
  for (const char* fen : {"3ak4/9/9/9/9/9/4P4/9/9/3K5 w", "3ak4/9/9/9/8n/9/9/9/9/3K5 w", "3ak4/9/9/9/9/9/9/9/9/3K1c3 w",
                          "3ak4/9/9/9/9/9/9/9/9/R2K5 w"})
    EXPECT_FALSE(Game(fen).over()) << fen;
  // Reached by capturing the last such piece.
  Game g("4k4/9/9/9/9/9/9/9/3p5/3K5 w");
  g.play("d0d1");
  EXPECT_EQ(g.state(), S(Result::DRAW, Termination::DEAD_DRAW));
}

TEST(Game, LengthCapIsItsOwnReason) {
  GameSettings s;
  s.length_cap = 4;
  Game g(Position(), s);
  play_all(g, "h2e2 h9g7 h0g2");
  EXPECT_FALSE(g.over());
  g.play("i9h9");
  EXPECT_EQ(g.state(), S(Result::DRAW, Termination::LENGTH_CAP));
  g.undo();
  EXPECT_FALSE(g.over());
  // Changing the settings re-judges cached plies.
  s.length_cap = 3;
  g.set_settings(s);
  EXPECT_EQ(g.state(), S(Result::DRAW, Termination::LENGTH_CAP));
  s.length_cap = 0;
  g.set_settings(s);
  EXPECT_FALSE(g.over());
  s.repetitions = 0;
  EXPECT_THROW(g.set_settings(s), std::invalid_argument);
}

TEST(Game, ResignationAndAdjudication) {
  Game g;
  g.play("h2e2");
  g.resign(BLACK);
  EXPECT_EQ(g.state(), S(Result::RED_WIN, Termination::RESIGNATION));
  g.undo();  // back before the resignation
  EXPECT_FALSE(g.over());
  g.play("b2e2");
  g.adjudicate(Result::DRAW);
  EXPECT_EQ(g.state(), S(Result::DRAW, Termination::ADJUDICATION));
  g.adjudicate(Result::ONGOING);
  EXPECT_FALSE(g.over());
  g.resign(RED);
  EXPECT_EQ(g.state(), S(Result::BLACK_WIN, Termination::RESIGNATION));
}

// Red checks from two files with a chariot while the black king steps back and forth.
constexpr const char* kChariotChecks = "4k4/9/9/9/3R5/9/9/9/9/5K3 w";
constexpr const char* kChariotCycle = "d5e5 e9d9 e5d5 d9e9";

TEST(Game, RepetitionJudgedAtTheFirstRecurrenceByDefault) {
  Game g(kChariotChecks);
  play_all(g, "d5e5 e9d9 e5d5");
  EXPECT_EQ(g.repetition_count(), 0);
  EXPECT_FALSE(g.over());
  g.play("d9e9");
  EXPECT_EQ(g.repetition_count(), 1);
  EXPECT_EQ(g.state(), S(Result::BLACK_WIN, Termination::PERPETUAL_CHECK));
  g.undo();
  EXPECT_FALSE(g.over());
}

TEST(Game, RepetitionsSettingDelaysJudging) {
  GameSettings s;
  s.repetitions = 2;  // three-fold
  Game g(kChariotChecks, s);
  play_all(g, kChariotCycle);
  EXPECT_EQ(g.repetition_count(), 1);
  EXPECT_FALSE(g.over());
  play_all(g, kChariotCycle);
  EXPECT_EQ(g.repetition_count(), 2);
  EXPECT_EQ(g.state(), S(Result::BLACK_WIN, Termination::PERPETUAL_CHECK));
  // The intermediate recurrences of other positions do not end the game either.
  g.undo();
  EXPECT_EQ(g.repetition_count(), 1);
  EXPECT_FALSE(g.over());
}

// A GUI plays on where the rules ended the game: that ply counts as ongoing, and the next
// repetition is judged with the whole history (the earlier occurrences count).
TEST(Game, PlayOnKeepsTheHistory) {
  Game g(kChariotChecks);
  play_all(g, kChariotCycle);
  ASSERT_EQ(g.state(), S(Result::BLACK_WIN, Termination::PERPETUAL_CHECK));
  g.play_on();
  EXPECT_FALSE(g.over());
  EXPECT_EQ(g.repetition_count(), 1) << "the history is kept";
  g.play("d5e5");  // the position after Red's first check, again
  EXPECT_EQ(g.state(), S(Result::BLACK_WIN, Termination::PERPETUAL_CHECK));
  g.undo();
  EXPECT_FALSE(g.over()) << "the ply played on still counts as ongoing";
  g.undo();
  g.play("d9e9");
  EXPECT_EQ(g.state(), S(Result::BLACK_WIN, Termination::PERPETUAL_CHECK)) << "undone past it: judged again";
  // A position without a legal move stays lost.
  Game mated("1R1k5/R8/9/9/9/9/9/9/9/4K4 b");
  mated.play_on();
  EXPECT_EQ(mated.state(), S(Result::RED_WIN, Termination::CHECKMATE));
}

TEST(Game, IdleShufflingIsARepetitionDraw) {
  Game h("3ak4/9/9/9/9/9/9/9/9/R2A1K3 w");
  play_all(h, "a0a1 d9e8 a1a0");
  EXPECT_FALSE(h.over());
  h.play("e8d9");
  EXPECT_EQ(h.state(), S(Result::DRAW, Termination::REPETITION_DRAW));
}

TEST(Game, RepetitionAfterACapture) {
  // The walk back is bounded by the halfmove clock (here reset by the capture a0a1), and a
  // start position with a nonzero clock but no history is fine.
  Game g("4k4/9/9/9/9/9/9/9/r3A4/R2K5 w - - 7 1");
  play_all(g, "a0a1 e9e8 a1a0 e8e9 a0a1 e9e8");
  EXPECT_EQ(g.repetition_count(), 1);
  EXPECT_EQ(g.state(), S(Result::DRAW, Termination::REPETITION_DRAW));
}

TEST(Game, CheckmateTakesPrecedenceOverNaturalLimit) {
  Game g("4k4/1R7/R8/9/9/9/9/9/9/5K3 w - - 119 90");
  g.play("a7a9");
  EXPECT_EQ(g.position().halfmove_clock(), 120);
  EXPECT_EQ(g.state(), S(Result::RED_WIN, Termination::CHECKMATE));
}

TEST(Game, StateIsCachedPerPly) {
  Game g(kChariotChecks);
  play_all(g, kChariotCycle);
  const GameState first = g.state();
  EXPECT_EQ(g.state(), first);
  // Undo and replay judge the new ply afresh.
  g.undo();
  EXPECT_FALSE(g.over());
  g.play("d9e9");
  EXPECT_EQ(g.state(), first);
}

}  // namespace
}  // namespace xq
