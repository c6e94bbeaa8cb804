// Depth 5 of every row of tests/support/perft_cases.h (about 400 million leaves): labelled slow.
#include <gtest/gtest.h>

#include "core/perft.h"
#include "tests/support/perft_cases.h"

namespace xq {
namespace {

class PerftTableSlow : public ::testing::TestWithParam<test::PerftCase> {};

TEST_P(PerftTableSlow, DepthFive) {
  Position pos = Position::from_fen(GetParam().fen);
  EXPECT_EQ(perft(pos, 5), GetParam().nodes[5]);
}

INSTANTIATE_TEST_SUITE_P(Design4, PerftTableSlow, ::testing::ValuesIn(test::kPerftTable), test::perft_case_name);

}  // namespace
}  // namespace xq
