// UCI `go` beyond its limits (app/uci/go_command.h): searchmoves restricts the root, mate N
// stops at a proven mate, and a game the rules have ended is searched on with its history.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/uci/go_command.h"
#include "app/uci/uci_engine.h"
#include "core/game.h"
#include "core/move_parse.h"
#include "core/movegen.h"
#include "tests/support/test_positions.h"
#include "tests/support/uci_session.h"

namespace xq::app::uci {
namespace {

using namespace fixtures;

// h6d6 is Red's only move that wins at once; Red mates in two (and not in one) in the second.
constexpr const char* kMateInOne = "3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w";
constexpr const char* kMateInTwo = "3R5/9/5k3/9/9/9/9/1C7/3K5/9 w";
constexpr const char* kMateInThree = "5k3/3C5/9/9/9/9/9/2RK5/9/9 w";  // and not in two

// The last report's lines (MultiPV of them), after a search that ended.
std::vector<std::string> final_report(const std::vector<std::string>& lines, size_t multipv) {
  const auto infos = with_prefix(lines, "info depth");
  const size_t n = std::min(multipv, infos.size());
  return std::vector<std::string>(infos.end() - long(n), infos.end());
}

TEST(UciGo, SearchmovesRestrictsTheRoot) {
  const std::set<std::string> listed = {"h2e2", "b0c2"};
  const auto lines = session("setoption name MultiPV value 5\nposition startpos\ngo nodes 200 searchmoves h2e2 b0c2\n");
  EXPECT_TRUE(with_prefix(lines, "info string go").empty()) << "nothing wrong with this go";
  EXPECT_EQ(listed.count(bestmove(lines).first), 1u) << bestmove(lines).first;
  const auto report = final_report(lines, 5);
  std::set<std::string> firsts;
  for (const std::string& l : report) firsts.insert(pv_of(l).at(0));
  EXPECT_EQ(firsts, listed) << "both listed moves are searched, no other one";
  // searchmoves first, then a limit: the list ends at the next go word.
  const auto later = session("position startpos\ngo searchmoves h2e2 nodes 30\n");
  EXPECT_EQ(bestmove(later).first, "h2e2");
  EXPECT_EQ(field(with_prefix(later, "info depth").back(), "nodes"), "30");
}

// Moves that are not legal (or not moves) are named and left out; when none is left the
// engine searches every move and says so.
TEST(UciGo, SearchmovesNamesBadMovesAndFallsBackToEveryMove) {
  auto lines = session("position startpos\ngo nodes 40 searchmoves e2e9 h2e2 xyz\n");
  ASSERT_EQ(with_prefix(lines, "info string go: searchmoves: illegal move 'e2e9'").size(), 1u);
  ASSERT_EQ(with_prefix(lines, "info string go: searchmoves: malformed move 'xyz'").size(), 1u);
  for (const auto& l : with_prefix(lines, "info string go: searchmoves"))
    EXPECT_NE(l.find("; ignored"), std::string::npos) << l;
  EXPECT_EQ(bestmove(lines).first, "h2e2");

  lines = session("setoption name MultiPV value 3\nposition startpos\ngo nodes 200 searchmoves e2e9\n");
  EXPECT_EQ(with_prefix(lines, "info string go: searchmoves lists no legal move; searching every move").size(), 1u);
  std::set<std::string> firsts;
  for (const std::string& l : final_report(lines, 3)) firsts.insert(pv_of(l).at(0));
  EXPECT_EQ(firsts.size(), 3u) << "every move is searched";
  EXPECT_TRUE(illegal_reason(Position(), parse_iccs(bestmove(lines).first)).empty());
}

// go mate N ends as soon as a win in at most N moves is proven, with score mate K and the
// mating move; the positions are checked with the rules core.
TEST(UciGo, MateStopsWhenTheMateIsProven) {
  const Position one = Position::from_fen(kMateInOne), two = Position::from_fen(kMateInTwo);
  ASSERT_TRUE(test::has_mate_in_one(one));
  ASSERT_FALSE(test::has_mate_in_one(two));
  ASSERT_TRUE(test::forces_win_within(two, 2));

  auto lines = session(std::string("position fen ") + kMateInOne + "\ngo mate 1\n");
  EXPECT_TRUE(test::mates_in_one(one, parse_iccs(bestmove(lines).first))) << bestmove(lines).first;
  auto last = with_prefix(lines, "info depth").back();
  EXPECT_EQ(field(last, "mate"), "1") << last;
  EXPECT_LT(std::stoll(field(last, "nodes")), kMateVisitsPerMoveSquared) << "stopped at the proof";

  lines = session(std::string("position fen ") + kMateInTwo + "\ngo mate 2\n");
  EXPECT_TRUE(test::mates_in_two(two, parse_iccs(bestmove(lines).first))) << bestmove(lines).first;
  last = with_prefix(lines, "info depth").back();
  EXPECT_EQ(field(last, "mate"), "2") << last;
  EXPECT_LT(std::stoll(field(last, "nodes")), 4 * kMateVisitsPerMoveSquared) << "stopped at the proof";
  EXPECT_TRUE(with_prefix(lines, "info string go mate").empty());
  EXPECT_EQ(play_pv(kMateInTwo, last), std::make_pair(size_t(3), true)) << last;

  const Position three = Position::from_fen(kMateInThree);
  ASSERT_FALSE(test::forces_win_within(three, 2));
  ASSERT_TRUE(test::forces_win_within(three, 3));
  lines = session(std::string("position fen ") + kMateInThree + "\ngo mate 3\n");
  last = with_prefix(lines, "info depth").back();
  EXPECT_EQ(field(last, "mate"), "3") << last;
  EXPECT_LT(std::stoll(field(last, "nodes")), 9 * kMateVisitsPerMoveSquared) << "stopped at the proof";
  EXPECT_EQ(play_pv(kMateInThree, last), std::make_pair(size_t(5), true)) << last;
}

// Without a proof of a short enough mate the search ends at its bound (kMateVisitsPerMoveSquared
// N^2 visits) and says so; a longer mate it proved is still reported.
TEST(UciGo, MateWithoutAProofEndsAtItsBound) {
  auto lines = session(std::string("position fen ") + kMateInTwo + "\ngo mate 1\n");
  const auto said = with_prefix(lines, "info string go mate 1: no mate in 1 proven within ");
  ASSERT_EQ(said.size(), 1u);
  const auto last = with_prefix(lines, "info depth").back();
  EXPECT_LE(std::stoll(field(last, "nodes")), kMateVisitsPerMoveSquared) << last;
  EXPECT_EQ(field(last, "mate"), "2") << "the mate in two it proved meanwhile";
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);

