// The JSON analysis engine (app/analyse/) with torch-free evaluators: responses, errors that
// name their field, analysed plies, root restriction, terminate, quit, intermediate reports.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "app/analyse/analysis_engine.h"
#include "core/game.h"
#include "core/movegen.h"
#include "tests/app/analyse_session.h"

namespace xq::app::analyse {
namespace {

using nlohmann::json;

using session::Session;
using session::SlowEvaluator;

const char* kMateInOne = "3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w";  // h6d6 mates

TEST(Analyse, FindsAndReportsAMateInOne) {
  Session s;
  s.engine->handle(json{{"id", "m"}, {"fen", kMateInOne}, {"maxVisits", 50}}.dump());
  const json r = s.only_line();
  EXPECT_EQ(r["id"], "m");
  EXPECT_EQ(r["ply"], 0);
  EXPECT_EQ(r["isDuringSearch"], false);
  EXPECT_EQ(r["bestMove"], "h6d6");
  EXPECT_EQ(r["rootInfo"]["proven"], "win");
  EXPECT_EQ(r["rootInfo"]["mate"], 1);
  ASSERT_FALSE(r["moveInfos"].empty());
  const json& best = r["moveInfos"][0];
  EXPECT_EQ(best["move"], "h6d6");
  EXPECT_EQ(best["order"], 0);
  EXPECT_EQ(best["mate"], 1);
  EXPECT_FALSE(best["wxf"].get<std::string>().empty());
  EXPECT_EQ(best["pv"][0], "h6d6");
}

TEST(Analyse, AnswersEveryAnalysedPlyOfAMoveList) {
  Session s(3);
  s.engine->handle(R"({"id":"g","moves":["h2e2","h9g7","h0g2"],"analyzePlies":[3,0,1],"maxVisits":32})");
  const auto v = s.lines();
  ASSERT_EQ(v.size(), 3u) << s.out.str();
  std::map<int, json> by_ply;
  for (const json& r : v) {
    EXPECT_EQ(r["id"], "g");
    by_ply[r["ply"].get<int>()] = r;
  }
  ASSERT_EQ(by_ply.size(), 3u);
  Game game;
  const char* moves[] = {"h2e2", "h9g7", "h0g2"};
  for (int ply = 0; ply <= 3; ++ply) {
    if (by_ply.count(ply)) {
      const json& r = by_ply[ply];
      EXPECT_EQ(r["fen"], game.position().fen()) << ply;
      EXPECT_GE(r["rootInfo"]["visits"].get<int>(), 32) << ply;
      int visits = 0;
      for (const json& m : r["moveInfos"]) visits += m["visits"].get<int>();
      EXPECT_EQ(visits + 1, r["rootInfo"]["visits"].get<int>()) << "root visits = its evaluation + its children's";
    }
    if (ply < 3) game.play(std::string(moves[ply]));
  }
  EXPECT_EQ(by_ply.count(2), 0u);
}

TEST(Analyse, BadLinesAreAnsweredWithTheFieldAndTheEngineGoesOn) {
  Session s;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"id":"a","fen":"rnbakabnr/9/1c5c1 w"})", "fen"},
      {R"({"id":"b","moves":["h2e2","a0a5"]})", "moves[1]"},
      {R"({"id":"c","maxVisits":0})", "maxVisits"},
      {R"({"id":"d","maxVisits":"many"})", "maxVisits"},
      {R"({"id":"e","priority":"high"})", "priority"},
      {R"({"id":"f","analyzePlies":[2]})", "analyzePlies"},
      {R"({"id":"g","searchMoves":["a0a5"]})", "searchMoves[0]"},
      {R"({"id":"h","algorithm":"minimax"})", "algorithm"},
      {R"({"fen":"3k5/9/9/9/9/9/9/9/9/4K4 w"})", "id"},
      {R"({"id":7})", "id"},
      {R"({"id":"i","action":"pause"})", "action"},
  };
  for (const auto& [line, field] : bad) s.engine->handle(line);
  s.engine->handle("{not json");
  s.engine->handle(R"(["id","x"])");
  s.engine->handle(R"({"id":"ok","maxVisits":8})");
  const auto v = s.lines();
  ASSERT_EQ(v.size(), bad.size() + 3) << s.out.str();
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(v[i]["field"], bad[i].second) << v[i].dump();
    EXPECT_TRUE(v[i].contains("error")) << v[i].dump();
    EXPECT_FALSE(v[i]["error"].get<std::string>().empty());
  }
  EXPECT_EQ(v[0]["id"], "a");
  EXPECT_NE(v[1]["error"].get<std::string>().find("a0a5"), std::string::npos) << v[1].dump();
  EXPECT_TRUE(v[bad.size()]["id"].is_null());
  EXPECT_NE(v[bad.size()]["error"].get<std::string>().find("malformed JSON"), std::string::npos);
  EXPECT_TRUE(v[bad.size() + 1].contains("error"));
  EXPECT_EQ(v.back()["id"], "ok");
  EXPECT_TRUE(v.back().contains("bestMove")) << "the engine goes on after bad lines";
}

