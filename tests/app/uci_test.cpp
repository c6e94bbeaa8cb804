// Scripted UCI sessions (app/uci/uci_engine.h) with the uniform evaluator: the command set
// of docs/architecture.md §6, info lines, multipv, stop during infinite, perft, malformed
// commands.
#include <gtest/gtest.h>
#include "tests/support/tiny_net.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/uci/score.h"
#include "app/uci/search_thread.h"
#include "app/uci/uci_engine.h"
#include "core/move_parse.h"
#include "core/movegen.h"
#include "nn/checkpoint.h"
#include "nn/evaluator.h"
#include "nn/network.h"
#include "tests/support/uci_session.h"

namespace xq::app::uci {
namespace {

using namespace fixtures;

TEST(Uci, Handshake) {
  const auto lines = session("uci\nisready\n");
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("id name xqzero", 0), 0u);
  for (const char* name : {"WeightsFile", "Threads", "MultiPV", "UCI_ShowWDL", "CPuct", "BatchSize", "CacheSize",
                           "Device", "Move Overhead", "LeavesPerBatch", "Hash"})
    EXPECT_EQ(with_prefix(lines, std::string("option name ") + name + " type").size(), 1u) << name;
  const auto threads = with_prefix(lines, "option name Threads type spin default 1 min 1 max ");
  ASSERT_EQ(threads.size(), 1u);
  // Threads goes up to what the machine has (and 64 at least, for a GUI's usual choices).
  const long threads_max = std::atol(threads[0].c_str() + threads[0].rfind(' ') + 1);
  EXPECT_GE(threads_max, long(std::thread::hardware_concurrency())) << threads[0];
  EXPECT_GE(threads_max, 64L) << threads[0];
  EXPECT_EQ(with_prefix(lines, "option name WeightsFile type string default uniform").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "uciok").size(), 1u);
  EXPECT_EQ(lines.back(), "readyok");
  EXPECT_EQ(lines[lines.size() - 2], "info string net: uniform priors (no network)") << "isready says which net";
}

// Options backed by configuration fields take type, range and choices from proto/config.proto
// and defaults from the engine's configuration; Pikafish's spellings and the old names work.
TEST(Uci, OptionsFromTheConfiguration) {
  xqzero::Config config = uniform_config();
  config.mutable_search()->set_c_puct_init(2.5f);
  config.mutable_search()->set_algorithm("gumbel");
  std::ostringstream out;
  UciEngine engine(out, config);
  engine.command("uci");
  const auto lines = lines_of(out.str());
  EXPECT_EQ(with_prefix(lines, "option name CPuct type string default 2.5").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "option name SearchAlgorithm type combo default gumbel var puct var gumbel").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "option name LeavesPerBatch type spin default 8 min 1 max 256").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "option name BatchSize type spin default 256 min 1 max 4096").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "option name Move Overhead type spin default 100").size(), 1u);
  for (const std::string cmd : {"setoption name CPuct value 11", "setoption name SearchAlgorithm value minimax"}) {
    const size_t before = out.str().size();
    engine.command(cmd);
    const auto added = lines_of(out.str().substr(before));
    ASSERT_EQ(added.size(), 1u) << cmd;
    EXPECT_EQ(added[0].rfind("info string setoption: ", 0), 0u) << added[0];
  }
  const size_t before = out.str().size();
  for (const std::string cmd :
       {"setoption name TreeMemoryMB value 64", "setoption name MoveOverhead value 50",
        "setoption name move overhead value 60", "setoption name cpuct value 3", "position startpos", "go nodes 16"})
    engine.command(cmd);
  engine.wait_idle();
  const auto added = lines_of(out.str().substr(before));
  EXPECT_EQ(with_prefix(added, "info string").size(), 1u) << added[0];
  EXPECT_EQ(with_prefix(added, "info string net: uniform priors").size(), 1u) << "the evaluator, built at the go";
  EXPECT_EQ(with_prefix(added, "bestmove").size(), 1u);
}

TEST(Uci, StartPositionSearchByNodes) {
  const auto lines = session("position startpos\ngo nodes 120\n");
  const auto [best, ponder] = bestmove(lines);
  Position start;
  EXPECT_TRUE(illegal_reason(start, parse_iccs(best)).empty()) << best;
  const auto infos = with_prefix(lines, "info depth");
  ASSERT_FALSE(infos.empty());
  const std::string& last = infos.back();
  EXPECT_EQ(field(last, "nodes"), "120");  // go nodes N: exactly N new visits
  EXPECT_FALSE(field(last, "seldepth").empty());
  EXPECT_FALSE(field(last, "nps").empty());
  EXPECT_FALSE(field(last, "score").empty());
  EXPECT_EQ(field(last, "score"), "cp");
  EXPECT_EQ(field(last, "multipv"), "1");
  EXPECT_GE(std::stoi(field(last, "seldepth")), std::stoi(field(last, "depth")));
  const auto pv = pv_of(last);
  ASSERT_FALSE(pv.empty());
  EXPECT_EQ(pv[0], best);
  if (pv.size() >= 2) {
    EXPECT_EQ(ponder, pv[1]);
  }
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
  EXPECT_EQ(lines.back().rfind("bestmove", 0), 0u);
}

