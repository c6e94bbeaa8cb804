// `xqzero serve`, the board's API: positions and legal moves from the rules core, moves played
// or refused, analyses started, polled, stopped and abandoned, the page's assets, and requests
// that are malformed or hostile (each a 4xx, after which the server goes on).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <vector>

#include "core/game.h"
#include "core/movegen.h"
#include "tests/app/serve/serve_fixture.h"

namespace xq::app::serve::testing {
namespace {

using BoardApi = ServeTest;

TEST_F(BoardApi, PositionListsTheCoresLegalMovesInThreeNotations) {
  auto [status, p] = get("/api/position?moves=h2e2,h9g7");
  ASSERT_EQ(status, 200) << p.dump();
  Game game;
  game.play(std::string("h2e2"));
  game.play(std::string("h9g7"));
  EXPECT_EQ(p["fen"], game.position().fen());
  EXPECT_EQ(p["sideToMove"], "red");
  EXPECT_EQ(p["result"], "*");
  EXPECT_EQ(p["ply"], 2);
  ASSERT_EQ(p["history"].size(), 2u);
  EXPECT_EQ(p["history"][0]["iccs"], "h2e2");
  EXPECT_EQ(p["history"][0]["wxf"], "C2.5");
  EXPECT_EQ(p["history"][0]["chinese"], "炮二平五");
  EXPECT_EQ(p["history"][1]["chinese"], "马8进7");
  std::set<std::string> legal;
  for (const json& m : p["legal"]) legal.insert(m["iccs"].get<std::string>());
  std::set<std::string> expected;
  for (Move m : MoveList(game.position())) expected.insert(move_to_iccs(m));
  EXPECT_EQ(legal, expected);
}

TEST_F(BoardApi, ABadFenOrAnIllegalMoveListIsRefusedNamingTheField) {
  auto [s1, e1] = get("/api/position?fen=rnbakabnr/9/1c5c1%20w");
  EXPECT_EQ(s1, 400);
  EXPECT_EQ(e1["field"], "fen");
  EXPECT_FALSE(e1["error"].get<std::string>().empty());
  auto [s2, e2] = get("/api/position?moves=h2e2,h2e2");
  EXPECT_EQ(s2, 400);
  EXPECT_EQ(e2["field"], "moves[1]");
  auto [s3, e3] = post("/api/position", R"({"fen":12})");
  EXPECT_EQ(s3, 400);
  EXPECT_EQ(e3["field"], "fen");
  auto [s4, e4] = post("/api/position", R"({"moves":"h2e2"})");
  EXPECT_EQ(s4, 400);
  EXPECT_EQ(e4["field"], "moves");
}

TEST_F(BoardApi, ALegalMoveIsPlayedAndAnIllegalOneRefused) {
  auto [s1, p] = post("/api/move", R"({"moves":["h2e2"],"move":"h9g7"})");
  ASSERT_EQ(s1, 200) << p.dump();
  EXPECT_EQ(p["ply"], 2);
  EXPECT_EQ(p["history"][1]["iccs"], "h9g7");
  auto [s2, e2] = post("/api/move", R"({"moves":["h2e2"],"move":"a0a5"})");
  EXPECT_EQ(s2, 400);
  EXPECT_EQ(e2["field"], "move");
  EXPECT_NE(e2["error"].get<std::string>().find("a0a5"), std::string::npos) << e2.dump();
  auto [s3, e3] = post("/api/move", R"({"move":"zz"})");
  EXPECT_EQ(s3, 400);
  EXPECT_EQ(e3["field"], "move");
  auto [s4, e4] = post("/api/move", R"({"moves":["h2e2"]})");
  EXPECT_EQ(s4, 400);
  EXPECT_EQ(e4["field"], "move");
  // After a mate there is no move to play.
  auto [s5, e5] = post("/api/move", R"({"fen":"3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w","moves":["h6d6"],"move":"d9e9"})");
  EXPECT_EQ(s5, 400);
  EXPECT_EQ(e5["field"], "move");
}

TEST_F(BoardApi, AnAnalysisReturnsMovesWithVisitsValuesPoliciesAndPvs) {
  auto [status, started] = post("/api/analyse", R"({"maxVisits":64,"multiPV":5,"includePolicy":true})");
  ASSERT_EQ(status, 200) << started.dump();
  const json done = wait_done(started["id"]);
  ASSERT_EQ(done["done"], true);
  const json& r = done["responses"]["0"];
  EXPECT_EQ(r["isDuringSearch"], false);
  EXPECT_GE(r["rootInfo"]["visits"].get<int>(), 64);
  ASSERT_FALSE(r["moveInfos"].empty());
  EXPECT_LE(r["moveInfos"].size(), 5u);
  const json& best = r["moveInfos"][0];
  EXPECT_EQ(best["move"], r["bestMove"]);
  EXPECT_EQ(best["pv"][0], best["move"]);
  EXPECT_EQ(best["wdl"].size(), 3u);
  EXPECT_EQ(r["policy"].size(), 44u);  // every legal move of the start position
}

TEST_F(BoardApi, AnAnalysisOfSeveralPliesAnswersEach) {
  auto [status, started] = post("/api/analyse", R"({"moves":["h2e2","h9g7"],"analyzePlies":[0,1,2],"maxVisits":16})");
  ASSERT_EQ(status, 200) << started.dump();
  const json done = wait_done(started["id"]);
  EXPECT_EQ(done["plies"], json::array({0, 1, 2}));
  for (const char* ply : {"0", "1", "2"}) EXPECT_EQ(done["responses"][ply]["ply"], std::stoi(ply)) << done.dump();
}

TEST_F(BoardApi, BadAnalysisRequestsAreRefusedNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"maxVisits":0})", "maxVisits"},
      {R"({"maxVisits":2000000})", "maxVisits"},  // above this server's limit
      {R"({"fen":"nonsense"})", "fen"},
      {R"({"moves":["h2e2","a0a5"]})", "moves[1]"},
      {R"({"analyzePlies":[5]})", "analyzePlies"},
      {R"({"overrideSettings":{}})", "overrideSettings"},  // not offered by the server
      {R"({"id":"mine"})", "id"},                          // the server names analyses
  };
  for (const auto& [body, field] : bad) {
    auto [status, e] = post("/api/analyse", body);
    EXPECT_EQ(status, 400) << body;
    EXPECT_EQ(e["field"], field) << body << " -> " << e.dump();
  }
  for (const char* body : {"{not json", "[1,2]", "", "\"text\""}) {
    auto [status, e] = post("/api/analyse", body);
    EXPECT_EQ(status, 400) << body;
    EXPECT_TRUE(e.contains("error")) << body;
  }
  EXPECT_EQ(get("/api/analyse/a999999").first, 404);
  EXPECT_EQ(post("/api/analyse/a999999/stop", "").first, 404);
  EXPECT_EQ(get("/api/analyse/..%2F..").first, 404);
}

