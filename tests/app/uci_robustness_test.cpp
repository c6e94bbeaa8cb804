// UCI sessions under misuse and load (app/uci/uci_engine.h): bad and huge go values (one
// bestmove per go), perft limits, long input, bounded reports on a large kept tree, weights
// files, threads, tree reuse, clocks, and the score mapping.
#include <gtest/gtest.h>
#include "tests/support/tiny_net.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "app/line_reader.h"
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

// A go with a bad value is named in an info string and still ends in exactly one bestmove,
// without a stop: the bad limit is ignored, and with no limit left the engine answers at
// once (one visit) rather than searching until a stop the GUI will not send.
TEST(Uci, BadGoValuesStillGiveOneBestmove) {
  struct Case {
    const char* go;
    const char* named;  // in the first info string
    const char* nodes;  // in the last info line; "" when a clock decides
  };
  const Case cases[] = {
      {"go nodes -5", "go: nodes -5 is out of range", "1"},
      {"go depth -1", "go: depth -1 is out of range", "1"},
      {"go movetime -1", "go: movetime -1 is out of range", "1"},
      {"go winc -50", "go: winc -50 is out of range 0..", "1"},
      {"go nodes abc", "go: nodes needs an integer, got 'abc'", "1"},
      {"go nodes", "go: nodes needs a value", "1"},
      {"go nodes 0", "go: nodes 0 is out of range", "1"},
      {"go depth 0 movestogo -2", "go: depth 0 is out of range", "1"},
      {"go mate 0", "go: mate 0 is out of range 1..100", "1"},
      {"go mate x", "go: mate needs an integer, got 'x'", "1"},
      {"go depth -1 nodes 30", "go: depth -1 is out of range", "30"},      // the valid limit applies
      {"go nodes movetime 60", "go: nodes needs a value", ""},             // movetime is not taken as the value
      {"go wtime 3000 btime 3000 winc -50 binc -50", "go: winc -50", ""},  // the clock applies
  };
  const Position start;
  for (const Case& c : cases) {
    std::ostringstream out;
    UciEngine engine(out, uniform_config());
    engine.command("position startpos");
    const auto lines = reply(engine, out, c.go);
    ASSERT_FALSE(lines.empty()) << c.go;
    EXPECT_EQ(lines[0].rfind(std::string("info string ") + c.named, 0), 0u) << c.go << " -> " << lines[0];
    const auto best = with_prefix(lines, "bestmove");
    ASSERT_EQ(best.size(), 1u) << c.go;
    EXPECT_EQ(lines.back(), best[0]) << c.go;
    EXPECT_TRUE(illegal_reason(start, parse_iccs(field("x " + best[0], "bestmove"))).empty()) << best[0];
    if (*c.nodes) {
      ASSERT_FALSE(with_prefix(lines, "info depth").empty()) << c.go;
      EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "nodes"), c.nodes) << c.go;
    }
  }
}

// Values beyond 64 bits (or beyond a limit's range) are clamped with an info string; the
// search then runs like any other: isready is answered during it, stop ends it with a bestmove.
TEST(Uci, HugeGoValuesAreClamped) {
  const char* cases[] = {"go nodes 99999999999999999999", "go nodes 9999999999999999999",
                         "go movetime 99999999999999999999", "go depth 99999999999999999999",
                         "go wtime 99999999999999999999 btime 99999999999999999999 movestogo 5000"};
  for (const char* go : cases) {
    std::ostringstream out;
    UciEngine engine(out, uniform_config());
    engine.command("position startpos");
    engine.command(go);
    engine.command("isready");
    engine.command("stop");
    engine.wait_idle();
    const auto lines = lines_of(out.str());
    ASSERT_FALSE(lines.empty()) << go;
    EXPECT_NE(lines[0].find(" is out of range "), std::string::npos) << go << " -> " << lines[0];
    EXPECT_NE(lines[0].find("; using "), std::string::npos) << go << " -> " << lines[0];
    EXPECT_EQ(with_prefix(lines, "readyok").size(), 1u) << go;
    EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u) << go;
  }
}