// A position with a bad move or FEN is refused as a whole, naming the move or the field; the
// engine keeps the last good position and searches that one.
TEST(Uci, BadPositionIsRefusedAsAWhole) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("position startpos moves h2e2 h9g7");
  const std::string good = engine.game().position().fen();
  auto lines = reply(engine, out, "position startpos moves h2e2 h9g7 b0c2 b9c7 e2e9");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("info string position: move 5: illegal move 'e2e9'", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("position unchanged"), std::string::npos) << lines[0];
  EXPECT_EQ(engine.game().position().fen(), good);
  EXPECT_EQ(engine.game().ply(), 2) << "not the three good moves before the bad one";
  lines = reply(engine, out, "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("info string position: bad FEN", 0), 0u) << lines[0];
  EXPECT_EQ(engine.game().position().fen(), good);
  lines = reply(engine, out, "go nodes 8");
  EXPECT_TRUE(illegal_reason(Position::from_fen(good), parse_iccs(bestmove(lines).first)).empty());
}

TEST(Uci, PositionWithMovesAndFen) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("position startpos moves h2e2 h9g7");
  EXPECT_EQ(engine.game().ply(), 2);
  EXPECT_EQ(engine.game().side_to_move(), RED);
  engine.command("go nodes 40");
  engine.wait_idle();
  const auto [best, ponder] = bestmove(lines_of(out.str()));
  EXPECT_TRUE(illegal_reason(engine.game().position(), parse_iccs(best)).empty()) << best;

  engine.command("position fen 3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1 moves d9d8");
  EXPECT_EQ(engine.game().ply(), 1);
  EXPECT_EQ(engine.game().position().fen(), "9/3k5/9/9/9/9/9/9/9/R3K4 w - - 1 2");
  engine.command("position fen 3k5/9/9/9/9/9/9/9/9/R3K4 w");
  EXPECT_EQ(engine.game().ply(), 0);
  EXPECT_EQ(engine.game().side_to_move(), RED);
}

TEST(Uci, FindsMateInOneAndReportsIt) {
  const auto lines =
      session("setoption name UCI_ShowWDL value true\nposition fen 3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w\ngo nodes 400\n");
  EXPECT_EQ(bestmove(lines).first, "h6d6");  // the only move that wins at once
  const auto infos = with_prefix(lines, "info depth");
  ASSERT_FALSE(infos.empty());
  EXPECT_EQ(field(infos.back(), "mate"), "1") << infos.back();
  EXPECT_EQ(field(infos.back(), "cp"), "") << infos.back();
  EXPECT_NE(infos.back().find(" wdl 1000 0 0 "), std::string::npos) << infos.back();
}

TEST(Uci, ReportsMateLengthsWithTheirLines) {
  // Red mates in two moves (3 plies); the pv is that mate.
  const std::string win = "3R5/9/5k3/9/9/9/9/1C7/3K5/9 w";
  const auto infos = with_prefix(session("position fen " + win + "\ngo nodes 3000\n"), "info depth");
  ASSERT_FALSE(infos.empty());
  EXPECT_EQ(field(infos.back(), "mate"), "2") << infos.back();
  EXPECT_EQ(play_pv(win, infos.back()), std::make_pair(size_t(3), true)) << infos.back();
  // Black is mated in two (its longest defence; the other move allows a mate in one).
  const std::string loss = "3k5/4CR3/9/9/9/9/9/4K4/9/9 b";
  const auto lost = with_prefix(session("position fen " + loss + "\ngo nodes 3000\n"), "info depth");
  ASSERT_FALSE(lost.empty());
  EXPECT_EQ(field(lost.back(), "mate"), "-2") << lost.back();
  EXPECT_EQ(play_pv(loss, lost.back()), std::make_pair(size_t(4), true)) << lost.back();
}