TEST_F(BoardApi, StopEndsALongAnalysisWithWhatItHas) {
  auto [status, started] = post("/api/analyse", R"({"maxVisits":1000000})");
  ASSERT_EQ(status, 200);
  const std::string id = started["id"];
  // Stop only once the search has reported: a stop that reaches a query still queued ends it
  // with a bare "terminated" answer and no rootInfo, which is another test's case.
  for (int i = 0; i < 100000; ++i) {
    auto [s, polled] = get("/api/analyse/" + id);
    ASSERT_EQ(s, 200) << polled.dump();
    if (polled["responses"].contains("0")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(post("/api/analyse/" + id + "/stop", "").first, 200);
  const json done = wait_done(id);
  ASSERT_TRUE(done.contains("responses") && done["responses"].contains("0")) << done.dump().substr(0, 300);
  const json& r = done["responses"]["0"];
  EXPECT_EQ(r["isDuringSearch"], false);
  ASSERT_TRUE(r.contains("rootInfo")) << r.dump();
  EXPECT_LT(r["rootInfo"]["visits"].get<int>(), 1000000) << "stopped early";
}

class AbandonTest : public ServeTest {
  void configure(ServeOptions& o) override { o.limits.abandon_after_s = 0.2; }
};

TEST_F(AbandonTest, AnAnalysisNobodyPollsIsStopped) {
  auto [status, started] = post("/api/analyse", R"({"maxVisits":1000000})");
  ASSERT_EQ(status, 200);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // not polled meanwhile: abandoned
  const json done = wait_done(started["id"]);
  EXPECT_EQ(done["responses"]["0"]["terminated"], true) << done.dump().substr(0, 300);
}

class RunningLimitTest : public ServeTest {
  void configure(ServeOptions& o) override { o.limits.max_running = 1; }
};

TEST_F(RunningLimitTest, AnAnalysisBeyondTheRunningLimitIs503) {
  auto [s1, a] = post("/api/analyse", R"({"maxVisits":1000000})");
  ASSERT_EQ(s1, 200);
  auto [s2, e] = post("/api/analyse", R"({"maxVisits":10})");
  EXPECT_EQ(s2, 503) << e.dump();
  post("/api/analyse/" + a["id"].get<std::string>() + "/stop", "");
  wait_done(a["id"]);
  EXPECT_EQ(post("/api/analyse", R"({"maxVisits":10})").first, 200);
}

class QueryLimitsTest : public ServeTest {
  void configure(ServeOptions& o) override {
    o.limits.max_query_visits = 100;
    o.limits.max_kept_plies = 3;
  }
};

TEST_F(QueryLimitsTest, AGameAnalysisAsksForAtMostTheQueryVisitsAndOldAnswersMakeRoom) {
  // 40 visits at each of 3 plies is 120, over this server's 100 for one analysis.
  auto [s1, e1] = post("/api/analyse", R"({"moves":["h2e2","h9g7"],"analyzePlies":[0,1,2],"maxVisits":40})");
  EXPECT_EQ(s1, 400) << e1.dump();
  EXPECT_EQ(e1["field"], "maxVisits");
  EXPECT_NE(e1["error"].get<std::string>().find("100"), std::string::npos) << e1.dump();
  auto [s2, first] = post("/api/analyse", R"({"moves":["h2e2","h9g7"],"analyzePlies":[0,1,2],"maxVisits":33})");
  ASSERT_EQ(s2, 200) << first.dump();
  EXPECT_EQ(wait_done(first["id"])["done"], true);
  // Three plies are kept; one more analysis makes the finished one's room.
  auto [s3, second] = post("/api/analyse", R"({"maxVisits":8})");
  ASSERT_EQ(s3, 200) << second.dump();
  EXPECT_EQ(wait_done(second["id"])["done"], true);
  EXPECT_EQ(get("/api/analyse/" + first["id"].get<std::string>()).first, 404);
}

TEST_F(BoardApi, ManyClientsAtOnceAreAllAnswered) {
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 12; ++c)
    clients.emplace_back([&, c] {
      auto [s1, p] = get(c % 2 ? "/api/position?moves=h2e2" : "/api/position");
      auto [s2, started] = post("/api/analyse", R"({"maxVisits":32})");
      if (s1 != 200 || s2 != 200) return;
      const json done = wait_done(started["id"]);
      if (done["done"] == true && !done["responses"]["0"]["moveInfos"].empty()) ++ok;
    });
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok.load(), 12);
}

