// Scripted UCI sessions (app/uci/uci_engine.h) with the uniform evaluator: the command set
// of docs/architecture.md §6, info lines, multipv, stop during infinite, perft, malformed commands and bad
// go values (one bestmove per go), long input, bounded reports on a large kept tree, and
// the time manager's budgets.
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

#include "app/uci/score.h"
#include "app/uci/search_thread.h"
#include "app/uci/time_manager.h"
#include "app/uci/uci_engine.h"
#include "core/move_parse.h"
#include "core/movegen.h"
#include "nn/checkpoint.h"
#include "nn/evaluator.h"
#include "nn/network.h"

namespace xq::app::uci {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

std::vector<std::string> with_prefix(const std::vector<std::string>& lines, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& l : lines)
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  return out;
}

// The value after `key` in an info line ("" if absent).
std::string field(const std::string& line, const std::string& key) {
  std::istringstream is(line);
  for (std::string w; is >> w;)
    if (w == key) {
      std::string v;
      is >> v;
      return v;
    }
  return "";
}

std::vector<std::string> pv_of(const std::string& line) {
  const size_t p = line.find(" pv ");
  std::vector<std::string> out;
  if (p == std::string::npos) return out;
  std::istringstream is(line.substr(p + 4));
  for (std::string w; is >> w;) out.push_back(w);
  return out;
}

// Runs a whole session through loop() (end of input lets a finite search finish).
std::vector<std::string> session(const std::string& script) {
  std::ostringstream out;
  std::istringstream in(script);
  {
    UciEngine engine(out);
    EXPECT_EQ(engine.loop(in), 0);
  }
  return lines_of(out.str());
}

// The last bestmove's move and ponder move.
std::pair<std::string, std::string> bestmove(const std::vector<std::string>& lines) {
  const auto b = with_prefix(lines, "bestmove");
  if (b.empty()) return {"", ""};
  return {field("x " + b.back(), "bestmove"), field(b.back(), "ponder")};
}

TEST(Uci, Handshake) {
  const auto lines = session("uci\nisready\n");
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("id name xqzero", 0), 0u);
  for (const char* name : {"WeightsFile", "Threads", "MultiPV", "UCI_ShowWDL", "CPuct", "BatchSize", "CacheSize",
                           "Device", "Move Overhead", "LeavesPerBatch", "Hash"})
    EXPECT_EQ(with_prefix(lines, std::string("option name ") + name + " type").size(), 1u) << name;
  EXPECT_EQ(with_prefix(lines, "option name Threads type spin default 1 min 1 max").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "option name WeightsFile type string default uniform").size(), 1u);
  EXPECT_EQ(lines[lines.size() - 2], "uciok");
  EXPECT_EQ(lines.back(), "readyok");
}

// Options backed by configuration fields take type, range and choices from proto/config.proto
// and defaults from the engine's configuration; Pikafish's spellings and the old names work.
TEST(Uci, OptionsFromTheConfiguration) {
  xqzero::Config config;
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
  for (const std::string cmd : {"setoption name TreeMemoryMB value 64", "setoption name MoveOverhead value 50",
                                "setoption name move overhead value 60", "setoption name cpuct value 3",
                                "position startpos", "go nodes 16"})
    engine.command(cmd);
  engine.wait_idle();
  const auto added = lines_of(out.str().substr(before));
  EXPECT_TRUE(with_prefix(added, "info string").empty()) << added[0];
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

TEST(Uci, PositionWithMovesAndFen) {
  std::ostringstream out;
  UciEngine engine(out);
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
  const auto lines = session("setoption name UCI_ShowWDL value true\nposition fen 3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w\ngo nodes 400\n");
  EXPECT_EQ(bestmove(lines).first, "h6d6");  // the only move that wins at once
  const auto infos = with_prefix(lines, "info depth");
  ASSERT_FALSE(infos.empty());
  EXPECT_EQ(field(infos.back(), "mate"), "1") << infos.back();
  EXPECT_EQ(field(infos.back(), "cp"), "") << infos.back();
  EXPECT_NE(infos.back().find(" wdl 1000 0 0 "), std::string::npos) << infos.back();
}

// The pv of an info line, played from `fen`: its length, and whether it ends the game (no
// legal move: checkmate or stalemate, both lost in Xiangqi).
std::pair<size_t, bool> play_pv(const std::string& fen, const std::string& info) {
  Position pos = Position::from_fen(fen);
  const std::string pv = info.substr(info.find(" pv ") + 4);
  std::istringstream is(pv);
  size_t n = 0;
  for (std::string m; is >> m; ++n) {
    UndoInfo u;
    pos.do_move(parse_legal_move(pos, m), u);
  }
  return {n, MoveList(pos).empty()};
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
  UciEngine engine(out);
  engine.command("position startpos");
  engine.command("go infinite");
  engine.command("isready");  // answered during the search
  engine.command("go nodes 5");  // refused: the infinite search only ends on stop
  engine.command("stop");
  engine.command("go nodes 10");  // after stop: waits for the stopped search, then runs
  engine.wait_idle();
  const auto lines = lines_of(out.str());
  const auto ready = std::find(lines.begin(), lines.end(), "readyok");
  ASSERT_NE(ready, lines.end());
  const auto b = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("bestmove", 0) == 0; });
  ASSERT_NE(b, lines.end());
  EXPECT_LT(ready - lines.begin(), b - lines.begin());
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 2u);
  EXPECT_EQ(with_prefix(lines, "info string go ignored").size(), 1u);
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "nodes"), "10");
  Position start;
  for (const auto& b : with_prefix(lines, "bestmove"))
    EXPECT_TRUE(illegal_reason(start, parse_iccs(field("x " + b, "bestmove"))).empty()) << b;
}