TEST(Uci, GoPerftDepthOutOfRangeIsRefused) {
  // Depths beyond kMaxPerftDepth (as for `xqzero perft`) would count for years in the loop.
  const auto lines = session("position startpos\ngo perft 64\ngo perft 0\ngo perft 11\ngo perft deep\nisready\n");
  const auto notes = with_prefix(lines, "info string go: perft");
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0], "info string go: perft 64 is out of range 1..10; perft ignored");
  EXPECT_EQ(notes[1], "info string go: perft 0 is out of range 1..10; perft ignored");
  EXPECT_EQ(notes[2], "info string go: perft 11 is out of range 1..10; perft ignored");
  EXPECT_EQ(notes[3], "info string go: perft needs an integer, got 'deep'; ignored");
  EXPECT_TRUE(with_prefix(lines, "Nodes searched").empty());
  EXPECT_TRUE(with_prefix(lines, "bestmove").empty());
  EXPECT_EQ(lines.back(), "readyok");
}

// A deep perft runs in the background: isready is answered during it, stop ends it (without
// a total), and a perft after it counts normally.
TEST(Uci, GoPerftAnswersIsreadyAndStop) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("position startpos");
  engine.command("go perft 9");  // some 10^13 leaves: years of counting
  engine.command("isready");
  engine.command("stop");
  engine.wait_idle();
  auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "readyok");
  EXPECT_EQ(lines[1].rfind("info string perft 9 stopped after ", 0), 0u) << lines[1];
  engine.command("go perft 1");
  engine.wait_idle();
  lines = lines_of(out.str());
  EXPECT_EQ(with_prefix(lines, "Nodes searched: ").size(), 1u);
  EXPECT_EQ(lines.back(), "Nodes searched: 44");
}

// An input line longer than the loop keeps (1 MiB) is read to its end and refused with one
// info string; the next line is a command again.
TEST(Uci, OverlongInputLineIsRefusedAndTheLoopGoesOn) {
  const std::string overlong = "position fen " + std::string((size_t(1) << 20) + 10, 'x');
  const auto lines = loop_session(overlong + "\nisready\n");
  ASSERT_EQ(with_prefix(lines, "info string line of more than 1048576 bytes ignored: 'position fen xxx").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "readyok").size(), 1u);
  for (const auto& l : lines) EXPECT_LT(l.size(), 500u);
}

// A NUL or another control byte refuses its line (the byte named by its code, never echoed):
// the position stays, and no reply holds a control byte.
TEST(Uci, ControlBytesRefuseTheLineAndAreNeverEchoed) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("position startpos moves h2e2");
  for (const std::string& bad : {std::string("position startpos moves h2e2") + '\0' + " h9g7",
                                 std::string("setoption name Multi") + '\x01' + "PV value 3",
                                 std::string("go nodes 5") + '\x1b' + "[2J", std::string("\0", 1)})
    EXPECT_EQ(reply(engine, out, bad).size(), 1u) << "one info string, nothing else";
  EXPECT_EQ(engine.game().ply(), 1) << "the line with the NUL did not change the position";
  const auto searched = reply(engine, out, "go nodes 20");
  EXPECT_EQ(field(with_prefix(searched, "info depth").back(), "multipv"), "1") << "MultiPV was not set";
  // Through the input loop, a line too long and all NULs: refused, its echo without them.
  std::istringstream in(std::string(kMaxLineBytes + 10, '\0') + "\nisready\n");
  EXPECT_EQ(engine.loop(in), 0);
  const auto lines = lines_of(out.str());
  EXPECT_EQ(with_prefix(lines, "info string line ignored: control byte 0x00 at byte 29").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "info string line ignored: control byte 0x01 at byte 21").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "info string line ignored: control byte 0x1b at byte 11").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "info string line ignored: control byte 0x00 at byte 1").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "info string line of more than").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u) << "only the last go searched";
  for (const std::string& l : lines)
    for (char c : l) EXPECT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) << l;
}

TEST(Uci, QuitStopsAPerft) {
  const auto lines = loop_session("position startpos\ngo perft 10\nquit\n");
  EXPECT_TRUE(with_prefix(lines, "Nodes searched").empty());
  EXPECT_EQ(with_prefix(lines, "info string perft 10 stopped after ").size(), 1u);
}