// Raw bytes to the server; returns what it answered (until it closes or `read` is false).
std::string raw_exchange(int port, const std::string& bytes, bool read) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    (void)!::write(fd, bytes.data(), bytes.size());
    char buf[4096];
    ssize_t n;
    while (read && (n = ::read(fd, buf, sizeof buf)) > 0) answer.append(buf, size_t(n));
  }
  ::close(fd);
  return answer;
}

TEST_F(BoardApi, GarbageAndHalfRequestsDoNotStopTheServer) {
  const std::string garbage = raw_exchange(port_, "\x01\x02 NOT HTTP AT ALL\r\n\r\n", true);
  EXPECT_NE(garbage.find("400"), std::string::npos) << garbage;
  raw_exchange(port_,
               "POST /api/analyse HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               "Content-Length: 500\r\n\r\n{\"max",
               false);
  raw_exchange(port_, "GET /api/posit", false);
  // An analysis whose client goes away mid-search: the server goes on (and stops it later).
  raw_exchange(port_,
               "POST /api/analyse HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               "Content-Length: 22\r\n\r\n{\"maxVisits\":1000000}\n",
               false);
  const std::string huge = "{\"fen\":\"" + std::string(2 << 20, 'x') + "\"}";
  auto r = client().Post("/api/position", huge, "application/json");
  if (r) {  // else the server closed the connection before the body was sent
    EXPECT_EQ(r->status, 413);
  }
  auto [status, p] = get("/api/position");
  EXPECT_EQ(status, 200);
  EXPECT_EQ(p["legal"].size(), 44u);
}

TEST_F(BoardApi, OnlyLoopbackHostsAreAnswered) {
  auto r = client().Get("/api/info", {{"Host", "attacker.example:80"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_EQ(json::parse(r->body)["field"], "Host");
  EXPECT_EQ(client().Get("/api/info", {{"Host", "127.evil.example"}})->status, 403);
  EXPECT_EQ(client().Get("/api/info", {{"Host", "localhost:8080"}})->status, 200);
  EXPECT_EQ(client().Get("/api/info", {{"Host", "127.0.0.2"}})->status, 200);
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_TRUE(is_loopback_host("0:0:0:0:0:0:0:1"));
  EXPECT_TRUE(is_loopback_host("[0:0::1]"));
  EXPECT_TRUE(is_loopback_host("::ffff:127.0.0.1"));
  EXPECT_FALSE(is_loopback_host("::"));
  EXPECT_FALSE(is_loopback_host("[::2]"));
  EXPECT_FALSE(is_loopback_host("[127.0.0.1]"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("localhost.example"));
}

// What the server refuses before it reads a body (docs/serve.md, "Refused before routing"),
// each with its status and the header at fault, and the server goes on.
TEST_F(BoardApi, HostileRequestsAreRefusedBeforeTheirBody) {
  const std::string host = "127.0.0.1:" + std::to_string(port_);
  // A page of another site: its Origin is not this server.
  auto cross =
      client().Post("/api/analyse", {{"Origin", "http://evil.example"}}, R"({"maxVisits":10})", "application/json");
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->status, 403);
  EXPECT_EQ(json::parse(cross->body)["field"], "Origin");
  auto same =
      client().Post("/api/position", {{"Origin", "http://" + host}}, R"({"moves":["h2e2"]})", "application/json");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 200) << same->body;
  // A body that is not declared JSON (a form or text/plain post needs no preflight).
  auto text = client().Post("/api/position", R"({"moves":[]})", "text/plain");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->status, 415);
  EXPECT_EQ(json::parse(text->body)["field"], "Content-Type");
  // A compressed body (it would be inflated past the size limit).
  auto gz = client().Post("/api/position", {{"Content-Encoding", "gzip"}}, "x", "application/json");
  ASSERT_TRUE(gz);
  EXPECT_EQ(gz->status, 415);
  EXPECT_EQ(json::parse(gz->body)["field"], "Content-Encoding");
  // Chunked: the size limit needs a Content-Length. (Without either, the body is empty.)
  const std::string chunked = raw_exchange(port_,
                                           "POST /api/position HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                                           "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                           "2\r\n{}\r\n0\r\n\r\n",
                                           true);
  EXPECT_NE(chunked.find(" 411 "), std::string::npos) << chunked;
  EXPECT_NE(chunked.find("Transfer-Encoding"), std::string::npos) << chunked;
  const std::string no_length =
      raw_exchange(port_, "POST /api/position HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", true);
  EXPECT_NE(no_length.find(" 400 "), std::string::npos) << no_length;  // no length: an empty body
  // A Range of many parts (each part a copy of the answer).
  auto ranges = client().Get("/api/info", {{"Range", "bytes=0-,0-,0-,0-"}});
  ASSERT_TRUE(ranges);
  EXPECT_EQ(ranges->status, 416);
  // JSON nested deep enough to exhaust a thread's stack when copied: refused unparsed.
  const std::string deep = "{\"fen\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
  auto [s1, e1] = post("/api/analyse", deep);
  EXPECT_EQ(s1, 400);
  EXPECT_NE(e1["error"].get<std::string>().find("nested deeper than"), std::string::npos) << e1.dump();
  // Brackets inside strings do not count, and a usual body is not refused for its depth.
  auto [s2, e2] = post("/api/position", "{\"fen\":\"" + std::string(100, '[') + "\"}");
  EXPECT_EQ(s2, 400);
  EXPECT_EQ(e2["field"], "fen") << e2.dump();
  auto [status, p] = get("/api/position");
  EXPECT_EQ(status, 200);
  EXPECT_EQ(p["legal"].size(), 44u);
}

TEST_F(BoardApi, ThePageAndItsScriptsAreServedFromTheBinary) {
  auto page = client().Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->get_header_value("Content-Type").find("text/html"), std::string::npos);
  EXPECT_NE(page->body.find("board.js"), std::string::npos);
  auto js = client().Get("/board.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_NE(js->get_header_value("Content-Type").find("javascript"), std::string::npos);
  auto [status, e] = get("/nothing.js");
  EXPECT_EQ(status, 404);
  EXPECT_TRUE(e.contains("error"));
  EXPECT_EQ(get("/api/nothing").first, 404);
}

}  // namespace
}  // namespace xq::app::serve::testing
