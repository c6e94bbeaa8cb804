// The analysis engine as KataGo's analysis clients expect it (docs/analysis.md): warnings
// for unknown fields, the actions (query_version, clear_cache, terminate_all, terminate
// with plies), priorities, maxTime, overrideSettings, and the response fields lcb,
// playSelectionValue, rawValue, thisHash and currentPlayer.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "app/analyse/analysis_engine.h"
#include "app/analyse/query.h"
#include "core/game.h"
#include "nn/batching_evaluator.h"
#include "nn/eval_cache.h"
#include "tests/app/analyse_session.h"

namespace xq::app::analyse {
namespace {

using nlohmann::json;
using session::ConstantEvaluator;
using session::Session;
using session::SlowEvaluator;

std::map<std::string, json> by_id(const std::vector<json>& lines) {
  std::map<std::string, json> m;
  for (const json& r : lines)
    if (r.contains("bestMove") || r.contains("error")) m[r["id"].get<std::string>()] = r;
  return m;
}

TEST(AnalyseProtocol, UnknownFieldsAreWarnedAboutAndTheLineIsCarriedOut) {
  Session s(1);
  s.engine->handle(R"({"id":"w","maxVisits":8,"foo":1,"analyzeTurns":[0]})");
  auto v = s.lines();
  ASSERT_EQ(v.size(), 3u) << s.out.str();
  EXPECT_EQ(v[0], json::parse(R"({"id":"w","warning":"unknown field, ignored","field":"foo"})"));
  EXPECT_EQ(v[1]["field"], "analyzeTurns");
  EXPECT_NE(v[1]["warning"].get<std::string>().find("analyzePlies"), std::string::npos) << v[1].dump();
  EXPECT_EQ(v[2]["id"], "w");
  EXPECT_TRUE(v[2].contains("bestMove")) << "the query ran";

  // Actions too; a wrong type is still an error, answered alone.
  s.out.str("");
  s.engine->handle(R"({"id":"v","action":"query_version","verbose":true})");
  s.engine->handle(R"({"id":"x","maxVisits":"many","foo":1})");
  v = s.lines();
  ASSERT_EQ(v.size(), 3u) << s.out.str();
  EXPECT_EQ(v[0]["field"], "verbose");
  EXPECT_EQ(v[1]["action"], "query_version");
  EXPECT_EQ(v[2]["field"], "maxVisits");
  EXPECT_TRUE(v[2].contains("error"));
}

TEST(AnalyseProtocol, QueryVersionAnswersTheProjectVersion) {
  std::ifstream cmake(std::string(XQZERO_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << cmake.rdbuf();
  std::smatch m;
  const std::string content = text.str();
  ASSERT_TRUE(std::regex_search(content, m, std::regex(R"(project\(xqzero VERSION ([0-9.]+))")));
  Session s;
  s.engine->handle(R"({"id":"v","action":"query_version"})");
  const json r = s.only_line();
  EXPECT_EQ(r["id"], "v");
  EXPECT_EQ(r["action"], "query_version");
  EXPECT_EQ(r["version"], m[1].str());
  if (r.contains("gitHash")) {
    EXPECT_FALSE(r["gitHash"].get<std::string>().empty());
  }
}

TEST(AnalyseProtocol, ClearCacheEmptiesTheEvaluatorsCache) {
  const auto inner = std::make_shared<nn::TestEvaluator>(7);
  const auto cache = std::make_shared<nn::CachingEvaluator>(inner, 1 << 12);
  Session s(1, cache);
  // One visit per position: each search evaluates its root, and nothing else.
  const std::string query = R"({"id":"c","moves":["h2e2","h9g7"],"analyzePlies":[0,1,2],"maxVisits":1})";
  s.engine->handle(query);
  s.lines();
  EXPECT_EQ(inner->positions(), 3u);
  s.engine->handle(query);
  s.lines();
  EXPECT_EQ(inner->positions(), 3u) << "the second time, every root is a cache hit";
  s.out.str("");
  s.engine->handle(R"({"id":"cc","action":"clear_cache"})");
  EXPECT_EQ(s.only_line(), json::parse(R"({"id":"cc","action":"clear_cache"})"));
  EXPECT_EQ(cache->cache().size(), 0u);
  s.engine->handle(query);
  s.lines();
  EXPECT_EQ(inner->positions(), 6u) << "after clear_cache the roots are evaluated again";
}

TEST(AnalyseProtocol, ClearCacheReachesACacheBehindABatchingWrapper) {
  const auto inner = std::make_shared<nn::TestEvaluator>();
  nn::BatchingEvaluator::Options o;
  o.max_batch = 4;
  o.deadline_us = 0;
  nn::BatchingEvaluator batching(std::make_shared<nn::CachingEvaluator>(inner, 1024), o);
  const nn::EvalInput in = nn::make_eval_input(Position());
  nn::EvalResult r;
  batching.evaluate_one(in.request(), r);
  batching.evaluate_one(in.request(), r);
  EXPECT_EQ(inner->positions(), 1u);
  static_cast<nn::Evaluator&>(batching).clear_cache();
  batching.evaluate_one(in.request(), r);
  EXPECT_EQ(inner->positions(), 2u);
  nn::UniformEvaluator().clear_cache();  // no cache: nothing to do
}

TEST(AnalyseProtocol, TerminateAllStopsEveryQueryReadSoFar) {
  Session s(1, std::make_shared<SlowEvaluator>(2000));
  s.engine->handle(R"({"id":"a","moves":["h2e2"],"analyzePlies":[0,1],"maxVisits":1000000})");
  s.engine->handle(R"({"id":"b","moves":["h2e2"],"analyzePlies":[0,1],"maxVisits":1000000})");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // The plies restrict it (KataGo's turnNumbers): first the queued ply 1 of both queries.
  s.engine->handle(R"({"id":"t1","action":"terminate_all","plies":[1]})");
  s.engine->handle(R"({"id":"t2","action":"terminate_all"})");
  auto v = s.lines();
  ASSERT_EQ(v.size(), 6u) << s.out.str();
  int responses = 0;
  for (const json& r : v) {
    if (r.contains("action")) {
      EXPECT_EQ(r["action"], "terminate_all");
      EXPECT_FALSE(r.contains("terminateId"));
      if (r["id"] == "t1") {
        EXPECT_EQ(r["plies"], json::parse("[1]"));
      } else {
        EXPECT_FALSE(r.contains("plies"));
      }
      EXPECT_EQ(r["positions"], 2) << r.dump();
      continue;
    }
    ++responses;
    EXPECT_EQ(r["terminated"], true) << r.dump();
  }
  EXPECT_EQ(responses, 4);
  // A query read after it runs as usual.
  s.out.str("");
  s.engine->handle(R"({"id":"after","maxVisits":8})");
  const json r = s.only_line();
  EXPECT_FALSE(r.contains("terminated"));
  EXPECT_TRUE(r.contains("bestMove"));
}

TEST(AnalyseProtocol, TerminateWithPliesStopsOnlyThosePositions) {
  Session s(1, std::make_shared<SlowEvaluator>(1000));
  s.engine->handle(R"({"id":"g","moves":["h2e2","h9g7"],"analyzePlies":[0,1,2],"maxVisits":100})");
  s.engine->handle(R"({"id":"t","action":"terminate","terminateId":"g","plies":[2,7]})");
  const auto v = s.lines();
  ASSERT_EQ(v.size(), 4u) << s.out.str();
  std::map<int, json> plies;
  for (const json& r : v) {
    if (r.contains("action")) {
      EXPECT_EQ(r, json::parse(R"({"id":"t","action":"terminate","terminateId":"g","plies":[2,7],"positions":1})"));
      continue;
    }
    plies[r["ply"].get<int>()] = r;
  }
  ASSERT_EQ(plies.size(), 3u);
  for (int ply : {0, 1}) {
    EXPECT_FALSE(plies[ply].contains("terminated")) << plies[ply].dump();
    EXPECT_GE(plies[ply]["rootInfo"]["visits"].get<int>(), 100);
  }
  EXPECT_EQ(plies[2]["terminated"], true);
  EXPECT_FALSE(plies[2].contains("rootInfo")) << "stopped while queued: nothing searched";
}

TEST(AnalyseProtocol, AHigherPriorityQueryOvertakesQueuedPositions) {
  Session s(1, std::make_shared<SlowEvaluator>(1000));
  s.engine->handle(R"({"id":"bulk","moves":["h2e2","h9g7","h0g2","g9e7"],"analyzePlies":[0,1,2,3,4],"maxVisits":40})");
  s.engine->handle(R"({"id":"low","maxVisits":8,"priority":-1})");
  s.engine->handle(R"({"id":"urgent","maxVisits":8,"priority":5})");
  const auto v = s.lines();
  ASSERT_EQ(v.size(), 7u) << s.out.str();
  std::vector<std::string> order;
  std::vector<int> bulk_plies;
  for (const json& r : v) {
    order.push_back(r["id"].get<std::string>());
    if (r["id"] == "bulk") bulk_plies.push_back(r["ply"].get<int>());
  }
  const size_t urgent = size_t(std::find(order.begin(), order.end(), "urgent") - order.begin());
  EXPECT_LE(urgent, 1u) << s.out.str() << "only a position already being searched comes before it";
  EXPECT_EQ(order.back(), "low") << s.out.str();
  EXPECT_EQ(bulk_plies, (std::vector<int>{0, 1, 2, 3, 4})) << "first come, first served within a priority";
}

TEST(AnalyseProtocol, MaxTimeEndsASearchBeforeItsVisits) {
  Session s(1, std::make_shared<SlowEvaluator>(2000));
  const auto start = std::chrono::steady_clock::now();
  s.engine->handle(R"({"id":"t","maxVisits":1000000,"maxTime":0.2})");
  const json r = s.only_line();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
  EXPECT_GE(seconds, 0.2);
  EXPECT_EQ(r["isDuringSearch"], false);
  EXPECT_FALSE(r.contains("terminated")) << "running out of time is a normal end";
  ASSERT_TRUE(r.contains("rootInfo")) << r.dump();
  EXPECT_GT(r["rootInfo"]["visits"].get<int>(), 1);
  EXPECT_LT(r["rootInfo"]["visits"].get<int>(), 1000000);
  EXPECT_TRUE(r.contains("bestMove"));
}

TEST(AnalyseProtocol, OverrideSettingsChangeTheSearch) {
  EXPECT_EQ(
      override_setting_names(),
      (std::vector<std::string>{"algorithm", "c_puct_init", "c_puct_base", "fpu_reduction", "fpu_reduction_root",
                                "gumbel_m", "gumbel_c_visit", "gumbel_c_scale", "max_collisions", "immediate_wins",
                                "gumbel_max_visits"}));
  Session s;
  s.engine->handle(R"({"id":"base","maxVisits":64})");
  s.engine->handle(R"({"id":"g2","maxVisits":64,"overrideSettings":{"algorithm":"gumbel","gumbel_m":2}})");
  s.engine->handle(
      R"({"id":"g2long","maxVisits":64,"overrideSettings":{"algorithm":"gumbel","gumbel_m":2,"gumbel_max_visits":32}})");
  s.engine->handle(
      R"({"id":"all","maxVisits":16,"overrideSettings":{"algorithm":"puct","c_puct_init":2,"c_puct_base":1000,)"
      R"("fpu_reduction":0.5,"fpu_reduction_root":0.1,"gumbel_m":4,"gumbel_c_visit":30,"gumbel_c_scale":0.5,)"
      R"("max_collisions":4,"immediate_wins":false,"gumbel_max_visits":8}})");
  auto r = by_id(s.lines());
  ASSERT_EQ(r.size(), 4u) << s.out.str();
  EXPECT_GT(r["base"]["moveInfos"].size(), 2u);
  EXPECT_EQ(r["g2"]["moveInfos"].size(), 2u) << "Gumbel with 2 candidates visits 2 moves";
  // Above its gumbel_max_visits a Gumbel query is searched, and reported, as PUCT: the moves
  // of the base query, each compared by its visits.
  EXPECT_EQ(r["g2long"]["moveInfos"], r["base"]["moveInfos"]) << s.out.str();
  for (const json& m : r["g2long"]["moveInfos"]) EXPECT_EQ(m["playSelectionValue"], m["visits"]) << m.dump();
  EXPECT_TRUE(r["all"].contains("bestMove")) << r["all"].dump();
}

TEST(AnalyseProtocol, BadOverridesAndLimitsAreErrorsNamingTheField) {
  Session s;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"id":"e1","overrideSettings":{"cpuct":2,"c_puct_init":1,"bogus":true}})", "overrideSettings"},
      {R"({"id":"e2","overrideSettings":{"c_puct_init":20}})", "overrideSettings.c_puct_init"},
      {R"({"id":"e3","overrideSettings":{"gumbel_m":2.5}})", "overrideSettings.gumbel_m"},
      {R"({"id":"e4","overrideSettings":{"algorithm":"minimax"}})", "overrideSettings.algorithm"},
      {R"({"id":"e5","overrideSettings":{"immediate_wins":1}})", "overrideSettings.immediate_wins"},
      {R"({"id":"e5b","overrideSettings":{"gumbel_max_visits":-1}})", "overrideSettings.gumbel_max_visits"},
      {R"({"id":"e6","overrideSettings":[1]})", "overrideSettings"},
      {R"({"id":"e7","maxTime":0})", "maxTime"},
      {R"({"id":"e8","maxTime":"1s"})", "maxTime"},
      {R"({"id":"e9","priority":1.5})", "priority"},
      {R"({"id":"e10","action":"terminate","terminateId":"x","plies":[]})", "plies"},
      {R"({"id":"e11","action":"terminate_all","plies":[-1]})", "plies"},
  };
  for (const auto& [line, field] : bad) s.engine->handle(line);
  const auto v = s.lines();
  ASSERT_EQ(v.size(), bad.size()) << s.out.str();
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(v[i]["field"], bad[i].second) << v[i].dump();
    EXPECT_TRUE(v[i].contains("error")) << v[i].dump();
  }
  const std::string unknown = v[0]["error"].get<std::string>();
  EXPECT_NE(unknown.find("unknown setting(s): cpuct, bogus"), std::string::npos) << unknown;
  EXPECT_NE(v[1]["error"].get<std::string>().find("0..10"), std::string::npos) << v[1].dump();
}