  lines = session("position startpos\ngo mate 1\n");
  EXPECT_EQ(with_prefix(lines, "info string go mate 1: no mate in 1 proven within ").size(), 1u);
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "nodes"), std::to_string(kMateVisitsPerMoveSquared));
  EXPECT_TRUE(illegal_reason(Position(), parse_iccs(bestmove(lines).first)).empty());
}

// Red checks perpetually; by xqzero's rules (a repetition is judged at its first recurrence)
// the game the GUI sends is over, and the GUI plays on. The engine searches on with the
// history: a9a8 would repeat the position after Red's second check once more, and loses.
TEST(UciGo, AGameOverByRepetitionIsSearchedOnWithItsHistory) {
  const std::string fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w";
  const std::string moves = "a0a9 d9d8 a9a8 d8d9 a8a9 d9d8";
  Game g(fen);
  std::istringstream in(moves);
  for (std::string m; in >> m;) g.play(m);
  ASSERT_EQ(g.state(), (GameState{Result::BLACK_WIN, Termination::PERPETUAL_CHECK}));
  const Position root = g.position();
  g.play_on();
  g.play("a9a8");
  ASSERT_EQ(g.state(), (GameState{Result::BLACK_WIN, Termination::PERPETUAL_CHECK})) << "the rules core agrees";

  const std::string position = "position fen " + fen + " moves " + moves + "\n";
  auto lines = session(position + "go nodes 60 searchmoves a9a8\n");
  const auto said = with_prefix(lines, "info string the game is over by xqzero's rules");
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("searching on with its history"), std::string::npos) << said[0];
  const auto last = with_prefix(lines, "info depth").back();
  EXPECT_EQ(field(last, "mate"), "-1") << "a9a8 repeats a position of the history: " << last;

  lines = session(position + "go nodes 400\n");
  EXPECT_NE(bestmove(lines).first, "a9a8");
  EXPECT_TRUE(illegal_reason(root, parse_iccs(bestmove(lines).first)).empty()) << bestmove(lines).first;
}

}  // namespace
}  // namespace xq::app::uci
