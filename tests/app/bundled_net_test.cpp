// The bundled net (nets/xqzero-default.xqz, nn/bundled_net.h): what `xqzero uci`, `analyse`,
// `evalset` and `match --a net` play with when no weights are named, and the errors a named
// file that cannot be loaded gives (never a silent fall-back to uniform priors).
#include <gtest/gtest.h>
#include "tests/support/tiny_net.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/uci/uci_engine.h"
#include "nn/bundled_net.h"
#include "nn/checkpoint.h"
#include "nn/network.h"
#include "tests/support/cli_util.h"
#include "tests/support/uci_session.h"

#ifndef XQZERO_BINARY
#error "XQZERO_BINARY must name the built xqzero binary"
#endif
#if !defined(XQZERO_CMAKE) || !defined(XQZERO_BUILD_DIR)
#error "XQZERO_CMAKE and XQZERO_BUILD_DIR must name cmake and the build tree (for cmake --install)"
#endif

namespace xq::app {
namespace {

using namespace uci::fixtures;
using test::last_line;
const auto run = test::run_cli;

std::string temp_path(const std::string& name) {
  return (testing::TempDir().empty() ? std::string("/tmp/") : testing::TempDir()) + "xq_bundled_" +
         std::to_string(getpid()) + "_" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The integer after `key` in a match result line.
int count_of(const std::string& result, const std::string& key) {
  const size_t p = result.find(" " + key + " ");
  return p == std::string::npos ? -1 : std::atoi(result.c_str() + p + key.size() + 2);
}

TEST(BundledNet, IsFoundWithoutAPath) {
  const std::string path = nn::bundled_net_path();
  EXPECT_NE(path.find(nn::kBundledNetFile), std::string::npos);
  EXPECT_TRUE(std::ifstream(path).good());
  const xqzero::CheckpointMeta meta = nn::read_checkpoint(path);
  EXPECT_GT(meta.step(), 0) << "a trained net";
  // The weights alone: no optimiser state in the shipped file.
  for (const auto& s : meta.sections()) EXPECT_EQ(s.name(), "weights");
  EXPECT_TRUE(nn::is_bundled_weights(""));
  EXPECT_TRUE(nn::is_bundled_weights("Bundled"));
  EXPECT_TRUE(nn::is_bundled_weights("net"));
  EXPECT_FALSE(nn::is_bundled_weights("uniform"));
  EXPECT_EQ(nn::resolve_weights("some/file.xqz"), "some/file.xqz");
  EXPECT_EQ(nn::resolve_weights("bundled"), path);
}

// With no setoption the engine loads the bundled net and says which, at isready.
TEST(BundledNet, UciPlaysItByDefaultAndSaysSo) {
  const auto lines = session("uci\nisready\nposition startpos\ngo nodes 32\n", xqzero::Config());
  EXPECT_EQ(with_prefix(lines, "option name WeightsFile type string default bundled").size(), 1u);
  const auto net = with_prefix(lines, "info string net: " + nn::bundled_net_path() + " (");
  ASSERT_EQ(net.size(), 1u) << "isready names the file and the architecture";
  EXPECT_NE(net[0].find("torch("), std::string::npos) << net[0];
  EXPECT_NE(net[0].find("3x32"), std::string::npos) << net[0];
  EXPECT_EQ(with_prefix(lines, "info string cannot load").size(), 0u);
  EXPECT_EQ(with_prefix(lines, "bestmove ").size(), 1u);
}

// The bar for the default engine: `xqzero uci` with no options beats the random mover
// and the greedy player at `go nodes 100`. The bundled net wins every one of 200 games against
// both at 16 visits (nets/xqzero-default.txt); three of four here leaves room for the other
// rounding of another CPU's kernels.
TEST(BundledNet, DefaultUciEngineBeatsRandomAndGreedy) {
  const std::string engine = std::string("uci:") + XQZERO_BINARY + " uci";
  for (const char* opponent : {"random", "greedy"}) {
    const test::CliResult r = run({"match", "--a", engine, "--a-limit", "nodes=100", "--b", opponent, "--games", "4",
                                   "--max-plies", "300", "--seed", "5"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string result = last_line(r.out);
    EXPECT_GE(count_of(result, "wins"), 3) << opponent << ": " << result;
    EXPECT_EQ(result.find("forfeit"), std::string::npos) << result;
  }
}

TEST(BundledNet, MatchPlayerNet) {
  const test::CliResult r = run({"match", "--a", "net", "--b", "random", "--games", "2", "--nodes", "16"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(last_line(r.out).rfind(std::string("result: ") + nn::kBundledNetFile + " vs random: games 2 ", 0), 0u)
      << last_line(r.out);
}

// `xqzero analyse` with no flags answers with the bundled net (run as its own process: it
// reads standard input).
TEST(BundledNet, AnalyseWithNoFlags) {
  const std::string in = temp_path("q.jsonl"), out = temp_path("r.jsonl"), err = temp_path("e.txt");
  std::ofstream(in) << "{\"id\":\"q\",\"moves\":[\"h2e2\"],\"maxVisits\":16}\n";
  const std::string cmd = std::string(XQZERO_BINARY) + " analyse < " + in + " > " + out + " 2> " + err;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_text(err);
  EXPECT_NE(read_text(err).find("3x32"), std::string::npos) << read_text(err);
  const std::string response = read_text(out);
  EXPECT_NE(response.find("\"id\":\"q\""), std::string::npos) << response;
  EXPECT_EQ(response.find("\"error\""), std::string::npos) << response;
  for (const std::string& f : {in, out, err}) std::remove(f.c_str());
}

// `--model uniform` still works, and only when named: analyse answers with uniform priors.
TEST(BundledNet, AnalyseWithModelUniformUsesNoNet) {
  const std::string in = temp_path("qu.jsonl"), out = temp_path("ru.jsonl"), err = temp_path("eu.txt");
  std::ofstream(in) << "{\"id\":\"u\",\"maxVisits\":8,\"includePolicy\":true}\n";
  const std::string cmd = std::string(XQZERO_BINARY) + " analyse --model uniform < " + in + " > " + out + " 2> " + err;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_text(err);
  const std::string log = read_text(err);
  EXPECT_NE(log.find("uniform"), std::string::npos) << log;
  EXPECT_EQ(log.find("torch("), std::string::npos) << log;
  EXPECT_EQ(log.find("3x32"), std::string::npos) << log;
  const std::string response = read_text(out);
  EXPECT_NE(response.find("\"id\":\"u\""), std::string::npos) << response;
  EXPECT_EQ(response.find("\"error\""), std::string::npos) << response;
  for (const std::string& f : {in, out, err}) std::remove(f.c_str());
}

// evalset with no --model scores the bundled net and names it.
TEST(BundledNet, EvalsetWithNoModelScoresIt) {
  const test::CliResult r = run({"evalset", XQZERO_SOURCE_DIR "/docs/evalset-fsf.tsv", "--visits", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("net " + nn::bundled_net_path() + "\n", 0), 0u) << r.out;
}

// selfplay takes `--model uniform` as analyse and match do (uniform priors, no network).
TEST(BundledNet, SelfplayWithModelUniform) {
  const std::string dir = temp_path("selfplay_uniform");
  const test::CliResult r = run({"selfplay", "--model", "uniform", "--games", "1", "--visits", "2", "--out", dir,
                                 "--set", "selfplay.max_plies=40", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t line = r.out.find("evaluator: ");
  ASSERT_NE(line, std::string::npos) << r.out;
  const std::string evaluator = r.out.substr(line, r.out.find('\n', line) - line);
  EXPECT_NE(evaluator.find("uniform"), std::string::npos) << evaluator;
  EXPECT_EQ(evaluator.find("torch"), std::string::npos) << evaluator;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// The installed layout: `cmake --install` puts the binary in PREFIX/bin and the net in
// PREFIX/share/xqzero/nets, and the installed binary plays that net (not the source tree's,
// the last place it looks), named at isready.
TEST(BundledNet, InstalledBinaryFindsTheInstalledNet) {
  namespace fs = std::filesystem;
  const fs::path prefix = temp_path("prefix");
  const std::string log = temp_path("install.txt"), out = temp_path("installed.txt");
  const std::string install = std::string("'") + XQZERO_CMAKE + "' --install '" + XQZERO_BUILD_DIR + "' --prefix '" +
                              prefix.string() + "' > '" + log + "' 2>&1";
  ASSERT_EQ(std::system(install.c_str()), 0) << read_text(log);
  const fs::path net = fs::canonical(prefix) / "share" / "xqzero" / "nets" / nn::kBundledNetFile;
  ASSERT_TRUE(fs::is_regular_file(net)) << read_text(log);
  ASSERT_FALSE(fs::exists(prefix / "bin" / "nets")) << "nothing beside the installed binary";
  const std::string play = "printf 'uci\\nisready\\nposition startpos\\ngo nodes 8\\nquit\\n' | '" +
                           (prefix / "bin" / "xqzero").string() + "' uci > '" + out + "' 2>&1";
  ASSERT_EQ(std::system(play.c_str()), 0) << read_text(out);
  const std::string lines = read_text(out);
  EXPECT_NE(lines.find("info string net: " + net.string() + " ("), std::string::npos) << lines;
  EXPECT_NE(lines.find("\nbestmove "), std::string::npos) << lines;
  EXPECT_EQ(lines.find("bestmove (none)"), std::string::npos) << lines;
  std::error_code ec;
  fs::remove_all(prefix, ec);
  for (const std::string& f : {log, out}) std::remove(f.c_str());
}

// The built binary, as a GUI starts it: no options, and every isready names the bundled net
// (a GUI that sends its first isready late, or several, sees it each time; an isready during
// a search answers readyok alone, so both come before the go here).
TEST(BundledNet, BuiltBinaryNamesTheNetAtEveryIsready) {
  const std::string out = temp_path("isready.txt");
  const std::string play = std::string("printf 'uci\\nisready\\nisready\\nposition startpos\\ngo nodes 8\\nquit\\n' | '") +
                           XQZERO_BINARY + "' uci > '" + out + "' 2>&1";
  ASSERT_EQ(std::system(play.c_str()), 0) << read_text(out);
  const std::string text = read_text(out);
  std::remove(out.c_str());
  std::vector<std::string> named;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("info string net: ", 0) == 0) named.push_back(line);
  ASSERT_EQ(named.size(), 2u) << text;
  for (const auto& line : named) {
    EXPECT_NE(line.find(std::string("/") + nn::kBundledNetFile + " ("), std::string::npos) << line;
    EXPECT_NE(line.find("3x32"), std::string::npos) << line;
  }
  EXPECT_EQ(text.find("bestmove (none)"), std::string::npos) << text;
}

// A named file that cannot be loaded: every go says so and, with no net loaded before,
// refuses with bestmove (none); nothing is searched with uniform priors.
TEST(BundledNet, UnloadableWeightsWithoutAPreviousNetRefuse) {
  const auto lines = session(
      "setoption name WeightsFile value /nonexistent/net.xqz\nisready\nposition startpos\ngo nodes 10\ngo nodes 10\n",
      xqzero::Config());
  const auto errors = with_prefix(lines, "info string cannot load WeightsFile '/nonexistent/net.xqz': ");
  ASSERT_EQ(errors.size(), 3u) << "at isready and at each go";
  // The reason follows the file's name: the loader's message, then what the engine does.
  const std::string prefix = "info string cannot load WeightsFile '/nonexistent/net.xqz': ";
  const std::string tail = "; no net to play with";
  ASSERT_GT(errors[0].size(), prefix.size() + tail.size()) << errors[0];
  EXPECT_EQ(errors[0].substr(errors[0].size() - tail.size()), tail) << errors[0];
  EXPECT_NE(errors[0].substr(prefix.size(), errors[0].size() - prefix.size() - tail.size()).find_first_not_of(' '),
            std::string::npos) << "a reason is given: " << errors[0];
  EXPECT_EQ(with_prefix(lines, "bestmove (none)").size(), 2u);
  EXPECT_EQ(with_prefix(lines, "info depth").size(), 0u) << "no search without a net";
  EXPECT_EQ(with_prefix(lines, "info string net:").size(), 0u);
}

// After a good net, an unloadable one leaves the good one playing, and every go says so.
TEST(BundledNet, UnloadableWeightsKeepThePreviousNet) {
  nn::Network net = nn::make_network(::xq::test::tiny_net_config(), 7);
  const std::string path = temp_path("tiny.xqz");
  nn::save_checkpoint(path, net, 3, "bundled net test");
  const auto lines = session("setoption name WeightsFile value " + path +
                             "\nisready\nsetoption name WeightsFile value /nonexistent/b.xqz\nposition startpos\n"
                             "go nodes 16\ngo nodes 16\n");
  std::remove(path.c_str());
  EXPECT_EQ(with_prefix(lines, "info string net: " + path).size(), 1u);
  const auto errors = with_prefix(lines, "info string cannot load WeightsFile '/nonexistent/b.xqz'");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("; keeping " + path), std::string::npos) << errors[0];
  const auto moves = with_prefix(lines, "bestmove ");
  ASSERT_EQ(moves.size(), 2u);
  for (const auto& m : moves) EXPECT_NE(m, "bestmove (none)");
}

// analyse and evalset: a model that cannot be loaded is a one-line error, not uniform priors.
TEST(BundledNet, OtherCommandsFailOnAnUnloadableModel) {
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"evalset", XQZERO_SOURCE_DIR "/docs/evalset-fsf.tsv", "--model", "/nonexistent/c.xqz"},
        std::vector<std::string>{"match", "--a", "/nonexistent/c.xqz", "--b", "random"}}) {
    const test::CliResult r = run(argv);
    EXPECT_NE(r.status, 0) << argv[0];
    EXPECT_NE(r.err.find("/nonexistent/c.xqz"), std::string::npos) << argv[0] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace xq::app