// Item "holding under misuse": reports after a search on a large kept tree read a bounded
// part of it (the root's moves and the reported lines), not the whole tree: the depth
// figures are the new simulations', kept as they are backed up.
TEST(UciSearchThread, ReportsReadABoundedPartOfALargeKeptTree) {
  std::mutex mutex;
  std::vector<std::string> lines;
  SearchThread search([&](const std::string& l) {
    std::lock_guard<std::mutex> lock(mutex);
    lines.push_back(l);
  });
  const auto uniform = std::make_shared<nn::UniformEvaluator>();
  const Game game;
  SearchSettings settings;
  settings.info_interval_ms = 1;  // a report after nearly every round
  SearchLimits big;
  big.nodes = 20000;  // a kept tree of some 20000 nodes
  search.start(game, uniform, settings, big);
  search.wait();
  const size_t first = lines.size();
  SearchLimits small;
  small.nodes = 200;
  small.depth = 1000;                            // the depth limit is checked after every round, never reached
  search.start(game, uniform, settings, small);  // the same position: the whole tree is kept
  search.wait();
  const std::vector<std::string> second(lines.begin() + long(first), lines.end());
  const auto reports = with_prefix(second, "info depth");  // one line per report (MultiPV 1)
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(field(reports.back(), "nodes"), "200");
  EXPECT_GE(std::stoi(field(reports.back(), "seldepth")), std::stoi(field(reports.back(), "depth")));
  // Per report: the root's moves and the search's line, then the reported line (<= 64 moves
  // each); a walk of the kept tree would read some 20000 nodes per report.
  const uint64_t per_report = uint64_t(MAX_MOVES) + 2 * 64;
  EXPECT_GT(search.report_nodes(), 0u);
  EXPECT_LE(search.report_nodes(), uint64_t(reports.size()) * per_report) << reports.size() << " reports";
}

// Input echoed in an info string is cut (80 characters, then "..."), however long it is.
TEST(Uci, LongInputIsClippedInInfoStrings) {
  const std::string huge(1 << 20, 'x');
  const std::vector<std::string> commands = {
      huge,
      "setoption name " + huge + " value 1",
      "setoption name Threads value " + huge,
      "setoption name CPuct value " + huge,
      "position " + huge,
      "position fen " + huge,
      "position startpos " + huge,
      "position startpos moves " + huge,
      "go nodes " + huge,
      "go " + huge + " nodes 3",
  };
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  for (const std::string& cmd : commands) {
    const auto lines = reply(engine, out, cmd);
    ASSERT_FALSE(lines.empty()) << cmd.substr(0, 40);
    EXPECT_EQ(lines[0].rfind("info string ", 0), 0u) << lines[0].substr(0, 200);
    EXPECT_NE(lines[0].find(std::string(80, 'x') + "..."), std::string::npos) << lines[0].substr(0, 200);
    for (const auto& l : lines) EXPECT_LT(l.size(), 500u) << l.substr(0, 200);
  }
  const auto lines = reply(engine, out, "setoption name WeightsFile value /" + huge);
  EXPECT_TRUE(lines.empty());
  const auto ready = reply(engine, out, "isready");
  ASSERT_GE(ready.size(), 2u);
  EXPECT_EQ(ready[0].rfind("info string cannot load WeightsFile '/" + std::string(79, 'x') + "...'", 0), 0u)
      << ready[0].substr(0, 200);
  for (const auto& l : ready) EXPECT_LT(l.size(), 500u) << l.substr(0, 200);
  EXPECT_EQ(ready.back(), "readyok");
}

TEST(Uci, SearchesWithATinyCheckpoint) {
  const xqzero::NetworkConfig nc = ::xq::test::tiny_net_config();
  nn::Network net = nn::make_network(nc, 7);
  const std::string path = testing::TempDir() + "uci_tiny_" + std::to_string(::getpid()) + ".ckpt";
  nn::save_checkpoint(path, net, 3, "uci test");
  const auto lines = session("setoption name WeightsFile value " + path +
                             "\nsetoption name Device value cpu\nsetoption name EvalThreads value 1\nisready\n"
                             "setoption name UCI_ShowWDL value true\nposition startpos\ngo nodes 24\n");
  std::remove(path.c_str());
  EXPECT_EQ(with_prefix(lines, "info string cannot load").size(), 0u);
  const auto net_lines = with_prefix(lines, "info string net: " + path + " (");
  ASSERT_EQ(net_lines.size(), 1u);
  EXPECT_NE(net_lines[0].find("torch(cpu"), std::string::npos) << net_lines[0];
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "nodes"), "24");
  Position start;
  EXPECT_TRUE(illegal_reason(start, parse_iccs(bestmove(lines).first)).empty());
}