TEST(Analyse, SearchMovesRestrictTheRoot) {
  for (const char* algorithm : {"puct", "gumbel"}) {
    Session s;
    s.engine->handle(
        json{{"id", "r"}, {"searchMoves", {"h2e2", "b0c2"}}, {"algorithm", algorithm}, {"maxVisits", 100}}.dump());
    const json r = s.only_line();
    const std::set<std::string> allowed = {"h2e2", "b0c2"};
    EXPECT_TRUE(allowed.count(r["bestMove"].get<std::string>())) << r.dump();
    ASSERT_FALSE(r["moveInfos"].empty());
    int visits = 0;
    for (const json& m : r["moveInfos"]) {
      EXPECT_TRUE(allowed.count(m["move"].get<std::string>())) << algorithm << " " << m.dump();
      visits += m["visits"].get<int>();
    }
    EXPECT_GE(r["rootInfo"]["visits"].get<int>(), 100) << algorithm;
    EXPECT_EQ(visits + 1, r["rootInfo"]["visits"].get<int>()) << algorithm << ": every visit went to a listed move";
  }
}

TEST(Analyse, PolicyCoversTheLegalMoves) {
  Session s;
  s.engine->handle(R"({"id":"p","includePolicy":true,"maxVisits":4,"multiPV":2})");
  const json r = s.only_line();
  ASSERT_TRUE(r.contains("policy"));
  EXPECT_EQ(r["policy"].size(), size_t(MoveList(Position()).size()));
  double sum = 0;
  for (const auto& [move, p] : r["policy"].items()) sum += p.get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-3);
  EXPECT_LE(r["moveInfos"].size(), 2u);
}

TEST(Analyse, AFinishedGameIsReportedNotSearched) {
  Session s;
  s.engine->handle(R"({"id":"over","fen":"1R1k5/R8/9/9/9/9/9/9/9/4K4 b"})");
  const json r = s.only_line();
  EXPECT_EQ(r["gameOver"]["termination"], "checkmate");
  EXPECT_EQ(r["gameOver"]["result"], "1-0");
  EXPECT_FALSE(r.contains("moveInfos"));
}

TEST(Analyse, TerminateStopsRunningAndQueuedPositions) {
  Session s(1, std::make_shared<SlowEvaluator>(2000));
  s.engine->handle(R"({"id":"long","moves":["h2e2","h9g7"],"analyzePlies":[0,1,2],"maxVisits":1000000})");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  s.engine->handle(R"({"id":"t1","action":"terminate","terminateId":"long"})");
  const auto v = s.lines();
  ASSERT_EQ(v.size(), 4u) << s.out.str();
  int terminated = 0, acks = 0;
  for (const json& r : v) {
    if (r.contains("action")) {
      ++acks;
      EXPECT_EQ(r["id"], "t1");
      EXPECT_EQ(r["terminateId"], "long");
      EXPECT_EQ(r["positions"], 3);
      continue;
    }
    EXPECT_EQ(r["id"], "long");
    EXPECT_EQ(r["terminated"], true) << r.dump();
    ++terminated;
    if (r.contains("rootInfo")) {
      EXPECT_LT(r["rootInfo"]["visits"].get<int>(), 1000000);
      EXPECT_TRUE(r.contains("bestMove"));
    }
  }
  EXPECT_EQ(acks, 1);
  EXPECT_EQ(terminated, 3);
}

