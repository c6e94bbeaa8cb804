// The xqzero command line: output format of perft and one-line errors for bad input.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/position.h"
#include "records/record_io.h"
#include "tests/support/cli_util.h"

namespace xq::app {
namespace {

using test::last_line;
using Result = test::CliResult;
const auto run = test::run_cli;

void expect_one_line_error(const std::vector<std::string>& argv, const std::string& needle) {
  const Result r = run(argv);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, PerftLastLine) {
  const Result r = run({"perft", "--depth", "3"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(last_line(r.out), "Nodes searched: 79666");
  EXPECT_NE(r.out.find("Nodes/second:"), std::string::npos);
}

TEST(Cli, PerftDivideWithFen) {
  const Result r = run({"perft", "--fen", "3k5/9/9/9/9/9/9/6n2/R8/5K3 w", "--depth=1", "--divide"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("a1g1: 1\n"), std::string::npos);
  EXPECT_NE(r.out.find("f0e0: 1\n"), std::string::npos);
  EXPECT_EQ(last_line(r.out), "Nodes searched: 3");
}

TEST(Cli, HelpListsCommands) {
  const Result r = run({"help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("perft"), std::string::npos);
  EXPECT_NE(r.out.find("bench"), std::string::npos);
  EXPECT_EQ(run({"perft", "--help"}).status, 0);
}

TEST(Cli, UciHelpNamesTheBundledNetAsTheDefault) {
  const Result r = run({"uci", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("WeightsFile is 'bundled'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("'uniform' (no network) by default"), std::string::npos) << r.out;
}

TEST(Cli, BadInputGivesOneLineErrors) {
  expect_one_line_error({"frobnicate"}, "unknown command 'frobnicate'");
  expect_one_line_error({"perft"}, "missing --depth");
  expect_one_line_error({"perft", "--depth"}, "--depth needs a value");
  expect_one_line_error({"perft", "--depth", "x"}, "'x' is not an integer");
  expect_one_line_error({"perft", "--depth", "99"}, "out of range");
  expect_one_line_error({"perft", "--depth", "2", "--bogus"}, "unknown option --bogus");
  expect_one_line_error({"perft", "--depth", "2", "--fen", "rnbakabnr/9 w"}, "bad FEN");
  expect_one_line_error({"perft", "--depth", "2", "--fen", "4k4/9/9/9/9/9/9/9/9/4K4 w"}, "kings face");
  expect_one_line_error({"bench", "nosuch"}, "unknown benchmark 'nosuch'");
  // A value option given twice is refused, naming both values, rather than taking the last.
  expect_one_line_error({"perft", "--depth", "2", "--depth=3"}, "option --depth given twice ('2' and '3')");
  expect_one_line_error({"judge", "--fen", Position::kStartFen, "--fen", Position::kStartFen}, "--fen given twice");
  // A flag given twice is the same flag.
  const Result twice = run({"perft", "--depth", "1", "--divide", "--divide"});
  EXPECT_EQ(twice.status, 0) << twice.err;
  EXPECT_EQ(last_line(twice.out), "Nodes searched: 44");
}

std::string temp_dir(const std::string& name) {
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("xqzero_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A one-move game from the start position.
xqzero::GameRecord one_move_game(const std::string& move) {
  xqzero::GameRecord g;
  g.set_start_fen(Position::kStartFen);
  g.add_moves()->set_move(move);
  g.set_result("1/2-1/2");
  return g;
}

// `cat a.rec.gz b.rec.gz > ab.rec.gz`: dump shows the games of both; junk after them is an
// error naming the file and the offset.
TEST(Cli, DumpShowsEveryGzipMember) {
  const std::string dir = temp_dir("dump");
  records::write_record_file(dir + "/a.rec.gz", {one_move_game("h2e2")});
  records::write_record_file(dir + "/b.rec.gz", {one_move_game("b2e2"), one_move_game("h0g2")});
  const std::string ab = slurp(dir + "/a.rec.gz") + slurp(dir + "/b.rec.gz");
  std::ofstream(dir + "/ab.rec.gz", std::ios::binary) << ab;
  const Result r = run({"dump", dir + "/ab.rec.gz"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("game 3 of 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("h0g2"), std::string::npos) << r.out;
  std::ofstream(dir + "/junk.rec.gz", std::ios::binary) << ab << "junk";
  expect_one_line_error(
      {"dump", dir + "/junk.rec.gz"},
      "record file '" + dir + "/junk.rec.gz': junk after gzip member 2 at byte offset " + std::to_string(ab.size()));
  std::filesystem::remove_all(dir);
}

// A directory where a file is expected: one line naming it, not a nameless stream error or
// an empty config.
TEST(Cli, FileErrorsNameTheFile) {
  const std::string dir = temp_dir("files");
  expect_one_line_error({"dump", dir}, "record file '" + dir + "': cannot read (Is a directory)");
  expect_one_line_error({"selfplay", "--config", dir, "--games", "1", "--out", dir + "/out"},
                        "config '" + dir + "': cannot read (Is a directory)");
  expect_one_line_error({"selfplay", "--model", dir, "--evaluator", "torch", "--games", "1", "--out", dir + "/out"},
                        "checkpoint '" + dir + "': is a directory");
  std::filesystem::remove_all(dir);
}

// analyse and evalset: what they need, and the file or line at fault.
TEST(Cli, AnalyseAndEvalsetErrors) {
  expect_one_line_error({"analyse", "--model", "/nonexistent/net.xqz"}, "/nonexistent/net.xqz");
  expect_one_line_error({"analyse", "--model", "uniform", "--threads", "0"}, "--threads");
  expect_one_line_error({"evalset"}, "evalset needs one FILE");
  const std::string dir = temp_dir("evalset");
  expect_one_line_error({"evalset", dir + "/none.tsv", "--model", "uniform"}, "evalset '" + dir + "/none.tsv'");
  { std::ofstream(dir + "/bad.tsv") << "3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w\th6d6\t100\nnot a fen\th6d6\n"; }
  expect_one_line_error({"evalset", dir + "/bad.tsv", "--model", "uniform"}, "evalset '" + dir + "/bad.tsv' line 2");
  { std::ofstream(dir + "/good.tsv") << "3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w\th6d6\t20000\n"; }
  const Result r = run({"evalset", dir + "/good.tsv", "--model", "uniform", "--visits", "40"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("search top-1 agreement          1.000  (1 of 1)"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

// A 100 KB FEN or a 1 MB option name comes back clipped.
TEST(Cli, HugeInputIsNotEchoed) {
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"perft", "--depth", "1", "--fen", std::string(100000, 'r') + " w"},
        std::vector<std::string>{"perft", "--depth", "1", "--" + std::string(1 << 20, 'x')},
        std::vector<std::string>{"perft", "--depth", std::string(1 << 20, '9')}}) {
    const Result r = run(argv);
    EXPECT_NE(r.status, 0);
    EXPECT_LT(r.err.size(), 300u) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find("..."), std::string::npos) << r.err.substr(0, 300);
  }
}

// The run directory of `xqzero train`: unusable paths and a stored config.textproto that does
// not validate are one-line errors before anything runs (the run directory is left as it was).
TEST(Cli, TrainRunDirAndStoredConfigErrors) {
  expect_one_line_error({"train", "--run-dir", ""}, "option --run-dir: the path is empty");
  expect_one_line_error({"train", "--run-dir="}, "option --run-dir: the path is empty");
  expect_one_line_error({"train", "--run-dir", "/dev/null/run"}, "option --run-dir: cannot create '/dev/null/run'");

  namespace fs = std::filesystem;
  const fs::path run = fs::temp_directory_path() / ("xqzero_cli_train_" + std::to_string(::getpid()));
  fs::remove_all(run);
  fs::create_directories(run);
  const std::string stored = "# a run's config\ntraining {\n  checkpoint_every: 0\n}\n";
  std::ofstream(run / "config.textproto") << stored;
  expect_one_line_error({"train", "--run-dir", run.string(), "--max-steps", "1"},
                        "config.textproto': line 3: training.checkpoint_every = 0 is out of range");
  std::ofstream(run / "config.textproto") << "training {\n  log_every: 0\n}\n";
  expect_one_line_error({"train", "--run-dir", run.string()}, "line 2: training.log_every = 0 is out of range");
  std::ofstream(run / "config.textproto") << "training {\n\n  bogus: 1\n}\n";
  expect_one_line_error({"train", "--run-dir", run.string()}, "config.textproto': line 3 column ");
  EXPECT_FALSE(fs::exists(run / "checkpoints" / "ckpt-00000000.xqz"));
  EXPECT_FALSE(fs::exists(run / "latest"));
  std::ifstream in(run / "config.textproto");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "training {\n\n  bogus: 1\n}\n") << "a config that does not validate is not replaced";
  fs::remove_all(run);
}

}  // namespace
}  // namespace xq::app