std::string hash_of(const Position& pos) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llX", static_cast<unsigned long long>(pos.key()));
  return hash;
}

TEST(AnalyseProtocol, ResponsesCarryLcbSelectionValueRawValueHashAndPlayer) {
  Session s(2, std::make_shared<ConstantEvaluator>(std::array<float, 3>{0.6f, 0.1f, 0.3f}));
  s.engine->handle(R"({"id":"f","moves":["h2e2"],"analyzePlies":[0,1],"maxVisits":64})");
  Game game;
  std::map<int, json> plies;
  for (const json& r : s.lines()) plies[r["ply"].get<int>()] = r;
  ASSERT_EQ(plies.size(), 2u);
  for (int ply : {0, 1}) {
    const json& r = plies[ply];
    const json& root = r["rootInfo"];
    EXPECT_EQ(root["currentPlayer"], ply == 0 ? "red" : "black");
    EXPECT_EQ(root["thisHash"], hash_of(game.position())) << ply;
    EXPECT_NEAR(root["rawValue"].get<double>(), 0.3, 1e-4) << "the network's value of the root";
    EXPECT_LT(root["value"].get<double>(), 0.3) << "the searched value differs: every reply is worth 0.3 too";
    uint32_t most = 0;
    for (const json& m : r["moveInfos"]) {
      const uint32_t n = m["visits"].get<uint32_t>();
      most = std::max(most, n);
      EXPECT_EQ(m["playSelectionValue"].get<uint32_t>(), n) << "PUCT plays the most visited move";
      const double q = m["value"].get<double>(), d = m["wdl"][1].get<double>() / 1000;
      const double expected = std::max(-1.0, q - 1.96 * std::sqrt(std::max(0.0, 1 - d - q * q) / double(n)));
      EXPECT_NEAR(m["lcb"].get<double>(), expected, 0.01) << m.dump();
      EXPECT_LE(m["lcb"].get<double>(), q);
    }
    EXPECT_EQ(r["moveInfos"][0]["visits"].get<uint32_t>(), most);
    if (ply == 0) game.play(std::string("h2e2"));
  }
  EXPECT_NE(plies[0]["rootInfo"]["thisHash"], plies[1]["rootInfo"]["thisHash"]);

  // Gumbel: the improved-policy weights; a proven move's bound is its proven value.
  s.out.str("");
  s.engine->handle(R"({"id":"g","algorithm":"gumbel","maxVisits":32})");
  s.engine->handle(R"({"id":"m","fen":"3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w","maxVisits":50})");
  auto r = by_id(s.lines());
  double sum = 0;
  for (const json& m : r["g"]["moveInfos"]) {
    const double p = m["playSelectionValue"].get<double>();
    EXPECT_GE(p, 0.0);
    EXPECT_LE(p, 1.0);
    sum += p;
  }
  EXPECT_LE(sum, 1.0 + 1e-4);
  EXPECT_EQ(r["m"]["moveInfos"][0]["proven"], "win");
  EXPECT_EQ(r["m"]["moveInfos"][0]["lcb"], 1.0);
}

}  // namespace
}  // namespace xq::app::analyse