TEST(Analyse, QuitEndsInputAfterAnsweringWhatWasRead) {
  Session s;
  std::istringstream in(
      "{\"id\":\"first\",\"maxVisits\":16}\n"
      "\n"
      "quit\n"
      "{\"id\":\"after\",\"maxVisits\":16}\n");
  EXPECT_EQ(s.engine->run(in), 0);
  const json r = s.only_line();
  EXPECT_EQ(r["id"], "first");
}

TEST(Analyse, ReportsDuringALongSearch) {
  Session s(1, std::make_shared<SlowEvaluator>(1000));
  s.engine->handle(R"({"id":"slow","maxVisits":300,"reportDuringSearchEvery":0.01})");
  const auto v = s.lines();
  ASSERT_GE(v.size(), 2u) << s.out.str();
  for (size_t i = 0; i + 1 < v.size(); ++i) EXPECT_EQ(v[i]["isDuringSearch"], true);
  EXPECT_EQ(v.back()["isDuringSearch"], false);
  EXPECT_LT(v.front()["rootInfo"]["visits"].get<int>(), v.back()["rootInfo"]["visits"].get<int>());
}

TEST(Analyse, ManyQueriesAllAnswered) {
  Session s(4);
  for (int i = 0; i < 20; ++i) s.engine->handle(json{{"id", std::to_string(i)}, {"maxVisits", 20 + i}}.dump());
  std::set<std::string> ids;
  for (const json& r : s.lines()) ids.insert(r["id"].get<std::string>());
  EXPECT_EQ(ids.size(), 20u);
}

// A search whose tree reaches its share of the engine's tree memory stops there and answers
// with what it has, marked; a small search beside it is not marked. (Without the bound the
// first query would search its million visits.)
TEST(Analyse, ATreeAtItsMemoryShareAnswersWithWhatItHasMarked) {
  AnalysisEngine::Options o;
  o.threads = 2;
  o.leaves_per_round = 4;
  o.max_tree_bytes = size_t(2) << 20;  // 1 MiB per search, the floor of a share
  QueryDefaults d;
  d.max_visits = 64;
  std::ostringstream out;
  {
    AnalysisEngine engine(std::make_shared<nn::UniformEvaluator>(), d, o, out);
    engine.handle(json{{"id", "big"}, {"maxVisits", 1000000}}.dump());
    engine.handle(json{{"id", "small"}, {"maxVisits", 50}}.dump());
    engine.wait_idle();
  }
  std::map<std::string, json> by_id;
  std::istringstream is(out.str());
  for (std::string line; std::getline(is, line);) {
    const json r = json::parse(line);
    by_id[r["id"].get<std::string>()] = r;
  }
  ASSERT_EQ(by_id.size(), 2u) << out.str();
  const json& big = by_id["big"];
  EXPECT_EQ(big.value("memoryLimited", false), true) << big.dump();
  EXPECT_FALSE(big.contains("terminated"));
  EXPECT_GT(big["rootInfo"]["visits"].get<int>(), 100);
  EXPECT_LT(big["rootInfo"]["visits"].get<int>(), 1000000);
  EXPECT_FALSE(big["bestMove"].get<std::string>().empty());
  const json& small = by_id["small"];
  EXPECT_FALSE(small.contains("memoryLimited")) << small.dump();
  EXPECT_GE(small["rootInfo"]["visits"].get<int>(), 50);
}

}  // namespace
}  // namespace xq::app::analyse
