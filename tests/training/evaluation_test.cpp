// Evaluation matches (training/evaluation.h): per-player limits and the Fairy-Stockfish
// opponent, with scripted engines (the real one only when it is installed).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "core/movegen.h"
#include "training/evaluation.h"

namespace xq::training {
namespace {

// Plays the first legal move and records the limits it was given.
class LimitsSpy final : public selfplay::Player {
 public:
  explicit LimitsSpy(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  selfplay::PlayerMove choose(const Game& game, const selfplay::MoveLimits& limits) override {
    seen.push_back(limits);
    selfplay::PlayerMove out;
    out.move = MoveList(game.position())[0];
    return out;
  }
  std::unique_ptr<selfplay::Player> clone(uint64_t) const override { return std::make_unique<LimitsSpy>(name_); }
  std::vector<selfplay::MoveLimits> seen;

 private:
  std::string name_;
};

GameSettings short_games() {
  GameSettings s;
  s.length_cap = 6;
  return s;
}

TEST(Evaluation, EachPlayerSearchesWithItsOwnLimits) {
  LimitsSpy net("net"), engine("engine");
  selfplay::MoveLimits visits{800}, depth;
  depth.depth = 1;
  const MatchScore m = play_evaluation_match(net, engine, 2, visits, depth, short_games());
  EXPECT_EQ(m.opponent, "engine");
  EXPECT_EQ(m.elo.games(), 2);
  ASSERT_FALSE(net.seen.empty());
  ASSERT_FALSE(engine.seen.empty());
  for (const auto& l : net.seen) EXPECT_EQ(selfplay::to_string(l), "nodes=800");
  for (const auto& l : engine.seen) EXPECT_EQ(selfplay::to_string(l), "depth=1");

  // The visits overload gives both the same.
  LimitsSpy a("a"), b("b");
  play_evaluation_match(a, b, 2, 64, short_games());
  for (const auto* p : {&a, &b})
    for (const auto& l : p->seen) EXPECT_EQ(selfplay::to_string(l), "nodes=64");
}

std::string temp_path(const std::string& name) {
  return (testing::TempDir().empty() ? std::string("/tmp/") : testing::TempDir()) + "xq_eval_" +
         std::to_string(getpid()) + "_" + name;
}

// Writes an executable shell script that speaks UCI: it prints `option_line` in its uci
// reply and answers `go depth 3` on the start position with h3e3 (ranks 1..10, ICCS h2e2)
// once UCI_Variant xiangqi is selected; anything else gets a malformed move.
std::string write_engine(const std::string& name, const std::string& option_line, bool executable = true) {
  const std::string path = temp_path(name);
  std::ofstream(path) << "#!/bin/sh\n"
                         "v=no\n"
                         "while read -r line; do case \"$line\" in\n"
                         "uci) echo 'id name scripted'; echo '"
                      << option_line
                      << "'; echo uciok;;\n"
                         "'setoption name UCI_Variant value xiangqi') v=yes;;\n"
                         "isready) echo readyok;;\n"
                         "position*) pos=\"$line\";;\n"
                         "'go depth 3') if [ $v = yes ] && [ \"$pos\" = 'position fen "
                      << Position::kStartFen
                      << "' ]; then echo 'bestmove h3e3'; else echo 'bestmove zz99'; fi;;\n"
                         "go*) echo 'bestmove zz98';;\n"
                         "quit) exit 0;;\n"
                         "esac; done\n";
  chmod(path.c_str(), executable ? 0755 : 0644);
  return path;
}

TEST(Evaluation, FairyStockfishPlayerPlaysAtItsDepthWhateverTheMatchAsks) {
  const std::string path =
      write_engine("fsf.sh", "option name UCI_Variant type combo default chess var chess var xiangqi");
  std::string why;
  auto fsf = fairy_stockfish_player(3, &why, path);
  ASSERT_NE(fsf, nullptr) << why;
  EXPECT_EQ(fsf->name(), "fairy-stockfish-d3");
  Game g;
  fsf->new_game(g);
  const selfplay::PlayerMove m = fsf->choose(g, selfplay::MoveLimits{800});  // `go depth 3` all the same
  EXPECT_TRUE(m.failure.empty()) << m.failure;
  EXPECT_EQ(move_to_iccs(m.move), "h2e2");
  auto clone = fsf->clone(1);
  const selfplay::PlayerMove c = clone->choose(g, selfplay::MoveLimits{800});
  EXPECT_EQ(move_to_iccs(c.move), "h2e2") << c.failure;
  std::remove(path.c_str());
}

TEST(Evaluation, FairyStockfishPlayerIsNullWhenUnusable) {
  std::string why;
  EXPECT_EQ(fairy_stockfish_player(1, &why, "/nonexistent/fairy-stockfish"), nullptr);
  EXPECT_EQ(why, "Fairy-Stockfish (/nonexistent/fairy-stockfish): not an executable file");

  const std::string plain = write_engine("plain.sh", "option name Hash type spin default 16 min 1 max 64", false);
  EXPECT_EQ(fairy_stockfish_player(1, &why, plain), nullptr);
  EXPECT_NE(why.find("not an executable file"), std::string::npos) << why;
  chmod(plain.c_str(), 0755);
  EXPECT_EQ(fairy_stockfish_player(1, &why, plain), nullptr);
  EXPECT_NE(why.find("offers no UCI_Variant xiangqi"), std::string::npos) << why;
  std::remove(plain.c_str());

  EXPECT_EQ(fairy_stockfish_player(1, nullptr, "/nonexistent/fairy-stockfish"), nullptr);
  EXPECT_THROW(fairy_stockfish_player(0), std::invalid_argument);
}

// Only where Debian's fairy-stockfish package is installed: a few real games at depth 1.
TEST(Evaluation, RealFairyStockfishWhenInstalled) {
  std::string why;
  auto fsf = fairy_stockfish_player(1, &why);
  if (!fsf) GTEST_SKIP() << why;
  LimitsSpy first_move("first-legal-move");
  GameSettings s;
  s.repetitions = 2;  // at the first recurrence a depth-1 search can lose by perpetual check
  s.length_cap = 60;
  const MatchScore m = play_evaluation_match(first_move, *fsf, 2, 8, s);
  EXPECT_EQ(m.opponent, "fairy-stockfish-d1");
  EXPECT_EQ(m.elo.games(), 2);
  EXPECT_EQ(m.elo.wins, 0);  // a forfeit of the engine (a misread move) would be a win here
}

}  // namespace
}  // namespace xq::training
