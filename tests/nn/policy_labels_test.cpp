// Policy labels: the bijection, legal moves, mirroring and colour symmetry.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "nn/policy_labels.h"
#include "tests/support/nn_test_util.h"

namespace xq::nn {
namespace {

TEST(PolicyLabels, BijectionRoundTrips) {
  int found = 0;
  for (Square f = 0; f < SQUARE_NB; ++f)
    for (Square t = 0; t < SQUARE_NB; ++t) {
      const int l = label_of_view(f, t);
      if (l == kNoLabel) continue;
      ++found;
      ASSERT_GE(l, 0);
      ASSERT_LT(l, kNumLabels);
      EXPECT_EQ(label_from(l), f);
      EXPECT_EQ(label_to(l), t);
    }
  EXPECT_EQ(found, kNumLabels);
  for (int l = 0; l < kNumLabels; ++l) {
    EXPECT_EQ(label_of_view(label_from(l), label_to(l)), l);
    for (Color c : {RED, BLACK}) EXPECT_EQ(label_of(move_of(l, c), c), l);
  }
  EXPECT_EQ(label_of_view(0, 0), kNoLabel);
  EXPECT_EQ(label_of_view(make_square(0, 0), make_square(1, 1)), kNoLabel);  // no diagonal step outside the palace
  EXPECT_EQ(label_of_view(make_square(3, 7), make_square(4, 8)), kNoLabel);  // the far palace is the opponent's
  EXPECT_NE(label_of_view(make_square(3, 0), make_square(4, 1)), kNoLabel);  // advisor
  EXPECT_NE(label_of_view(make_square(2, 0), make_square(4, 2)), kNoLabel);  // elephant
  EXPECT_EQ(label_of_view(make_square(2, 5), make_square(4, 7)), kNoLabel);  // elephant beyond the river
  EXPECT_NE(label_of_view(make_square(1, 0), make_square(2, 2)), kNoLabel);  // horse
  EXPECT_NE(label_of_view(make_square(0, 0), make_square(0, 9)), kNoLabel);  // chariot
}

TEST(PolicyLabels, LabelsAreOrderedByFromThenTo) {
  for (int l = 1; l < kNumLabels; ++l) {
    const int a = label_from(l - 1) * SQUARE_NB + label_to(l - 1), b = label_from(l) * SQUARE_NB + label_to(l);
    ASSERT_LT(a, b);
  }
}

TEST(PolicyLabels, BlackMovesAreSeenFlipped) {
  // Black's cannon h7-e7 is the same label as Red's h2-e2.
  EXPECT_EQ(label_of(Move(make_square(7, 7), make_square(4, 7)), BLACK),
            label_of(Move(make_square(7, 2), make_square(4, 2)), RED));
  // Black's advisor d9-e8 is an own-palace move in Black's view.
  EXPECT_NE(label_of(Move(make_square(3, 9), make_square(4, 8)), BLACK), kNoLabel);
  EXPECT_EQ(label_of(Move(make_square(3, 9), make_square(4, 8)), RED), kNoLabel);
}

TEST(PolicyLabels, EveryLegalMoveOfRandomPositionsHasALabel) {
  int moves = 0;
  for (const Position& pos : test::random_positions(1500, 21)) {
    uint16_t labels[MAX_MOVES];
    Move ms[MAX_MOVES];
    const int n = legal_labels(pos, labels, ms);
    ASSERT_EQ(n, MoveList(pos).size());
    std::set<int> distinct;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(label_of(ms[i], pos.side_to_move()), labels[i]) << pos.fen() << " " << move_to_iccs(ms[i]);
      ASSERT_LT(labels[i], kNumLabels);
      EXPECT_EQ(move_of(labels[i], pos.side_to_move()), ms[i]);
      distinct.insert(labels[i]);
    }
    EXPECT_EQ(int(distinct.size()), n) << "two legal moves share a label in " << pos.fen();
    moves += n;
  }
  EXPECT_GT(moves, 20000);
}

TEST(PolicyLabels, ColourFlippedPositionHasTheSameLabels) {
  for (const Position& pos : test::random_positions(300, 5)) {
    uint16_t a[MAX_MOVES], b[MAX_MOVES];
    const int na = legal_labels(pos, a), nb = legal_labels(test::color_flip(pos), b);
    ASSERT_EQ(na, nb);
    std::sort(a, a + na);
    std::sort(b, b + nb);
    EXPECT_TRUE(std::equal(a, a + na, b)) << pos.fen();
  }
}

TEST(PolicyLabels, MirrorIsAnInvolutionConsistentWithTheBoard) {
  for (int l = 0; l < kNumLabels; ++l) {
    const int m = mirror_label(l);
    ASSERT_EQ(mirror_label(m), l);
    EXPECT_EQ(label_from(m), make_square(8 - file_of(label_from(l)), rank_of(label_from(l))));
    EXPECT_EQ(label_to(m), make_square(8 - file_of(label_to(l)), rank_of(label_to(l))));
  }
  for (const Position& pos : test::random_positions(300, 9)) {
    uint16_t a[MAX_MOVES], b[MAX_MOVES];
    const int na = legal_labels(pos, a), nb = legal_labels(test::mirror_position(pos), b);
    ASSERT_EQ(na, nb);
    for (int i = 0; i < na; ++i) a[i] = uint16_t(mirror_label(a[i]));
    std::sort(a, a + na);
    std::sort(b, b + nb);
    EXPECT_TRUE(std::equal(a, a + na, b)) << pos.fen();
  }
}

TEST(PolicyLabels, PolicyIndicesAreDistinctAndInRange) {
  std::set<int> seen;
  for (int l = 0; l < kNumLabels; ++l) {
    const int i = label_policy_index(l);
    ASSERT_GE(i, 0);
    ASSERT_LT(i, kPolicyPlanes * SQUARE_NB);
    EXPECT_EQ(i % SQUARE_NB, label_from(l));
    seen.insert(i);
  }
  EXPECT_EQ(int(seen.size()), kNumLabels);
}

}  // namespace
}  // namespace xq::nn
