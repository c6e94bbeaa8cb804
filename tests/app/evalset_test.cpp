// Position-set scoring (app/analyse/evalset.h): parsing with errors that name the line, and
// the agreement, sign and calibration figures on cases whose answers are known.
#include <gtest/gtest.h>

#include "app/analyse/evalset.h"

namespace xq::app::analyse {
namespace {

const char* kMateInOne = "3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w";  // h6d6 is the only winning move

TEST(Evalset, ParsesPositionsMovesAndScores) {
  const std::string text = std::string("# comment\n\n") + kMateInOne + "\th6d6\t20000\r\n" +
                           "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\th2e2\n";
  const auto set = parse_evalset(text, "t.tsv");
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set[0].line, 3);
  EXPECT_TRUE(set[0].has_score);
  EXPECT_EQ(set[0].score_cp, 20000);
  EXPECT_FALSE(set[1].has_score);
  EXPECT_EQ(set[1].line, 4);
}

TEST(Evalset, BadLinesNameTheFileAndLine) {
  auto message = [](const std::string& text) {
    try {
      parse_evalset(text, "t.tsv");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(std::string(kMateInOne) + "\th6d6\n9/9 w\th6d6\n").find("'t.tsv' line 2"), std::string::npos);
  EXPECT_NE(message(std::string(kMateInOne) + "\ta0a1\n").find("line 1"), std::string::npos);
  EXPECT_NE(message(std::string(kMateInOne) + "\th6d6\tlots\n").find("score 'lots'"), std::string::npos);
  EXPECT_NE(message(std::string(kMateInOne) + "\n").find("expected FEN<TAB>move"), std::string::npos);
  EXPECT_NE(message("# nothing\n").find("no positions"), std::string::npos);
}

TEST(Evalset, UniformPolicyAgreesWithNothingAndTheSearchFindsTheMate) {
  const auto set = parse_evalset(std::string(kMateInOne) + "\th6d6\t20000\n" + kMateInOne + "\tb4b5\t-20000\n", "t");
  nn::UniformEvaluator uniform;
  EvalsetOptions raw;
  const EvalsetReport r0 = score_evalset(set, uniform, raw);
  EXPECT_EQ(r0.positions, 2);
  EXPECT_EQ(r0.policy_top1, 0) << "equal priors: ties count against the reference move";
  EXPECT_EQ(r0.policy_top3, 0);
  EXPECT_EQ(r0.sign_positions, 2);
  EXPECT_EQ(r0.sign_agree, 0) << "a value of 0 has no sign";

  EvalsetOptions searched;
  searched.visits = 60;
  const EvalsetReport r = score_evalset(set, uniform, searched);
  EXPECT_EQ(r.search_top1, 1) << "the search plays h6d6, the first line's reference";
  EXPECT_EQ(r.sign_agree, 1) << "a proven win agrees with +20000, not with -20000";
  int counted = 0;
  for (const auto& b : r.calibration) {
    counted += b.count;
    if (b.lo == 1000) {
      EXPECT_EQ(b.count, 1);
      EXPECT_DOUBLE_EQ(b.win, 1.0);
    }
    if (b.hi == -1000) {
      EXPECT_EQ(b.count, 1);
      EXPECT_DOUBLE_EQ(b.win, 1.0) << "the same position: the search still wins it";
    }
  }
  EXPECT_EQ(counted, 2);
  const std::string text = format_report(r);
  EXPECT_NE(text.find("search top-1 agreement"), std::string::npos) << text;
}

}  // namespace
}  // namespace xq::app::analyse
