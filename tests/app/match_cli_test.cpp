// `xqzero match` end to end: random against greedy, openings and game files, xqzero against
// the built binary running as an external UCI engine, and usage errors.
#include <gtest/gtest.h>
#include "tests/support/tiny_net.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "app/commands.h"
#include "nn/checkpoint.h"
#include "nn/network.h"
#include "tests/support/cli_util.h"

#ifndef XQZERO_BINARY
#error "XQZERO_BINARY must name the built xqzero binary"
#endif

namespace xq::app {
namespace {

using test::last_line;
using Result = test::CliResult;
const auto run = test::run_cli;

std::string temp_path(const std::string& name) {
  return (testing::TempDir().empty() ? std::string("/tmp/") : testing::TempDir()) + "xq_match_" +
         std::to_string(getpid()) + "_" + name;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

TEST(MatchCli, RandomAgainstGreedyWithOpeningsAndGameFile) {
  const std::string openings = temp_path("openings.txt");
  const std::string games = temp_path("games.txt");
  std::ofstream(openings)
      << "# two openings\nh2e2 h9g7\nrnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b\n";
  const Result r = run({"match", "--a", "random", "--b", "greedy", "--games", "4", "--openings", openings, "--out",
                        games, "--concurrency", "2", "--max-plies", "200"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string result = last_line(r.out);
  EXPECT_EQ(result.rfind("result: random vs greedy: games 4 wins ", 0), 0u) << result;
  EXPECT_NE(result.find(" draws "), std::string::npos);
  EXPECT_NE(result.find(" losses "), std::string::npos);
  EXPECT_NE(result.find(" score "), std::string::npos);
  EXPECT_NE(result.find(" elo "), std::string::npos);
  EXPECT_NE(result.find("(95%)"), std::string::npos);
  EXPECT_EQ(count(r.out, "\ngame ") + (r.out.rfind("game ", 0) == 0 ? 1 : 0), 4u) << r.out;
  const std::string text = read_file(games);
  EXPECT_EQ(count(text, "[Red \""), 4u);
  EXPECT_EQ(count(text, "[Red \"random\"]"), 2u);
  EXPECT_EQ(count(text, "1. C2.5 (h2e2) H8+7 (h9g7)"), 2u) << text;  // opening 1, both colours
  EXPECT_EQ(count(text, "1. ... "), 2u);                             // opening 2 starts with black
  std::remove(openings.c_str());
  std::remove(games.c_str());
}

TEST(MatchCli, XqzeroAgainstItselfAsUciEngine) {
  const std::string games = temp_path("self.txt");
  const std::string engine = std::string("uci:") + XQZERO_BINARY + " uci";
  const Result r = run({"match", "--a", "uniform", "--b", engine, "--b-options", "WeightsFile=uniform,Threads=1",
                        "--games", "2", "--nodes", "16", "--max-plies", "40", "--out", games});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("forfeit"), std::string::npos) << r.out;
  const std::string result = last_line(r.out);
  EXPECT_EQ(result.rfind("result: uniform vs uci:xqzero 0.1: games 2 ", 0), 0u) << result;
  const std::string text = read_file(games);
  EXPECT_EQ(count(text, "[Red \"uci:xqzero 0.1\"]"), 1u) << text;
  EXPECT_EQ(count(text, "[Black \"uci:xqzero 0.1\"]"), 1u);
  EXPECT_EQ(count(text, "[Termination \"forfeit\"]"), 0u);
  std::remove(games.c_str());
}

TEST(MatchCli, CheckpointPlayer) {
  const xqzero::NetworkConfig nc = ::xq::test::tiny_net_config();
  nn::Network net = nn::make_network(nc, 3);
  const std::string ckpt = temp_path("tiny.ckpt");
  nn::save_checkpoint(ckpt, net, 12, "match test");
  const Result r = run({"match", "--a", ckpt, "--b", "random", "--games", "2", "--nodes", "8", "--max-plies", "20"});
  std::remove(ckpt.c_str());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(last_line(r.out).rfind("result: " + ckpt.substr(ckpt.rfind('/') + 1) + " vs random: games 2 ", 0), 0u)
      << r.out;
  EXPECT_EQ(r.out.find("forfeit"), std::string::npos) << r.out;
}

// An engine that cannot start is an error before the first game (a missing engine once
// read as 200 wins with --quiet), with or without --quiet; nothing is written.
TEST(MatchCli, EngineThatDoesNotStartIsAnError) {
  const std::string out_file = temp_path("missing-engine.pgn");
  for (bool quiet : {false, true}) {
    std::vector<std::string> argv{"match", "--a", "greedy", "--b", "uci:/nonexistent/engine", "--games", "2",
                                  "--start-timeout-ms", "2000", "--out", out_file};
    if (quiet) argv.push_back("--quiet");
    const Result r = run(argv);
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("--b uci:/nonexistent/engine: engine did not start"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no game was played"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out.find("result:"), std::string::npos) << r.out;
    EXPECT_FALSE(std::ifstream(out_file).good()) << "a game file was written";
  }
}

// An engine that starts and then misbehaves (here: exits at every `go`) loses each game by
// forfeit, is started again for the next, and the match goes on to its result line.
TEST(MatchCli, BrokenEngineForfeitsAndTheMatchGoesOn) {
  const std::string crasher =
      "uci:while read -r l; do case \"$l\" in uci) echo 'id name crasher'; echo uciok;; "
      "isready) echo readyok;; go*) exit 3;; esac; done";
  const Result r = run({"match", "--a", "greedy", "--b", crasher, "--games", "2", "--start-timeout-ms", "2000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count(r.out, " forfeit [black (uci:crasher): engine exited (status 3)"), 1u) << r.out;
  EXPECT_EQ(count(r.out, " forfeit [red (uci:crasher): engine exited (status 3)"), 1u) << r.out;
  EXPECT_NE(last_line(r.out).find("wins 2 draws 0 losses 0"), std::string::npos) << r.out;
  EXPECT_NE(last_line(r.out).find("forfeits 0/2"), std::string::npos) << r.out;
}

// A scripted engine in Fairy-Stockfish's dialect for `--b`: it offers UCI_Variant xiangqi,
// answers only once that variant is selected and only `go depth 1`, and as Black recaptures
// after greedy's first move from the start (a cannon takes a horse: h3h10 or b3b10 in ranks
// 1..10); anything else gets a malformed move, which the match reports as a forfeit.
std::string fake_fsf_engine() {
  const std::string start = "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
  return "uci:v=no; while read -r line; do case \"$line\" in "
         "uci) echo 'id name fake-fsf'; "
         "echo 'option name UCI_Variant type combo default chess var chess var xiangqi'; echo uciok;; "
         "'setoption name UCI_Variant value xiangqi') v=yes;; "
         "isready) echo readyok;; "
         "position*) pos=\"$line\";; "
         "'go depth 1') if [ $v != yes ]; then echo 'bestmove zz99'; else case \"$pos\" in "
         "'" +
         start +
         " moves h3h10') echo 'bestmove i10h10';; "
         "'" +
         start +
         " moves b3b10') echo 'bestmove a10b10';; "
         "*) echo 'bestmove zz98';; esac; fi;; "
         "go*) echo 'bestmove zz97';; "
         "quit) exit 0;; esac; done";
}

TEST(MatchCli, VariantEngineWithItsOwnDepthLimit) {
  const Result r = run({"match", "--a", "greedy", "--b", fake_fsf_engine(), "--b-limit", "depth=1", "--nodes", "50",
                        "--games", "1", "--max-plies", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("player a: greedy\n"
                        "player b: uci:fake-fsf, limits depth=1, UCI_Variant xiangqi selected, ranks 1..10\n",
                        0),
            0u)
      << r.out;
  EXPECT_EQ(r.out.find("forfeit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1/2-1/2 length cap, 2 plies"), std::string::npos) << r.out;
  // Without its own limit the engine gets `go nodes 50`, which this one refuses.
  const Result shared =
      run({"match", "--a", "greedy", "--b", fake_fsf_engine(), "--nodes", "50", "--games", "1", "--max-plies", "2"});
  ASSERT_EQ(shared.status, 0) << shared.err;
  EXPECT_NE(shared.out.find("player b: uci:fake-fsf, limits nodes=50,"), std::string::npos) << shared.out;
  EXPECT_NE(shared.out.find("forfeit [black (uci:fake-fsf): malformed move 'zz97']"), std::string::npos) << shared.out;
}

TEST(MatchCli, UsageErrors) {
  auto expect_error = [](const std::vector<std::string>& argv, const std::string& needle) {
    const Result r = run(argv);
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  expect_error({"match", "--b", "random"}, "missing --a");
  expect_error({"match", "--a", "random"}, "missing --b");
  expect_error({"match", "--a", "random", "--b", "/nonexistent/net.ckpt"}, "neither random");
  const std::string dir = temp_path("dir");
  ::mkdir(dir.c_str(), 0755);
  expect_error({"match", "--a", dir, "--b", "random"}, "checkpoint '" + dir + "': is a directory");
  ::rmdir(dir.c_str());
  expect_error({"match", "--a", "random", "--b", "greedy", "--nodes", "5", "--movetime", "5"}, "not both");
  expect_error({"match", "--a", "random", "--b", "greedy", "--openings", "/nonexistent/o.txt"}, "openings");
  expect_error({"match", "--a", "random", "--b", "greedy", "--a-options", "Hash=1"}, "uci: players");
  expect_error({"match", "--a", "random", "--b", "greedy", "--b-limit", "depth=x"},
               "option --b-limit: bad limit 'depth=x': depth takes an integer 1..1000");
  expect_error({"match", "--a", "random", "--b", "greedy", "--a-limit", "nodes=5,plies=3"},
               "option --a-limit: bad limit 'plies=3' in 'nodes=5,plies=3'");
  expect_error({"match", "--a", "uniform", "--b", "greedy", "--a-limit", "depth=1"},
               "option --a-limit 'depth=1': depth is for uci: players");
  EXPECT_EQ(run({"match", "--help"}).status, 0);
  EXPECT_EQ(run({"uci", "--help"}).status, 0);
}

}  // namespace
}  // namespace xq::app