TEST(Uci, NoLegalMove) {
  // Black is mated: bestmove (none).
  const auto lines = session("position fen 1R1k5/R8/9/9/9/9/9/9/9/4K4 b\ngo nodes 10\n");
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "bestmove").back(), "bestmove (none)");
  ASSERT_FALSE(with_prefix(lines, "info depth 0").empty());
  EXPECT_EQ(field(with_prefix(lines, "info depth 0").back(), "mate"), "0");
}

TEST(Uci, MultiPvAndWdl) {
  const auto lines = session(
      "setoption name MultiPV value 3\nsetoption name UCI_ShowWDL value true\nposition startpos\ngo nodes 200\n");
  const auto infos = with_prefix(lines, "info depth");
  ASSERT_GE(infos.size(), 3u);
  // The final report is the last three info lines, multipv 1..3, each with a distinct first move.
  std::vector<std::string> firsts;
  for (size_t k = 0; k < 3; ++k) {
    const std::string& l = infos[infos.size() - 3 + k];
    EXPECT_EQ(field(l, "multipv"), std::to_string(k + 1)) << l;
    const auto pv = pv_of(l);
    ASSERT_FALSE(pv.empty());
    firsts.push_back(pv[0]);
    std::istringstream is(l.substr(l.find(" wdl ") + 5));
    int w = -1, d = -1, x = -1;
    is >> w >> d >> x;
    EXPECT_EQ(w + d + x, 1000) << l;
    EXPECT_GE(std::min({w, d, x}), 0);
  }
  EXPECT_EQ(firsts[0], bestmove(lines).first);
  std::sort(firsts.begin(), firsts.end());
  EXPECT_EQ(std::unique(firsts.begin(), firsts.end()), firsts.end());
}

TEST(Uci, StopDuringInfinite) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("position startpos");
  engine.command("go infinite");
  engine.command("isready");  // answered during the search
  engine.command("stop");
  engine.command("go nodes 10");  // after stop: the stopped search has ended, this one runs
  engine.wait_idle();
  const auto lines = lines_of(out.str());
  const auto ready = std::find(lines.begin(), lines.end(), "readyok");
  ASSERT_NE(ready, lines.end());
  const auto b =
      std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("bestmove", 0) == 0; });
  ASSERT_NE(b, lines.end());
  EXPECT_LT(ready - lines.begin(), b - lines.begin());
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 2u);
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "nodes"), "10");
  Position start;
  for (const auto& b : with_prefix(lines, "bestmove"))
    EXPECT_TRUE(illegal_reason(start, parse_iccs(field("x " + b, "bestmove"))).empty()) << b;
}

// The input thread never waits for a search to run its course (issue repros, through the
// input loop): a go, setoption or ucinewgame during a search stops it first, and isready,
// stop and quit are answered at once.
TEST(Uci, CommandsDuringASearchStopItFirst) {
  auto lines = loop_session("position startpos\ngo depth 1000\ngo nodes 10\nstop\nisready\nquit\n");
  EXPECT_EQ(with_prefix(lines, "readyok").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 2u) << "the depth-1000 search, then the 10-node one";

  lines = loop_session("go perft 10\nucinewgame\nisready\nquit\n");
  EXPECT_EQ(with_prefix(lines, "readyok").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "info string perft 10 stopped after ").size(), 1u);

  lines = loop_session("position startpos\ngo movetime 60000\nsetoption name MultiPV value 2\nstop\nisready\n");
  ASSERT_EQ(with_prefix(lines, "bestmove").size(), 1u);
  ASSERT_FALSE(with_prefix(lines, "info depth").empty());
  // Stopped by the setoption, long before its minute.
  EXPECT_LT(std::stoll(field(with_prefix(lines, "info depth").back(), "time")), 30000);
  EXPECT_EQ(with_prefix(lines, "readyok").size(), 1u);
}

// End of input is quit: a search that would not end by itself is stopped with its bestmove.
TEST(Uci, EndOfInputIsQuit) {
  for (const char* go : {"go depth 1000", "go nodes 9223372036854775807", "go infinite"}) {
    const auto lines = loop_session(std::string("position startpos\n") + go + "\n");
    EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u) << go;
  }
  const auto perft = loop_session("go perft 10\n");
  EXPECT_EQ(with_prefix(perft, "info string perft 10 stopped after ").size(), 1u);
}

TEST(Uci, QuitStopsAnInfiniteSearch) {
  const auto lines = session("position startpos\ngo infinite\nquit\nisready\n");
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
  EXPECT_TRUE(with_prefix(lines, "readyok").empty());  // nothing is read after quit
}

