// xqzero judge: the verdict line, the notations it reads, settings, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "app/commands.h"
#include "tests/support/cli_util.h"

namespace xq::app {
namespace {

using JudgeRun = test::CliResult;
using test::last_line;

JudgeRun judge(std::vector<std::string> args) {
  args.insert(args.begin(), "judge");
  return test::run_cli(args);
}

// Each TEST runs as its own ctest process, which loads libtorch with app_tests: few, larger tests.
TEST(JudgeCli, Verdicts) {
  const JudgeRun start = judge({});
  EXPECT_EQ(start.status, 0) << start.err;
  EXPECT_EQ(last_line(start.out), "result: * reason: ongoing");
  EXPECT_NE(start.out.find("plies: 0"), std::string::npos);

  struct Case {
    std::vector<std::string> args;
    const char* verdict;
  } cases[] = {
      {{"--fen", "4k4/9/9/9/3R5/9/9/9/9/5K3 w", "--moves", "d5e5 e9d9 e5d5 d9e9"},
       "result: 0-1 reason: perpetual check"},
      {{"--fen", "3k5/4c4/4r4/9/9/3C5/9/4K4/3R5/9 w", "--moves", "d4e4 e7d7 e4d4 d7e7"},
       "result: 1/2-1/2 reason: repetition draw"},
      {{"--fen", "1n2k4/9/9/9/9/9/9/2R6/9/3K5 w", "--moves", "c2b2 b9c7 b2c2 c7b9"},
       "result: 0-1 reason: perpetual chase"},
      {{"--fen", "4k4/9/2N6/9/3R1R3/9/9/9/9/5K3 b"}, "result: 1-0 reason: stalemate"},
      {{"--fen", "4k4/1R7/R8/9/9/9/9/9/9/5K3 w", "--moves", "a7a9"}, "result: 1-0 reason: checkmate"},
      {{"--fen", "3ak4/4a4/9/9/9/9/9/9/4A4/3K5 w"}, "result: 1/2-1/2 reason: dead draw"},
      {{"--fen", "4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 119 80", "--moves", "a0a1"},
       "result: 1/2-1/2 reason: natural limit"},
      {{"--moves", "h2e2 h9g7", "--length-cap", "2"}, "result: 1/2-1/2 reason: length cap"},
      {{"--fen", "4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 119 80", "--moves", "a0a1", "--natural-limit", "0"},
       "result: * reason: ongoing"},
  };
  for (const Case& c : cases) {
    const JudgeRun r = judge(c.args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(last_line(r.out), c.verdict) << r.out;
  }

  // Repetitions setting.
  const std::vector<std::string> base = {"--fen", "4k4/9/9/9/3R5/9/9/9/9/5K3 w", "--moves",
                                         "d5e5 e9d9 e5d5 d9e9 d5e5 e9d9 e5d5 d9e9"};
  // By default the game ends at the first recurrence, so the fifth move comes too late.
  const JudgeRun early = judge(base);
  EXPECT_NE(early.status, 0);
  EXPECT_NE(early.err.find("move 5 'd5e5': the game is already over (result: 0-1 reason: perpetual check)"),
            std::string::npos)
      << early.err;
  std::vector<std::string> three_fold = base;
  three_fold.insert(three_fold.end(), {"--repetitions", "2"});
  const JudgeRun r = judge(three_fold);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(last_line(r.out), "result: 0-1 reason: perpetual check");
}

TEST(JudgeCli, ReadsAllThreeNotationsAndHelp) {
  const JudgeRun r = judge({"--moves", "h2e2 H8+7 马二进三 车9平8", "--list"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1. h2e2 C2.5 炮二平五\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2. h9g7 H8+7 马8进7\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3. h0g2 H2+3 马二进三\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4. i9h9 R9.8 车9平8\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fen: rnbakabr1/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(last_line(r.out), "result: * reason: ongoing");

  const JudgeRun help = judge({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--repetitions K"), std::string::npos);
  std::ostringstream out, err;
  EXPECT_EQ(run_xqzero({"help"}, out, err), 0);
  EXPECT_NE(out.str().find("judge"), std::string::npos);
}

TEST(JudgeCli, BadInputNamesTheMoveNumberAndReason) {
  const struct {
    std::vector<std::string> args;
    const char* needle;
  } cases[] = {
      {{"--moves", "h2e2 h9g7 h2h9"}, "move 3 'h2h9': illegal move 'h2h9': no piece on h2"},
      {{"--moves", "h2e2 e9d9 b2b9"}, "move 2 'e9d9': illegal move 'e9d9': it captures its own advisor"},
      {{"--moves", "C2.5 C7.5"}, "move 2 'C7.5': no legal black move fits WXF move 'C7.5'"},
      {{"--moves", "炮二平五 炮8平5 炮八平五"}, "move 3 '炮八平五': no legal red move fits Chinese move '炮八平五'"},
      {{"--moves", "h2e2 ?"}, "move 2 '?': malformed WXF move '?'"},
      {{"--moves", "炮二平"}, "move 1 '炮二平': malformed Chinese move"},
      {{"--fen", "rnbakabnr/9 w"}, "bad FEN"},
      {{"--repetitions", "0"}, "out of range"},
      {{"--bogus"}, "unknown option --bogus"},
      {{"extra"}, "unexpected argument 'extra'"},
  };
  for (const auto& c : cases) {
    const JudgeRun r = judge(c.args);
    EXPECT_NE(r.status, 0) << c.needle;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace xq::app
