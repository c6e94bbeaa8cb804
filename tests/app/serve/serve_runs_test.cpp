// `xqzero serve`, the dashboard's API: runs listed, metrics.jsonl read incrementally while it
// is written (a partial last line left for later, a replaced file noticed), checkpoints, record
// files and their games, and every attempt to reach a file outside the run directory refused.
#include <sys/stat.h>

#include <unistd.h>

#include "records/record_io.h"
#include "tests/app/serve/serve_fixture.h"

namespace xq::app::serve::testing {
namespace {

using RunsApi = ServeTest;

TEST_F(RunsApi, RunsAreListedByName) {
  auto [status, r] = get("/api/runs");
  ASSERT_EQ(status, 200);
  ASSERT_EQ(r["runs"].size(), 1u);
  EXPECT_EQ(r["runs"][0]["name"], "runA");
  auto [s2, e] = get("/api/runs/nope/metrics");
  EXPECT_EQ(s2, 404);
  EXPECT_EQ(e["field"], "run");
}

TEST_F(RunsApi, MetricsAreReadIncrementallyAndAPartialLastLineWaits) {
  const fs::path m = run_ / "metrics.jsonl";
  auto [s0, empty] = get("/api/runs/runA/metrics");  // no file yet: nothing, not an error
  ASSERT_EQ(s0, 200);
  EXPECT_EQ(empty["lines"].size(), 0u);
  EXPECT_EQ(empty["next"], 0);
  write_text(
      m, "{\"kind\":\"train\",\"step\":100,\"policy_loss\":3.4}\n{\"kind\":\"train\",\"step\":200}\n{\"kind\":\"tr");
  auto [s1, a] = get("/api/runs/runA/metrics?from=0");
  ASSERT_EQ(s1, 200);
  ASSERT_EQ(a["lines"].size(), 2u) << a.dump();
  EXPECT_EQ(a["lines"][0]["policy_loss"], 3.4);
  EXPECT_EQ(a["next"], 2);
  EXPECT_EQ(a["total"], 2);
  write_text(m, "ain\",\"step\":300}\nnot json\n{\"kind\":\"eval\",\"step\":300,\"score\":0.5}\n", true);
  auto [s2, b] = get("/api/runs/runA/metrics?from=2");
  ASSERT_EQ(s2, 200);
  ASSERT_EQ(b["lines"].size(), 2u) << b.dump();
  EXPECT_EQ(b["lines"][0]["step"], 300);
  EXPECT_EQ(b["lines"][1]["kind"], "eval");
  EXPECT_EQ(b["skipped"], 1);
  EXPECT_EQ(b["next"], 5);
  EXPECT_EQ(b["fileId"], a["fileId"]);
  EXPECT_EQ(b["reset"], false);
  auto [s3, c] = get("/api/runs/runA/metrics?from=5");
  EXPECT_EQ(c["lines"].size(), 0u);
  EXPECT_EQ(c["next"], 5);
  // A resumed run replaces the file with fewer lines: reading starts over.
  const fs::path tmp = run_ / "metrics.jsonl.tmp";
  write_text(tmp, "{\"kind\":\"train\",\"step\":100}\n");
  fs::rename(tmp, m);
  auto [s4, d] = get("/api/runs/runA/metrics?from=5");
  EXPECT_EQ(d["reset"], true);
  EXPECT_EQ(d["lines"].size(), 1u);
  EXPECT_EQ(d["next"], 1);
  EXPECT_NE(d["fileId"], a["fileId"]);
  EXPECT_EQ(get("/api/runs/runA/metrics?from=-1").first, 400);
  EXPECT_EQ(get("/api/runs/runA/metrics?from=abc").first, 400);
  EXPECT_EQ(get("/api/runs/runA/metrics?max=2&from=0").second["lines"].size(), 1u);
}

TEST_F(RunsApi, CheckpointsAndGamesAreListedAndAGameReadsBack) {
  write_text(run_ / "checkpoints" / "ckpt-00000250.xqz", "x");
  write_text(run_ / "checkpoints" / "ckpt-00000500.xqz", "xy");
  write_text(run_ / "latest", "ckpt-00000500.xqz\n");
  auto [s1, c] = get("/api/runs/runA/checkpoints");
  ASSERT_EQ(s1, 200);
  EXPECT_EQ(c["latest"], "ckpt-00000500.xqz");
  ASSERT_EQ(c["checkpoints"].size(), 2u);
  EXPECT_EQ(c["checkpoints"][1]["step"], 500);
  EXPECT_EQ(c["checkpoints"][1]["bytes"], 2);

  xqzero::GameRecord g;
  g.set_start_fen(Position::kStartFen);
  for (const char* mv : {"h2e2", "h9g7"}) {
    xqzero::MoveRecord* m = g.add_moves();
    m->set_move(mv);
    m->set_root_value(0.25f);
  }
  g.set_result("*");
  g.set_termination("length cap");
  records::write_record_file((run_ / "games" / "selfplay-000000.rec.gz").string(), {g, g});
  auto [s2, files] = get("/api/runs/runA/games");
  ASSERT_EQ(s2, 200);
  ASSERT_EQ(files["files"].size(), 1u);
  EXPECT_EQ(files["files"][0]["file"], "games/selfplay-000000.rec.gz");
  auto [s3, games] = get("/api/runs/runA/games?file=games/selfplay-000000.rec.gz&limit=1");
  ASSERT_EQ(s3, 200) << games.dump();
  EXPECT_EQ(games["total"], 2);
  ASSERT_EQ(games["games"].size(), 1u);
  EXPECT_EQ(games["games"][0]["index"], 1);
  EXPECT_EQ(games["games"][0]["moves"], json::array({"h2e2", "h9g7"}));
  EXPECT_EQ(games["games"][0]["values"][0], 0.25);
  write_text(run_ / "games" / "junk.rec.gz", "not gzip");
  auto [s4, e] = get("/api/runs/runA/games?file=games/junk.rec.gz");
  EXPECT_EQ(s4, 422);
  EXPECT_EQ(e["field"], "file");
}

TEST_F(RunsApi, NoPathLeavesTheRunDirectory) {
  fs::create_symlink(dir_ / "outside" / "secret.txt", run_ / "games" / "link.rec.gz");
  fs::create_symlink(dir_ / "outside", run_ / "out");
  const std::string abs = (dir_ / "outside" / "secret.txt").string();
  const std::vector<std::string> attempts = {
      "/api/runs/runA/games?file=../outside/secret.txt",
      "/api/runs/runA/games?file=games/../../outside/secret.txt",
      "/api/runs/runA/games?file=..%2Foutside%2Fsecret.txt",
      "/api/runs/runA/games?file=%2E%2E/outside/secret.txt",
      "/api/runs/runA/games?file=" + abs,
      "/api/runs/runA/games?file=games/link.rec.gz",
      "/api/runs/runA/games?file=out/secret.txt",
      "/api/runs/runA/games?file=",
      "/api/runs/runA/games?file=games%00/x",
      "/api/runs/..%2Foutside/metrics",
      "/api/runs/runA/..%2F..%2Foutside%2Fsecret.txt",
      "/api/runs/runA/../../outside/secret.txt",
      "/../outside/secret.txt",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/..%2F..%2Fetc%2Fpasswd",
      "/index.html/../../outside/secret.txt",
  };
  for (const std::string& path : attempts) {
    auto r = client().Get(path.c_str());
    ASSERT_TRUE(r) << path;
    EXPECT_GE(r->status, 400) << path;
    EXPECT_LT(r->status, 500) << path;
    EXPECT_EQ(r->body.find("SECRET-OUTSIDE"), std::string::npos) << path;
    EXPECT_TRUE(json::parse(r->body, nullptr, false).contains("error")) << path << ": " << r->body;
  }
  // Listings leave out the symlink out of the run (its size and time are of a file outside).
  auto [ls, listed] = get("/api/runs/runA/games");
  EXPECT_EQ(ls, 200);
  for (const json& f : listed["files"]) EXPECT_NE(f["file"], "games/link.rec.gz") << listed.dump();
  // A symlinked metrics file that points out reads as missing, not as the file it points to.
  fs::create_symlink(dir_ / "outside" / "secret.txt", run_ / "metrics.jsonl");
  auto [status, m] = get("/api/runs/runA/metrics");
  EXPECT_EQ(status, 200);
  EXPECT_EQ(m["total"], 0);
}

// games/ and checkpoints/ that are symlinks out of the run directory read as missing: their
// files outside are neither listed (names, sizes, times) nor read.
TEST_F(RunsApi, SymlinkedFoldersOutOfTheRunReadAsMissing) {
  fs::create_directories(dir_ / "outside" / "ckpts");
  write_text(dir_ / "outside" / "ckpts" / "ckpt-00000007.xqz", "SECRET-OUTSIDE\n");
  write_text(dir_ / "outside" / "ckpts" / "selfplay-000001.rec.gz", "SECRET-OUTSIDE\n");
  fs::remove_all(run_ / "checkpoints");
  fs::remove_all(run_ / "games");
  fs::create_symlink(dir_ / "outside" / "ckpts", run_ / "checkpoints");
  fs::create_symlink(dir_ / "outside" / "ckpts", run_ / "games");
  auto [s1, c] = get("/api/runs/runA/checkpoints");
  EXPECT_EQ(s1, 200) << c.dump();
  EXPECT_TRUE(c["checkpoints"].empty()) << c.dump();
  auto [s2, g] = get("/api/runs/runA/games");
  EXPECT_EQ(s2, 200) << g.dump();
  EXPECT_TRUE(g["files"].empty()) << g.dump();
  auto r = client().Get("/api/runs/runA/games?file=games/selfplay-000001.rec.gz");
  ASSERT_TRUE(r);
  EXPECT_GE(r->status, 400);
  EXPECT_EQ(r->body.find("SECRET-OUTSIDE"), std::string::npos);
  // A metrics.jsonl that is a FIFO reads as missing (it would block a reader forever).
  ASSERT_EQ(::mkfifo((run_ / "metrics.jsonl").c_str(), 0600), 0);
  auto [s3, m] = get("/api/runs/runA/metrics");
  EXPECT_EQ(s3, 200) << m.dump();
  EXPECT_EQ(m["total"], 0);
}

TEST(ServeRunDirs, AMissingRunDirectoryIsRefusedAtStart) {
  EXPECT_THROW(RunDirs({"/nonexistent/run/dir"}), std::invalid_argument);
}

TEST(ServeRunDirs, RunsWithTheSameNameGetDistinctNames) {
  const fs::path base = fs::temp_directory_path() / ("xqzero_serve_names_" + std::to_string(::getpid()));
  fs::create_directories(base / "a" / "run");
  fs::create_directories(base / "b" / "run");
  const RunDirs runs({(base / "a" / "run").string(), (base / "b" / "run").string()});
  ASSERT_EQ(runs.runs().size(), 2u);
  EXPECT_EQ(runs.runs()[0].name, "run");
  EXPECT_EQ(runs.runs()[1].name, "run-2");
  fs::remove_all(base);
}

}  // namespace
}  // namespace xq::app::serve::testing