// go depth D ends once this search's simulations average D plies (reported as depth), or
// after 16 D^2 new visits: the depths GUIs send end in reasonable time.
TEST(Uci, GoDepthEndsTheSearch) {
  for (int d : {2, 4, 25}) {
    const auto lines = session("position startpos\ngo depth " + std::to_string(d) + "\n");
    EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
    const auto infos = with_prefix(lines, "info depth");
    ASSERT_FALSE(infos.empty());
    const int64_t nodes = std::stoll(field(infos.back(), "nodes"));
    EXPECT_LE(nodes, kVisitsPerDepthSquared * d * d) << infos.back();
    EXPECT_TRUE(std::stoi(field(infos.back(), "depth")) >= d || nodes == kVisitsPerDepthSquared * d * d)
        << infos.back();
  }
}

// Hash (MB, Pikafish's default 16) bounds the trees: hashfull reports the permille in use, and
// a search whose tree fills it stops and answers with what it has.
TEST(Uci, HashBoundsTheTreeAndHashfullReportsIt) {
  auto lines = session("uci\nposition startpos\ngo nodes 100\n");
  EXPECT_EQ(with_prefix(lines, "option name Hash type spin default 16 min 1 max").size(), 1u);
  auto infos = with_prefix(lines, "info depth");
  ASSERT_FALSE(infos.empty());
  EXPECT_LT(std::stoi(field(infos.back(), "hashfull")), 1000);
  lines = session("setoption name Hash value 1\nposition startpos\ngo nodes 1000000\n");
  infos = with_prefix(lines, "info depth");
  ASSERT_FALSE(infos.empty());
  EXPECT_GE(std::stoi(field(infos.back(), "hashfull")), 900) << infos.back();
  EXPECT_LT(std::stoll(field(infos.back(), "nodes")), 1000000) << "the full tree ended the search";
  EXPECT_EQ(with_prefix(lines, "bestmove ").size(), 1u);
}

TEST(Uci, PonderThenPonderhit) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("position startpos moves h2e2");
  engine.command("go ponder nodes 30");
  engine.command("ponderhit");
  engine.wait_idle();
  const auto lines = lines_of(out.str());
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "nodes"), "30");
}

TEST(Uci, GoPerft) {
  const auto lines = session("position startpos\ngo perft 2\nposition fen 3k5/9/9/9/9/9/9/6n2/R8/5K3 w\ngo perft 1\n");
  uint64_t sum = 0;
  int moves = 0;
  for (const auto& l : lines)
    if (l.size() > 6 && l[4] == ':') {
      if (++moves <= 44) sum += std::stoull(l.substr(6));
    }
  EXPECT_EQ(moves, 44 + 3);
  EXPECT_EQ(sum, 1920u);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "a1g1: 1"), lines.end());
  const auto totals = with_prefix(lines, "Nodes searched: ");
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_EQ(totals[0], "Nodes searched: 1920");
  EXPECT_EQ(totals[1], "Nodes searched: 3");
}

TEST(Uci, MalformedCommandsGetInfoStrings) {
  const std::vector<std::string> bad = {
      "frobnicate",
      "position",
      "position sideways",
      "position fen",
      "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w",
      "position startpos moves h2e2 h2h9",
      "position startpos h2e2",
      "go nodes",
      "go nodes abc",
      "go movetime -5",
      "go sideways nodes 5",
      "setoption",
      "setoption name NoSuchOption value 3",
      "setoption name Threads value 0",
      "setoption name Threads value many",
      "setoption name UCI_ShowWDL value maybe",
      "setoption name CPuct value -1",
      "setoption name SearchAlgorithm value minimax",
      "setoption name MultiPV",
  };
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  for (const std::string& cmd : bad) {
    const size_t before = out.str().size();
    EXPECT_TRUE(engine.command(cmd));
    engine.wait_idle();
    const auto added = lines_of(out.str().substr(before));
    ASSERT_FALSE(added.empty()) << cmd;
    EXPECT_EQ(added[0].rfind("info string ", 0), 0u) << cmd << " -> " << added[0];
  }
  // Every go answered with one bestmove after its info string: "go nodes", "go nodes abc"
  // and "go movetime -5" at once (no limit left), "go sideways nodes 5" after 5 visits.
  EXPECT_EQ(with_prefix(lines_of(out.str()), "bestmove").size(), 4u);
  // The bad move list is refused as a whole; the options kept their values.
  engine.command("position startpos moves h2e2");
  engine.command("position startpos moves h2e2 h9g7 h2h9");
  EXPECT_EQ(engine.game().ply(), 1);
  engine.command("go nodes 20");
  engine.wait_idle();
  const auto lines = lines_of(out.str());
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 5u);
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "multipv"), "1");
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "wdl"), "");
}

}  // namespace
}  // namespace xq::app::uci