TEST(Uci, QuitStopsAnInfiniteSearch) {
  const auto lines = session("position startpos\ngo infinite\nquit\nisready\n");
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
  EXPECT_TRUE(with_prefix(lines, "readyok").empty());  // nothing is read after quit
}

TEST(Uci, EndOfInputStopsAnInfiniteSearch) {
  EXPECT_EQ(with_prefix(session("go infinite\n"), "bestmove").size(), 1u);
}

// go depth D ends once this search's simulations average D plies (reported as depth).
TEST(Uci, GoDepthEndsTheSearch) {
  const auto lines = session("position startpos\ngo depth 2\n");
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
  const auto infos = with_prefix(lines, "info depth");
  ASSERT_FALSE(infos.empty());
  EXPECT_GE(std::stoi(field(infos.back(), "depth")), 2) << infos.back();
  EXPECT_GE(std::stoi(field(infos.back(), "seldepth")), 2) << infos.back();
}

TEST(Uci, PonderThenPonderhit) {
  std::ostringstream out;
  UciEngine engine(out);
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
  UciEngine engine(out);
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
  // The bad move list kept the legal prefix; the options kept their values.
  engine.command("position startpos moves h2e2 h2h9");
  EXPECT_EQ(engine.game().ply(), 1);
  engine.command("go nodes 20");
  engine.wait_idle();
  const auto lines = lines_of(out.str());
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 5u);
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "multipv"), "1");
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "wdl"), "");
}

// The lines a command adds to `out` once the engine is idle again.
std::vector<std::string> reply(UciEngine& engine, std::ostringstream& out, const std::string& cmd) {
  const size_t before = out.str().size();
  engine.command(cmd);
  engine.wait_idle();
  return lines_of(out.str().substr(before));
}

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
      {"go mate 3", "go: mate 3", "1"},
      {"go depth -1 nodes 30", "go: depth -1 is out of range", "30"},  // the valid limit applies
      {"go nodes movetime 60", "go: nodes needs a value", ""},         // movetime is not taken as the value
      {"go wtime 3000 btime 3000 winc -50 binc -50", "go: winc -50", ""},  // the clock applies
  };
  const Position start;
  for (const Case& c : cases) {
    std::ostringstream out;
    UciEngine engine(out);
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
    UciEngine engine(out);
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
  UciEngine engine(out);
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
  const auto lines = session(overlong + "\nisready\n");
  ASSERT_EQ(with_prefix(lines, "info string line of more than 1048576 bytes ignored: 'position fen xxx").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "readyok").size(), 1u);
  for (const auto& l : lines) EXPECT_LT(l.size(), 500u);
}

