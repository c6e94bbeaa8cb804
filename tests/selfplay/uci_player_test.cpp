// UCI engines as match players (selfplay/uci_engine_player.cpp): engines that misbehave
// (illegal, malformed or missing moves, exits, no handshake) lose the game; scripted engines
// get the right positions; Xiangqi variant selection and rank numbering; per-player limits.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>

#include "core/movegen.h"
#include "selfplay/match.h"
#include "tests/support/match_fixtures.h"

namespace xq::selfplay {
namespace {

using fixtures::expect_consistent;

// A scripted UCI "engine" in /bin/sh whose reply to `go` is `on_go`.
UciEngineOptions fake_engine(const std::string& on_go) {
  UciEngineOptions o;
  o.command =
      "while read -r line; do case \"$line\" in uci) echo 'id name fake'; echo uciok;; "
      "isready) echo readyok;; go*) " +
      on_go + ";; quit) exit 0;; esac; done";
  o.start_timeout_ms = 5000;
  o.node_timeout_ms = 300;
  return o;
}

MatchResult play_two_against_random(const UciEngineOptions& engine) {
  UciEnginePlayer bad(engine);
  RandomPlayer random(9);
  MatchOptions o;
  o.games = 2;
  return play_match(bad, random, o);
}

void expect_forfeits(const MatchResult& r, const std::string& reason) {
  ASSERT_EQ(r.games.size(), 2u);
  EXPECT_EQ(r.a_losses, 2);
  EXPECT_EQ(r.forfeits_a, 2);
  for (const GameOutcome& g : r.games) {
    EXPECT_EQ(g.termination, "forfeit");
    EXPECT_NE(g.reason.find(reason), std::string::npos) << g.reason;
    EXPECT_EQ(g.result, g.a_is_red ? Result::BLACK_WIN : Result::RED_WIN);
    expect_consistent(g, MatchOptions().game);
  }
}

TEST(UciPlayer, IllegalMoveLoses) {
  const MatchResult r = play_two_against_random(fake_engine("echo 'bestmove a0a5'"));
  expect_forfeits(r, "illegal move a0a5");
  EXPECT_EQ(r.a_name, "uci:fake");
}

TEST(UciPlayer, MalformedMoveLoses) {
  expect_forfeits(play_two_against_random(fake_engine("echo 'bestmove zz99'")), "malformed move 'zz99'");
}

TEST(UciPlayer, NoneWithLegalMovesLoses) {
  expect_forfeits(play_two_against_random(fake_engine("echo 'bestmove (none)'")), "bestmove '(none)'");
}

TEST(UciPlayer, ExitLosesAndTheEngineIsRestarted) {
  // The engine exits at each go; the second game restarts it and it fails the same way.
  expect_forfeits(play_two_against_random(fake_engine("exit 3")), "engine exited (status 3)");
}

TEST(UciPlayer, NoReplyLoses) {
  expect_forfeits(play_two_against_random(fake_engine(": silent")), "no reply within 300 ms");
}

TEST(UciPlayer, NoHandshakeLoses) {
  UciEngineOptions o;
  o.command = "cat > /dev/null";
  o.start_timeout_ms = 200;
  expect_forfeits(play_two_against_random(o), "engine did not start: no uciok");
  UciEngineOptions missing;
  missing.command = "/nonexistent/engine-binary";
  expect_forfeits(play_two_against_random(missing), "engine did not start");
}

TEST(UciPlayer, ScriptedEngineMovesAndGetsTheRightPositions) {
  // Plays h2e2 when given the start position and h9g7 when given moves: checks that the
  // position is sent, the bestmove read, info lines skipped and their node count kept.
  UciEngineOptions o;
  o.command =
      "while read -r line; do case \"$line\" in uci) echo uciok;; isready) echo readyok;; "
      "position*) pos=\"$line\";; go*) case \"$pos\" in *moves*) echo 'info depth 1 nodes 5'; "
      "echo 'bestmove h9g7';; *) echo 'bestmove h2e2';; esac;; quit) exit 0;; esac; done";
  UciEnginePlayer engine(o);
  Game g;
  engine.new_game(g);
  PlayerMove m = engine.choose(g, MoveLimits{10, 0});
  ASSERT_TRUE(m.failure.empty()) << m.failure;
  EXPECT_EQ(move_to_iccs(m.move), "h2e2");
  g.play(m.move);
  m = engine.choose(g, MoveLimits{10, 0});
  ASSERT_TRUE(m.failure.empty()) << m.failure;
  EXPECT_EQ(move_to_iccs(m.move), "h9g7");
  EXPECT_EQ(m.visits, 5u);
  EXPECT_TRUE(engine.running());
}

// A scripted engine that offers `option_line` in its uci reply and answers three positions:
// the start, after h2e2, after h2e2 h9g7, with h2e2, h9g7 and h0g2 (ICCS). In `ranks_from_one`
// dialect it expects positions and writes moves with ranks 1..10 (h3e3, h10g8, h1g3) and only
// answers once `setoption name UCI_Variant value xiangqi` has come; otherwise it uses ICCS
// ranks and refuses to answer after such a setoption. A refusal, any other position, or (with
// `go_needed`) any other `go` line gets a malformed move, so the player forfeits.
UciEngineOptions dialect_engine(const std::string& option_line, bool ranks_from_one,
                                const std::string& go_needed = "") {
  const std::vector<std::string> moves = ranks_from_one ? std::vector<std::string>{"h3e3", "h10g8", "h1g3"}
                                                        : std::vector<std::string>{"h2e2", "h9g7", "h0g2"};
  const std::string start = "position fen " + std::string(Position::kStartFen);
  UciEngineOptions o;
  o.command =
      "v=no; while read -r line; do case \"$line\" in "
      "uci) echo 'id name fake-fsf'; echo '" +
      option_line +
      "'; echo uciok;; "
      "'setoption name UCI_Variant value xiangqi') v=yes;; "
      "isready) echo readyok;; "
      "position*) pos=\"$line\";; "
      "go*) if [ $v != " +
      std::string(ranks_from_one ? "yes" : "no") +
      " ] || "
      "{ [ -n '" +
      go_needed + "' ] && [ \"$line\" != '" + go_needed +
      "' ]; }; "
      "then echo 'bestmove zz99'; else case \"$pos\" in "
      "'" +
      start + "') echo 'bestmove " + moves[0] +
      "';; "
      "'" +
      start + " moves " + moves[0] + "') echo 'bestmove " + moves[1] +
      "';; "
      "'" +
      start + " moves " + moves[0] + " " + moves[1] + "') echo 'bestmove " + moves[2] +
      "';; "
      "*) echo 'bestmove zz98';; esac; fi;; "
      "quit) exit 0;; esac; done";
  o.start_timeout_ms = 5000;
  o.node_timeout_ms = 2000;
  return o;
}

constexpr const char* kFsfVariantOption =
    "option name UCI_Variant type combo default chess var chess var shogi var xiangqi var janggi";

// Plays the engine's three scripted moves and checks them, and what it wrote, against `written`.
void expect_scripted_moves(UciEnginePlayer& engine, const std::vector<std::string>& written) {
  Game g;
  engine.new_game(g);
  const std::vector<std::string> iccs = {"h2e2", "h9g7", "h0g2"};
  for (size_t i = 0; i < iccs.size(); ++i) {
    const PlayerMove m = engine.choose(g, MoveLimits{10});
    ASSERT_TRUE(m.failure.empty()) << iccs[i] << ": " << m.failure;
    EXPECT_EQ(move_to_iccs(m.move), iccs[i]);
    EXPECT_EQ(m.text, written[i]);
    g.play(m.move);
  }
}

TEST(UciPlayer, SelectsTheXiangqiVariantAndNumbersRanksFromOne) {
  UciEnginePlayer engine(dialect_engine(kFsfVariantOption, true));
  EXPECT_EQ(engine.ensure_started(), "");
  EXPECT_TRUE(engine.variant_selected());
  EXPECT_TRUE(engine.ranks_from_one());
  EXPECT_EQ(engine.dialect(), "UCI_Variant xiangqi selected, ranks 1..10");
  EXPECT_EQ(engine.name(), "uci:fake-fsf");
  EXPECT_EQ(engine.to_engine(Move(make_square(7, 9), make_square(6, 7))), "h10g8");
  expect_scripted_moves(engine, {"h3e3", "h10g8", "h1g3"});
}

TEST(UciPlayer, NoVariantWithoutAXiangqiChoice) {
  for (const std::string option : {"option name Hash type spin default 16 min 1 max 1024",
                                   "option name UCI_Variant type combo default chess var chess var shogi",
                                   "option name UCI_Variant type string default xiangqi",
                                   "option name UCI_VariantX type combo default xiangqi var xiangqi"}) {
    UciEnginePlayer engine(dialect_engine(option, false));
    EXPECT_EQ(engine.ensure_started(), "") << option;
    EXPECT_FALSE(engine.variant_selected()) << option;
    EXPECT_FALSE(engine.ranks_from_one()) << option;
    EXPECT_EQ(engine.dialect(), "ranks 0..9");
    expect_scripted_moves(engine, {"h2e2", "h9g7", "h0g2"});
  }
}

TEST(UciPlayer, VariantDetectionCanBeTurnedOffAndRanksForced) {
  UciEngineOptions off = dialect_engine(kFsfVariantOption, false);
  off.detect_variant = false;
  UciEnginePlayer plain(off);
  EXPECT_EQ(plain.ensure_started(), "");
  EXPECT_FALSE(plain.variant_selected());
  expect_scripted_moves(plain, {"h2e2", "h9g7", "h0g2"});

  // The manual override: ranks 1..10 without the variant (an engine that expects them as such).
  UciEngineOptions forced = off;
  forced.ranks_from_one = true;
  UciEnginePlayer manual(forced);
  EXPECT_EQ(manual.ensure_started(), "");
  EXPECT_TRUE(manual.ranks_from_one());
  EXPECT_EQ(manual.dialect(), "ranks 1..10 (ranks_from_one)");
  EXPECT_EQ(manual.to_engine(Move(make_square(7, 2), make_square(4, 2))), "h3e3");
}

TEST(Match, PerPlayerLimitsReachTheEngine) {
  // The engine answers `go depth 1` only; the match-wide limit (nodes) would make it forfeit.
  UciEnginePlayer engine(dialect_engine(kFsfVariantOption, true, "go depth 1"));
  RandomPlayer random(3);
  MatchOptions o;
  o.games = 1;  // the engine is Red and makes the first move
  o.limits = MoveLimits{50};
  o.game.length_cap = 2;
  MoveLimits depth_one;
  depth_one.depth = 1;
  o.a_limits = depth_one;
  EXPECT_EQ(o.limits_of_a().depth, 1);
  EXPECT_EQ(o.limits_of_b().nodes, 50);
  MatchResult r = play_match(engine, random, o);
  ASSERT_EQ(r.games.size(), 1u);
  EXPECT_EQ(r.games[0].termination, "length cap") << r.games[0].reason;
  EXPECT_EQ(move_to_iccs(r.games[0].moves[0]), "h2e2");

  o.a_limits.reset();  // go nodes 50: refused
  r = play_match(engine, random, o);
  ASSERT_EQ(r.games.size(), 1u);
  EXPECT_EQ(r.games[0].termination, "forfeit");
  EXPECT_NE(r.games[0].reason.find("malformed move 'zz99'"), std::string::npos) << r.games[0].reason;
}

}  // namespace
}  // namespace xq::selfplay
