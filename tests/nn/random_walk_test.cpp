#include "nn/random_walk.h"

#include <gtest/gtest.h>

#include <set>

#include "core/position.h"

namespace xq::nn {
namespace {

TEST(RandomWalk, SameSeedSameInputsAndOtherSeedOthers) {
  const std::vector<EvalInput> a = random_walk_inputs(40, 5), b = random_walk_inputs(40, 5),
                               c = random_walk_inputs(40, 6);
  ASSERT_EQ(a.size(), 40u);
  ASSERT_EQ(c.size(), 40u);
  int differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].key, b[i].key) << i;
    differ += a[i].key != c[i].key;
  }
  EXPECT_GT(differ, 20);
  EXPECT_TRUE(random_walk_inputs(0, 5).empty());
}

TEST(RandomWalk, StartsAGameAgainAfterMaxPlies) {
  const std::vector<EvalInput> in = random_walk_inputs(10, 3, 4);
  const uint64_t start = make_eval_input(Position()).key;
  // Games of four plies: the start position is inputs 0, 4 and 8, and only those.
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(in[i].key == start, i % 4 == 0) << i;
  std::set<uint64_t> keys;
  for (const EvalInput& e : in) {
    keys.insert(e.key);
    EXPECT_GT(e.n_labels, 0);
  }
  EXPECT_GE(keys.size(), 4u);
}

}  // namespace
}  // namespace xq::nn
