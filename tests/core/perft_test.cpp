#include <gtest/gtest.h>

#include "core/perft.h"
#include "tests/support/perft_cases.h"

namespace xq {
namespace {

class PerftTable : public ::testing::TestWithParam<test::PerftCase> {};

TEST_P(PerftTable, DepthsOneToFour) {
  Position pos = Position::from_fen(GetParam().fen);
  const uint64_t key = pos.key();
  const std::string fen = pos.fen();
  for (int depth = 1; depth <= 4; ++depth) EXPECT_EQ(perft(pos, depth), GetParam().nodes[depth]) << "depth " << depth;
  // Make/unmake must restore the position exactly.
  EXPECT_EQ(pos.key(), key);
  EXPECT_EQ(pos.fen(), fen);
}

INSTANTIATE_TEST_SUITE_P(Design4, PerftTable, ::testing::ValuesIn(test::kPerftTable), test::perft_case_name);

TEST(Perft, DivideSumsToTotal) {
  Position pos;
  const auto divide = perft_divide(pos, 3);
  EXPECT_EQ(divide.size(), 44u);
  uint64_t sum = 0;
  for (const auto& [move, count] : divide) sum += count;
  EXPECT_EQ(sum, 79666u);
}

TEST(Perft, DepthZeroIsOne) {
  Position pos;
  EXPECT_EQ(perft(pos, 0), 1u);
}

}  // namespace
}  // namespace xq
