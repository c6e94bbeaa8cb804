#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/move_parse.h"

namespace xq {
namespace {

std::string error_of(const Position& pos, const std::string& text) {
  try {
    parse_legal_move(pos, text);
  } catch (const MoveError& e) {
    return e.what();
  }
  return "";
}

TEST(MoveParse, IccsRoundTrip) {
  const Move m = parse_iccs("h2e2");
  EXPECT_EQ(m.from(), make_square(7, 2));
  EXPECT_EQ(m.to(), make_square(4, 2));
  EXPECT_EQ(move_to_iccs(m), "h2e2");
  EXPECT_EQ(move_to_iccs(parse_iccs("H2E2")), "h2e2");
}

TEST(MoveParse, MalformedMoves) {
  const Position pos;
  EXPECT_NE(error_of(pos, "h2e").find("expected 4 characters"), std::string::npos);
  EXPECT_NE(error_of(pos, "j2e2").find("file 'j' is not a..i"), std::string::npos);
  EXPECT_NE(error_of(pos, "h2ex").find("rank 'x' is not 0..9"), std::string::npos);
  EXPECT_NE(error_of(pos, "h2h2").find("same"), std::string::npos);
}

TEST(MoveParse, ErrorsDoNotEchoHugeInput) {
  const std::string e = error_of(Position(), std::string(1 << 20, 'h'));
  EXPECT_LT(e.size(), 200u) << e.substr(0, 200);
  EXPECT_NE(e.find("malformed move '" + std::string(80, 'h') + "...'"), std::string::npos) << e.substr(0, 200);
}

TEST(MoveParse, IllegalMovesSayWhy) {
  const Position pos;
  EXPECT_EQ(error_of(pos, "h2e2"), "");
  EXPECT_NE(error_of(pos, "e4e5").find("no piece on e4"), std::string::npos);
  EXPECT_NE(error_of(pos, "h7e7").find("black's, but red is to move"), std::string::npos);
  EXPECT_NE(error_of(pos, "a0b0").find("captures its own horse"), std::string::npos);
  EXPECT_NE(error_of(pos, "b0d1").find("horse's leg on c0 is blocked"), std::string::npos);
  EXPECT_EQ(error_of(pos, "h2h9"), "");  // over the screen h7
  EXPECT_NE(error_of(pos, "h2h7").find("captures only over exactly one screen"), std::string::npos);
  EXPECT_NE(error_of(pos, "h2h8").find("a cannon jumps only to capture"), std::string::npos);
  EXPECT_NE(error_of(pos, "a3a2").find("one step forward before crossing"), std::string::npos);
  EXPECT_NE(error_of(Position::from_fen("1r1k5/9/1n7/9/1P7/9/9/1C7/9/5K3 w"), "b2b9").find("more than one piece"),
            std::string::npos);
  EXPECT_NE(error_of(Position::from_fen("3k5/9/9/9/4P4/9/9/9/9/5K3 w"), "e5e4").find("never back"), std::string::npos);
  EXPECT_NE(error_of(pos, "e0e2").find("one orthogonal step"), std::string::npos);
  // Flying general and check.
  EXPECT_NE(error_of(Position::from_fen("4k4/4a4/9/9/9/9/9/9/9/4K4 b"), "e8d7").find("kings would face"),
            std::string::npos);
  EXPECT_NE(error_of(Position::from_fen("3k5/9/9/9/9/9/9/6n2/R8/5K3 w"), "a1b1").find("leaves the red king in check"),
            std::string::npos);
}

}  // namespace
}  // namespace xq