TEST(Uci, QuitStopsAPerft) {
  const auto lines = session("position startpos\ngo perft 10\nquit\n");
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
  small.depth = 1000;  // the depth limit is checked after every round, never reached
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
  UciEngine engine(out);
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

TEST(Uci, BadWeightsFileFallsBackToUniform) {
  const auto lines = session("setoption name WeightsFile value /nonexistent/net.ckpt\nisready\ngo nodes 10\n");
  EXPECT_EQ(with_prefix(lines, "info string cannot load WeightsFile '/nonexistent/net.ckpt'").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "readyok").size(), 1u);
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
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
  EXPECT_EQ(with_prefix(lines, "info string evaluator: ").size(), 1u);
  EXPECT_EQ(field(with_prefix(lines, "info depth").back(), "nodes"), "24");
  Position start;
  EXPECT_TRUE(illegal_reason(start, parse_iccs(bestmove(lines).first)).empty());
}

TEST(Uci, ThreadsSplitTheNodeBudget) {
  const auto lines = session("setoption name Threads value 3\nsetoption name MultiPV value 2\nposition startpos\ngo nodes 90\n");
  const auto infos = with_prefix(lines, "info depth");
  ASSERT_FALSE(infos.empty());
  EXPECT_EQ(field(infos.back(), "nodes"), "90");
  Position start;
  EXPECT_TRUE(illegal_reason(start, parse_iccs(bestmove(lines).first)).empty());
}

TEST(Uci, TreeReuseStillSearchesNewNodes) {
  std::ostringstream out;
  UciEngine engine(out);
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
  UciEngine engine(out);
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

TEST(TimeManager, Budgets) {
  GoParams go;
  EXPECT_FALSE(compute_time_budget(go, RED, 100).limited());
  go.wtime = 10000;
  go.winc = 1000;
  TimeBudget b = compute_time_budget(go, RED, 100);
  EXPECT_EQ(b.soft_ms, 9900 / 30 + 750);
  EXPECT_EQ(b.hard_ms, 2 * b.soft_ms);
  go.movestogo = 1;  // last move before the control: up to 80% of what is left
  b = compute_time_budget(go, RED, 100);
  EXPECT_EQ(b.soft_ms, 9900 * 8 / 10);
  EXPECT_EQ(b.hard_ms, 9900 * 8 / 10);
  go = GoParams();
  go.movetime = 500;
  b = compute_time_budget(go, BLACK, 100);
  EXPECT_EQ(b.soft_ms, 400);
  EXPECT_EQ(b.hard_ms, 400);
  go.btime = 600;  // the clock's budget is smaller than movetime: 500 / 30, twice that
  b = compute_time_budget(go, BLACK, 100);
  EXPECT_EQ(b.soft_ms, 16);
  EXPECT_EQ(b.hard_ms, 32);
}

TEST(TimeManager, NeverSpendsMoreThanTheClockHolds) {
  for (int64_t time : {0, 1, 5, 50, 99, 100, 101, 150, 300, 1000, 3000, 60000, 3600000})
    for (int64_t inc : {0, 10, 100, 1000, 5000})
      for (int mtg : {0, 1, 2, 5, 40})
        for (int64_t overhead : {0, 10, 100, 1000}) {
          GoParams go;
          go.wtime = go.btime = time;
          go.winc = go.binc = inc;
          go.movestogo = mtg;
          const TimeBudget b = compute_time_budget(go, RED, overhead);
          const int64_t left = std::max<int64_t>(1, time - overhead);
          EXPECT_GE(b.soft_ms, 1);
          EXPECT_LE(b.soft_ms, b.hard_ms);
          EXPECT_LE(b.hard_ms, std::max<int64_t>(1, left * 8 / 10)) << time << " " << inc << " " << mtg;
          if (mtg != 1) {
            EXPECT_LE(b.hard_ms, std::max<int64_t>(1, left * 4 / 10));
          }
        }
}

TEST(Score, CentipawnMapping) {
  EXPECT_EQ(value_to_cp(0.0f), 0);
  EXPECT_EQ(value_to_cp(0.5f), 93);
  EXPECT_EQ(value_to_cp(-0.5f), -93);
  EXPECT_EQ(value_to_cp(0.9f), 446);
  EXPECT_EQ(value_to_cp(1.0f), 1410);
  EXPECT_EQ(value_to_cp(2.0f), 1410);
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
