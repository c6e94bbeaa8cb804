// The compact encoding: orientation, codes, scalars, mirroring and the cache key.
#include <gtest/gtest.h>

#include "nn/encoding.h"
#include "tests/support/nn_test_util.h"

namespace xq::nn {
namespace {

TEST(Encoding, StartPositionCodes) {
  const Encoding e = encode(Position());
  EXPECT_EQ(e.squares[make_square(4, 0)], kOwnCodeBase + KING);
  EXPECT_EQ(e.squares[make_square(4, 9)], kOppCodeBase + KING);
  EXPECT_EQ(e.squares[make_square(1, 2)], kOwnCodeBase + CANNON);
  EXPECT_EQ(e.squares[make_square(0, 6)], kOppCodeBase + PAWN);
  EXPECT_EQ(e.squares[make_square(4, 4)], 0);
  int pieces = 0;
  for (uint8_t c : e.squares) {
    EXPECT_LT(c, kNumSquareCodes);
    pieces += c != 0;
  }
  EXPECT_EQ(pieces, 32);
  EXPECT_EQ(e.repetition, 0);
  EXPECT_EQ(e.halfmove, 0);
}

TEST(Encoding, BlackSeesItselfAtTheBottom) {
  // After one Red move, Black to move: Black's king must be "own" on e0 of the view.
  Position pos = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
  const Encoding e = encode(pos);
  EXPECT_EQ(e.squares[make_square(4, 0)], kOwnCodeBase + KING);
  EXPECT_EQ(e.squares[make_square(4, 9)], kOppCodeBase + KING);
  // Red's cannon on e2 appears at e7 as an opponent cannon.
  EXPECT_EQ(e.squares[make_square(4, 7)], kOppCodeBase + CANNON);
  EXPECT_EQ(e.halfmove, 1);
}

TEST(Encoding, BlackPositionEqualsColourFlippedRedOne) {
  int black = 0;
  for (const Position& pos : test::random_positions(400, 7)) {
    const Position flipped = test::color_flip(pos);
    ASSERT_EQ(encode(pos, 1), encode(flipped, 1)) << pos.fen() << " vs " << flipped.fen();
    black += pos.side_to_move() == BLACK;
  }
  EXPECT_GT(black, 100);
}

TEST(Encoding, PerspectiveOfTheOtherSide) {
  for (const Position& pos : test::random_positions(50, 3)) {
    const Encoding mine = encode(pos, pos.side_to_move()), theirs = encode(pos, ~pos.side_to_move());
    for (Square s = 0; s < SQUARE_NB; ++s) {
      const uint8_t a = mine.squares[s], b = theirs.squares[make_square(file_of(s), 9 - rank_of(s))];
      if (a == 0) {
        EXPECT_EQ(b, 0);
      } else {
        EXPECT_EQ(a <= 7 ? a + 7 : a - 7, b);
      }
    }
  }
}

TEST(Encoding, ScalarsAreClamped) {
  Position pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w - - 250 1");
  EXPECT_EQ(encode(pos, 5).repetition, kMaxRepetition);
  EXPECT_EQ(encode(pos, -1).repetition, 0);
  EXPECT_EQ(encode(pos).halfmove, 250);
  pos.set_counters(1000, 1);
  EXPECT_EQ(encode(pos).halfmove, kMaxHalfmove);
}

TEST(Encoding, MirrorMatchesMirroredBoardAndIsAnInvolution) {
  for (const Position& pos : test::random_positions(200, 11)) {
    const Encoding e = encode(pos, 2);
    EXPECT_EQ(mirror(mirror(e)), e);
    EXPECT_EQ(mirror(e), encode(test::mirror_position(pos), 2));
  }
}

TEST(Encoding, EvalKeySeparatesWhatTheEncodingCarries) {
  Position pos;
  const uint64_t k0 = eval_key(pos, 0);
  EXPECT_EQ(k0, eval_key(pos, 0));
  EXPECT_NE(k0, eval_key(pos, 1));
  Position later = pos;
  later.set_counters(3, 1);
  EXPECT_NE(k0, eval_key(later, 0));
  const uint64_t h[2] = {111, 222};
  EXPECT_NE(k0, eval_key(pos, 0, h, 1));
  EXPECT_NE(eval_key(pos, 0, h, 1), eval_key(pos, 0, h, 2));
  EXPECT_NE(k0, pos.key());
}

}  // namespace
}  // namespace xq::nn
