#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/position.h"

namespace xq {
namespace {

// Expects from_fen to throw a FenError whose message contains `needle`.
void expect_fen_error(const std::string& fen, const std::string& needle) {
  try {
    Position::from_fen(fen);
    ADD_FAILURE() << "accepted: " << fen;
  } catch (const FenError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what() << " / wanted: " << needle;
  }
}

TEST(Fen, StartPositionRoundTrips) {
  const Position pos = Position::from_fen(Position::kStartFen);
  EXPECT_EQ(pos.fen(), Position::kStartFen);
  EXPECT_EQ(pos.side_to_move(), RED);
  EXPECT_EQ(pos.piece_on(make_square(4, 0)), make_piece(RED, KING));
  EXPECT_EQ(pos.piece_on(make_square(1, 7)), make_piece(BLACK, CANNON));
  EXPECT_EQ(pos.piece_count(RED), 16);
  EXPECT_EQ(pos.count(BLACK, PAWN), 5);
}

TEST(Fen, ShortFormAndCounters) {
  const Position a = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w");
  EXPECT_EQ(a.fen(), Position::kStartFen);
  const Position b = Position::from_fen("4k4/9/9/9/9/9/9/9/4A4/3K5 b - - 17 42");
  EXPECT_EQ(b.side_to_move(), BLACK);
  EXPECT_EQ(b.halfmove_clock(), 17);
  EXPECT_EQ(b.fullmove_number(), 42);
  EXPECT_EQ(b.fen(), "4k4/9/9/9/9/9/9/9/4A4/3K5 b - - 17 42");
}

TEST(Fen, SameKeyForSamePosition) {
  EXPECT_EQ(Position().key(), Position::from_fen(Position::kStartFen).key());
  EXPECT_NE(Position::from_fen("4k4/9/9/9/9/9/9/9/4A4/3K5 w").key(),
            Position::from_fen("4k4/9/9/9/9/9/9/9/4A4/3K5 b").key());
}

TEST(Fen, RejectsMalformedInput) {
  expect_fen_error("", "empty");
  expect_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", "missing side to move");
  expect_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "bad side to move 'x'");
  expect_fen_error("rnbakabnx/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "bad piece letter 'x'");
  expect_fen_error("rnbakabnr/8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "rank 8 has width 8");
  expect_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR1 w", "rank 0 is wider");
  expect_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w", "only 9 ranks");
  expect_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR/9 w", "more than 10 ranks");
  expect_fen_error("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "missing black king");
  expect_fen_error("4k4/9/9/9/9/9/9/9/9/4K4 w", "kings face each other");
  expect_fen_error("4k4/9/9/9/9/9/9/9/9/3KA4 w", "red advisor on e0 is not on one of its five palace points");
  expect_fen_error("4k4/9/9/9/9/9/9/9/9/K8 w", "red king on a0 is outside its palace");
  expect_fen_error("4k4/9/9/9/9/9/9/9/P8/3K5 w", "red pawn on a1 is behind its starting rank");
  expect_fen_error("4k4/9/9/9/9/1P7/9/9/9/3K5 w", "cannot reach before crossing");
  expect_fen_error("4k4/9/9/9/9/B8/9/9/9/3K5 w", "red elephant on a4");
  expect_fen_error("3k5/9/9/9/9/9/9/9/3R5/4K4 w - - 0 1", "side not to move (black) is in check");
  expect_fen_error("3k5/9/9/9/9/9/9/9/9/3K5 w x - 0 1", "field 3 must be '-'");
  expect_fen_error("3k5/9/9/9/9/9/9/9/9/5K3 w - - abc 1", "bad halfmove clock 'abc'");
  expect_fen_error("3k5/9/9/9/9/9/9/9/9/5K3 w - - 0 0", "bad fullmove number '0'");
  expect_fen_error("3k5/9/9/9/9/9/9/9/9/5K3 w - - 0 1 extra", "too many fields");
  expect_fen_error("RRR1k4/9/9/9/9/9/9/9/9/5K3 w", "too many red chariots");
}

// A 100 KB FEN (or field of one) comes back in the message clipped, not whole.
TEST(Fen, ErrorsDoNotEchoHugeInput) {
  const std::string huge(100000, 'r');
  for (const std::string& fen :
       {huge + " w", "4k4/9/9/9/9/9/9/9/9/5K3 " + huge, "4k4/9/9/9/9/9/9/9/9/5K3 w - - " + huge + " 1"}) {
    try {
      Position::from_fen(fen);
      ADD_FAILURE() << "accepted";
    } catch (const FenError& e) {
      const std::string what = e.what();
      EXPECT_LT(what.size(), 300u) << what.substr(0, 300);
      EXPECT_NE(what.find("...'"), std::string::npos) << what.substr(0, 300);
    }
  }
}

}  // namespace
}  // namespace xq