TEST(Uci, ThreadsSplitTheNodeBudget) {
  const auto lines =
      session("setoption name Threads value 3\nsetoption name MultiPV value 2\nposition startpos\ngo nodes 90\n");
  const auto infos = with_prefix(lines, "info depth");
  ASSERT_FALSE(infos.empty());
  EXPECT_EQ(field(infos.back(), "nodes"), "90");
  Position start;
  EXPECT_TRUE(illegal_reason(start, parse_iccs(bestmove(lines).first)).empty());
}

TEST(Uci, TreeReuseStillSearchesNewNodes) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("position startpos");
  engine.command("go nodes 200");
  engine.wait_idle();
  const auto [best, ponder] = bestmove(lines_of(out.str()));
  ASSERT_FALSE(ponder.empty());
  engine.command("position startpos moves " + best + " " + ponder);
  engine.command("go nodes 50");
  engine.wait_idle();
  const auto lines = lines_of(out.str());
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "nodes"), "50");
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 2u);
  engine.command("ucinewgame");
  engine.command("go nodes 10");
  engine.wait_idle();
  EXPECT_EQ(engine.game().ply(), 0);
  EXPECT_EQ(with_prefix(lines_of(out.str()), "bestmove").size(), 3u);
}

TEST(Uci, GoWithClockSetsTheBudget) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("setoption name MoveOverhead value 100");
  engine.command("position startpos moves h2e2");  // black to move: btime counts
  engine.command("go wtime 100000 btime 1000 winc 0 binc 0");
  engine.wait_idle();
  EXPECT_EQ(engine.last_budget().soft_ms, 30);  // (1000 - 100) / 30
  EXPECT_EQ(engine.last_budget().hard_ms, 60);
  EXPECT_EQ(with_prefix(lines_of(out.str()), "bestmove").size(), 1u);
  engine.command("go movetime 150");
  engine.wait_idle();
  EXPECT_EQ(engine.last_budget().hard_ms, 50);
  EXPECT_EQ(with_prefix(lines_of(out.str()), "bestmove").size(), 2u);
}

TEST(Score, CentipawnMapping) {
  // cp = 1200 atanh(v), the fit to Fairy-Stockfish's pawn (app/uci/score.h)
  EXPECT_EQ(value_to_cp(0.0f), 0);
  EXPECT_EQ(value_to_cp(0.1f), 120);
  EXPECT_EQ(value_to_cp(0.5f), 659);
  EXPECT_EQ(value_to_cp(-0.5f), -659);
  EXPECT_EQ(value_to_cp(0.75f), 1168);
  EXPECT_EQ(value_to_cp(1.0f), 4560);
  EXPECT_EQ(value_to_cp(2.0f), 4560);
  EXPECT_EQ(value_to_cp(-2.0f), -4560);
  EXPECT_EQ(mate_moves(1), 1);
  EXPECT_EQ(mate_moves(2), 1);
  EXPECT_EQ(mate_moves(3), 2);
  EXPECT_EQ(mate_moves(4), 2);
  for (float v = -1.0f; v < 0.99f; v += 0.01f) EXPECT_LE(value_to_cp(v), value_to_cp(v + 0.01f));
  const auto wdl = wdl_permille(0.2f, 0.5f);
  EXPECT_EQ(wdl[0], 350);
  EXPECT_EQ(wdl[1], 500);
  EXPECT_EQ(wdl[2], 150);
  const auto even = wdl_permille(0.0f, 1.0f / 3.0f);
  EXPECT_EQ(even[0] + even[1] + even[2], 1000);
  EXPECT_EQ(even[0], even[2]);
}

}  // namespace
}  // namespace xq::app::uci
