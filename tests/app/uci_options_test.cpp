// UCI options with more behind them than a value (app/uci/uci_options.h): Hash shared by the
// trees and the evaluator's cache, Clear Hash, and Device values checked when they are set.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "app/uci/uci_engine.h"
#include "nn/checkpoint.h"
#include "nn/eval_cache.h"
#include "nn/network.h"
#include "tests/support/tiny_net.h"
#include "tests/support/uci_session.h"

namespace xq::app::uci {
namespace {

using namespace fixtures;

int hashfull_of(const std::vector<std::string>& lines) {
  const auto infos = with_prefix(lines, "info depth");
  EXPECT_FALSE(infos.empty());
  return infos.empty() ? -1 : std::stoi(field(infos.back(), "hashfull"));
}

// With uniform priors there is no cache and the search repeats exactly: a kept tree grows
// hashfull, and after Clear Hash the same search reports what the first one did.
TEST(UciOptions, ClearHashForgetsTheKeptTrees) {
  EXPECT_EQ(with_prefix(session("uci\n"), "option name Clear Hash type button").size(), 1u);
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  engine.command("setoption name Hash value 1");
  engine.command("position startpos");
  const int first = hashfull_of(reply(engine, out, "go nodes 300"));
  const int kept = hashfull_of(reply(engine, out, "go nodes 300"));  // the same position: the tree is kept
  EXPECT_GT(kept, first);
  EXPECT_TRUE(reply(engine, out, "setoption name Clear Hash").empty());
  EXPECT_EQ(hashfull_of(reply(engine, out, "go nodes 300")), first);
}

std::string tiny_checkpoint() {
  nn::Network net = nn::make_network(::xq::test::tiny_net_config(), 7);
  const std::string path = testing::TempDir() + "uci_options_" + std::to_string(::getpid()) + ".ckpt";
  nn::save_checkpoint(path, net, 3, "uci options test");
  return path;
}

// Hash covers the evaluator's cache (at most a quarter of it) as well as the trees; Clear
// Hash empties the cache.
TEST(UciOptions, HashCoversTheEvaluatorCacheAndClearHashEmptiesIt) {
  const std::string path = tiny_checkpoint();
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  EXPECT_EQ(engine.hash_split().cache_entries, 0) << "uniform priors: no cache, all of Hash for the trees";
  EXPECT_EQ(engine.hash_split().tree_bytes, size_t(16) << 20);
  for (const std::string& cmd :
       {"setoption name WeightsFile value " + path, std::string("setoption name Device value cpu"),
        std::string("setoption name EvalThreads value 1"), std::string("setoption name Hash value 4"),
        std::string("position startpos")})
    engine.command(cmd);
  const auto searched = reply(engine, out, "go nodes 100");
  std::remove(path.c_str());
  ASSERT_TRUE(with_prefix(searched, "info string cannot load").empty());
  const auto* caching = dynamic_cast<const nn::CachingEvaluator*>(engine.evaluator());
  ASSERT_NE(caching, nullptr) << engine.evaluator()->describe();
  nn::EvalCache& cache = const_cast<nn::CachingEvaluator*>(caching)->cache();
  const HashSplit split = engine.hash_split();
  EXPECT_GT(cache.memory_bytes(), 0u);
  EXPECT_LE(cache.memory_bytes(), size_t(1) << 20) << "a quarter of Hash 4 at most";
  EXPECT_LE(size_t(split.cache_entries), (size_t(1) << 20) / nn::EvalCache::kBytesPerEntry);
  EXPECT_LE(split.tree_bytes + cache.memory_bytes(), size_t(4) << 20);
  EXPECT_GT(cache.size(), 0u);
  EXPECT_GE(hashfull_of(searched), 0);
  EXPECT_TRUE(reply(engine, out, "setoption name Clear Hash").empty());
  EXPECT_EQ(cache.size(), 0u);
  // A large Hash leaves the cache at CacheSize entries.
  engine.command("setoption name Hash value 4096");
  EXPECT_EQ(engine.hash_split().cache_entries, xqzero::EvaluatorConfig().cache_entries());
}

// Device is checked when it is set: an unknown value is refused naming it and the forms
// allowed, and the previous device stays.
TEST(UciOptions, UnknownDeviceIsRefused) {
  std::ostringstream out;
  UciEngine engine(out, uniform_config());
  auto lines = reply(engine, out, "setoption name Device value tpu");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("info string setoption: Device refused 'tpu': ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("cpu, cuda, cuda:N or auto"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("keeping 'auto'"), std::string::npos) << lines[0];
  EXPECT_TRUE(reply(engine, out, "setoption name Device value CPU").empty()) << "names are case-insensitive";
  lines = reply(engine, out, "setoption name Device value cuda:x");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("keeping 'cpu'"), std::string::npos) << lines[0];
  lines = reply(engine, out, "setoption name Device");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("info string setoption: Device refused '': ", 0), 0u) << lines[0];
  lines = reply(engine, out, "go nodes 5");
  EXPECT_EQ(with_prefix(lines, "bestmove").size(), 1u);
}

}  // namespace
}  // namespace xq::app::uci
