// The attack map behind the network's attack planes: counts by hand on known boards, the
// side to move's view for Black, clamping, and agreement with the rules core's attackers
// along random games.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "nn/attack_map.h"
#include "nn/encoding.h"
#include "nn/planes.h"
#include "tests/support/nn_test_util.h"

namespace xq::nn {
namespace {

struct Map {
  uint8_t a[SQUARE_NB];
  explicit Map(const Position& pos) { attack_map(encode(pos).squares, a); }
  int own(int file, int rank) const { return a[make_square(file, rank)] & 3; }
  int opp(int file, int rank) const { return a[make_square(file, rank)] >> 2; }
};

TEST(AttackMap, StartPositionByHand) {
  const Map m{Position()};
  // e1, the palace centre: the king and both advisors guard it; nothing of Black reaches it.
  EXPECT_EQ(m.own(4, 1), 3);
  EXPECT_EQ(m.opp(4, 1), 0);
  // Black's horse on b9: Red's cannon b2 hits it over the screen on b7; Black's chariot defends.
  EXPECT_EQ(m.own(1, 9), 1);
  EXPECT_EQ(m.opp(1, 9), 1);
  // Squares behind the screen up to the next piece are the cannon's, the screen itself is not.
  EXPECT_EQ(m.own(1, 8), 1);
  EXPECT_EQ(m.own(1, 7), 0);
  // Pawns before the river attack straight ahead only.
  EXPECT_EQ(m.own(4, 4), 1);
  EXPECT_EQ(m.opp(4, 4), 0);
  EXPECT_EQ(m.opp(4, 5), 1);
  EXPECT_EQ(m.own(3, 3), 0);
  // Red's horse b0 reaches c2 over its free leg b1, but not d1: its leg c0 holds the elephant.
  EXPECT_EQ(m.own(2, 2), 1);
  EXPECT_EQ(m.own(3, 1), 0);
}

TEST(AttackMap, BlackToMoveSeesItsPiecesAtTheBottom) {
  // Red's central cannon (h2-e2), Black to move: in Black's view its pawn e6 stands on e3,
  // attacked by the cannon over Red's pawn, undefended; Black's own pawns attack upwards.
  const Map m{Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1")};
  EXPECT_EQ(m.opp(4, 3), 1);
  EXPECT_EQ(m.own(4, 3), 0);
  EXPECT_EQ(m.own(4, 4), 1);
  // View e2 is Black's e7, guarded by both elephants.
  EXPECT_EQ(m.own(4, 2), 2);
}

TEST(AttackMap, CountsAreClampedAtThree) {
  // e4 is attacked by two chariots, a pawn and two horses: five, clamped.
  const Map m{Position::from_fen("4k4/9/9/9/9/R7R/4P4/3N1N3/9/4K4 w - - 0 1")};
  EXPECT_EQ(m.own(4, 4), kMaxAttackCount);
  EXPECT_EQ(m.opp(4, 4), 0);
  // A horse with its leg blocked does not attack: d2's leg towards c4 is d3, free; f2's
  // towards g4 is f3, free; put a piece on f3 and f2 no longer reaches e4 or g4.
  const Map blocked{Position::from_fen("3k5/9/9/9/9/9/5C3/3N1N3/9/4K4 w - - 0 1")};
  EXPECT_EQ(blocked.own(6, 4), 0);
  EXPECT_EQ(blocked.own(2, 4), 1);
}

TEST(AttackMap, AgreesWithTheRulesCoreOnRandomGames) {
  for (const Position& pos : test::random_positions(200, 7)) {
    const Color us = pos.side_to_move();
    const Map m{pos};
    Square from[32];
    for (Square s = 0; s < SQUARE_NB; ++s) {
      const Square real = view_square(us, s);
      const int own = std::min(pos.attackers(real, us, from), kMaxAttackCount);
      const int opp = std::min(pos.attackers(real, ~us, from), kMaxAttackCount);
      ASSERT_EQ(m.own(file_of(s), rank_of(s)), own) << pos.fen() << " square " << int(s);
      ASSERT_EQ(m.opp(file_of(s), rank_of(s)), opp) << pos.fen() << " square " << int(s);
    }
  }
}

TEST(AttackMap, WrittenAfterTheScalarsWhenTheLayoutAsksForIt) {
  const EvalInput in = make_eval_input(Position());
  const PlaneLayout with{0, true};
  EXPECT_EQ(compact_width(with), 182);
  EXPECT_EQ(input_planes(with), 22);
  std::vector<uint8_t> bytes(size_t(compact_width(with)), 0xff);
  write_compact(in.request(), with, bytes.data());
  uint8_t expected[SQUARE_NB];
  attack_map(in.encoding.squares, expected);
  EXPECT_TRUE(std::equal(expected, expected + SQUARE_NB, bytes.begin() + attack_offset(with)));
  EXPECT_EQ(bytes[90], in.encoding.repetition);
  EXPECT_EQ(bytes[91], in.encoding.halfmove);
}

}  // namespace
}  // namespace xq::nn
