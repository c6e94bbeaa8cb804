// Players and the match runner (selfplay/players.h, selfplay/match.h): colour alternation,
// openings, judging, concurrency, records, per-player limits.
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

TEST(Players, RandomAndGreedyPlayLegalMoves) {
  RandomPlayer random(3);
  GreedyPlayer greedy(4);
  Game game;
  for (int ply = 0; ply < 60 && !game.over(); ++ply) {
    Player& p = ply % 2 ? static_cast<Player&>(greedy) : static_cast<Player&>(random);
    const PlayerMove m = p.choose(game, MoveLimits());
    ASSERT_TRUE(m.failure.empty());
    ASSERT_TRUE(MoveList(game.position()).contains(m.move));
    game.play(m.move);
  }
}

TEST(Players, GreedyTakesTheBiggestPieceAndMates) {
  GreedyPlayer greedy(1);
  // The only capture: the chariot takes the crossed pawn on a4.
  Game g1("5k3/9/9/9/9/p8/9/9/9/R2K5 w");
  EXPECT_EQ(move_to_iccs(greedy.choose(g1, MoveLimits()).move), "a0a4");
  // The cannon takes the chariot on b9 over the b7 screen (9) rather than the chariot taking
  // the horse on a4 (4).
  Game g2("1r2k4/9/1P7/9/9/n8/9/1C7/9/R2K5 w");
  EXPECT_EQ(move_to_iccs(greedy.choose(g2, MoveLimits()).move), "b2b9");
  // The only move that wins at once (h6d6, mate) is found among moves that capture nothing.
  Game g3("3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w");
  EXPECT_EQ(move_to_iccs(greedy.choose(g3, MoveLimits()).move), "h6d6");
}

TEST(Players, MctsPlayerWithUniformPriorsFindsMateInOne) {
  MctsPlayerOptions o;
  o.name = "uniform";
  MctsPlayer p(std::make_shared<nn::UniformEvaluator>(), o);
  Game g("3k5/6N2/9/7R1/9/1C7/9/9/9/5K3 w");  // h6d6 is the only move that wins at once
  p.new_game(g);
  const PlayerMove m = p.choose(g, MoveLimits{400, 0});
  ASSERT_TRUE(m.failure.empty());
  EXPECT_EQ(move_to_iccs(m.move), "h6d6");
  EXPECT_TRUE(m.has_value);
  EXPECT_GT(m.value, 0.9f);
}

TEST(Players, MctsPlayerRefusesADepthLimit) {
  MctsPlayer p(std::make_shared<nn::UniformEvaluator>(), MctsPlayerOptions());
  Game g;
  p.new_game(g);
  MoveLimits limits;
  limits.depth = 2;
  const PlayerMove m = p.choose(g, limits);
  EXPECT_NE(m.failure.find("a depth limit is for UCI engines"), std::string::npos) << m.failure;
}

TEST(Players, UciCoordinates) {
  UciEngineOptions zero;
  zero.command = "true";
  UciEnginePlayer p0(zero);
  EXPECT_EQ(p0.to_engine(Move(make_square(7, 2), make_square(4, 2))), "h2e2");
  EXPECT_EQ(p0.from_engine("h2e2"), Move(make_square(7, 2), make_square(4, 2)));
  EXPECT_TRUE(p0.from_engine("h2e10").is_none());
  EXPECT_TRUE(p0.from_engine("x2e2").is_none());
  EXPECT_TRUE(p0.from_engine("h2e2x").is_none());
  UciEngineOptions one = zero;
  one.ranks_from_one = true;
  UciEnginePlayer p1(one);
  EXPECT_EQ(p1.to_engine(Move(make_square(7, 2), make_square(4, 2))), "h3e3");
  EXPECT_EQ(p1.to_engine(Move(make_square(0, 9), make_square(0, 8))), "a10a9");
  EXPECT_EQ(p1.from_engine("a10a9"), Move(make_square(0, 9), make_square(0, 8)));
  EXPECT_TRUE(p1.from_engine("a0a1").is_none());  // rank 0 does not exist there
}

TEST(MoveLimits, ParsesAndWritesMatchToolLimits) {
  const MoveLimits a = parse_move_limits("depth=1");
  EXPECT_EQ(a.depth, 1);
  EXPECT_EQ(a.nodes, 0);
  EXPECT_EQ(a.movetime_ms, 0);
  const MoveLimits b = parse_move_limits("movetime=250,nodes=800,depth=12");
  EXPECT_EQ(b.nodes, 800);
  EXPECT_EQ(b.depth, 12);
  EXPECT_EQ(b.movetime_ms, 250);
  EXPECT_EQ(to_string(b), "nodes=800,depth=12,movetime=250");
  EXPECT_EQ(to_string(MoveLimits()), "none");
  EXPECT_EQ(uci_go_command(b), "go depth 12 nodes 800 movetime 250");
  EXPECT_EQ(uci_go_command(a), "go depth 1");
  EXPECT_EQ(uci_go_command(MoveLimits{100}), "go nodes 100");
  EXPECT_EQ(uci_go_command(MoveLimits()), "go depth 1");  // no limit at all: the quickest search
}

TEST(MoveLimits, BadLimitsNameTheValue) {
  auto message = [](const std::string& text) {
    try {
      parse_move_limits(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("depth=x"), "bad limit 'depth=x': depth takes an integer 1..1000");
  EXPECT_EQ(message("nodes=5,depth=0"), "bad limit 'depth=0' in 'nodes=5,depth=0': depth takes an integer 1..1000");
  EXPECT_NE(message("depth=-1").find("'depth=-1'"), std::string::npos);
  EXPECT_NE(message("nodes=99999999999999999999").find("nodes takes an integer 1..1000000000"), std::string::npos);
  EXPECT_NE(message("plies=3").find("bad limit 'plies=3': expected nodes=N, depth=N or movetime=MS"),
            std::string::npos);
  EXPECT_NE(message("depth").find("bad limit 'depth'"), std::string::npos);
  EXPECT_NE(message("depth=1,").find("bad limits 'depth=1,'"), std::string::npos);
  EXPECT_NE(message("depth=1,depth=2").find("depth given twice"), std::string::npos);
  EXPECT_NE(message("").find("no limits given"), std::string::npos);
}

TEST(Openings, ParsesEveryForm) {
  const std::vector<Opening> o = parse_openings(
      "# comment\n"
      "\n"
      "h2e2 h9g7\n"
      "startpos moves b0c2\n"
      "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1\n"
      "fen 3k5/9/9/9/9/9/9/9/9/R3K4 w moves a0a1\n"
      "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1 moves a0a2 d9d8\n",
      "test");
  ASSERT_EQ(o.size(), 5u);
  EXPECT_EQ(o[0].fen, Position::kStartFen);
  ASSERT_EQ(o[0].moves.size(), 2u);
  EXPECT_EQ(move_to_iccs(o[0].moves[1]), "h9g7");
  EXPECT_EQ(o[1].moves.size(), 1u);
  EXPECT_TRUE(o[2].moves.empty());
  EXPECT_EQ(Position::from_fen(o[2].fen).side_to_move(), BLACK);
  EXPECT_EQ(o[3].fen, "3k5/9/9/9/9/9/9/9/9/R3K4 w");
  EXPECT_EQ(o[4].moves.size(), 2u);
}

TEST(Openings, ErrorsNameTheLine) {
  auto message = [](const std::string& text) {
    try {
      parse_openings(text, "book");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("h2e2\na0a5\n").find("book line 2"), std::string::npos);
  EXPECT_NE(message("xyz/9 w\n").find("bad FEN"), std::string::npos);
  EXPECT_NE(message("3k5/R8/9/9/9/9/9/9/9/1R2K4 w moves b0b9\n").find("ends the game"), std::string::npos);
  EXPECT_THROW(load_openings("/nonexistent/openings.txt"), std::invalid_argument);
}

TEST(Match, GreedyBeatsRandomWithAlternatingColours) {
  GreedyPlayer greedy(11);
  RandomPlayer random(12);
  MatchOptions o;
  o.games = 8;
  o.openings = parse_openings("h2e2\nb0c2 b9c7\n", "openings");
  const MatchResult r = play_match(greedy, random, o);
  EXPECT_EQ(r.a_name, "greedy");
  EXPECT_EQ(r.b_name, "random");
  ASSERT_EQ(r.games.size(), 8u);
  EXPECT_EQ(r.a_wins + r.draws + r.a_losses, 8);
  for (size_t i = 0; i < r.games.size(); ++i) {
    const GameOutcome& g = r.games[i];
    EXPECT_EQ(g.index, int64_t(i));
    EXPECT_EQ(g.a_is_red, i % 2 == 0);
    EXPECT_EQ(g.red, g.a_is_red ? "greedy" : "random");
    EXPECT_EQ(g.opening, int((i / 2) % 2));
    EXPECT_EQ(g.opening_plies, g.opening == 0 ? 1 : 2);
    EXPECT_EQ(move_to_iccs(g.moves[0]), g.opening == 0 ? "h2e2" : "b0c2");
    EXPECT_NE(g.termination, "forfeit");
    expect_consistent(g, o.game);
  }
  EXPECT_EQ(r.forfeits_a + r.forfeits_b, 0);
  // One ply of material sense is far better than none.
  EXPECT_GT(r.a_wins, r.a_losses);
  EXPECT_GT(r.elo().elo, 0);
  EXPECT_NE(r.summary().find("greedy vs random: games 8 wins "), std::string::npos) << r.summary();
}

TEST(Match, ConcurrentGamesAreAllPlayedAndReported) {
  GreedyPlayer greedy(5);
  RandomPlayer random(6);
  MatchOptions o;
  o.games = 7;
  o.concurrency = 3;
  o.game.length_cap = 120;
  std::set<int64_t> reported;
  o.on_game = [&](const GameOutcome& g) { reported.insert(g.index); };
  const MatchResult r = play_match(random, greedy, o);
  EXPECT_EQ(reported.size(), 7u);
  ASSERT_EQ(r.games.size(), 7u);
  EXPECT_EQ(r.a_wins + r.draws + r.a_losses, 7);
  for (const GameOutcome& g : r.games) {
    EXPECT_LE(g.moves.size(), 120u);
    expect_consistent(g, o.game);
  }
}

TEST(Match, MctsUniformAgainstRandom) {
  MctsPlayerOptions mo;
  mo.name = "uniform";
  MctsPlayer mcts(std::make_shared<nn::UniformEvaluator>(), mo);
  RandomPlayer random(7);
  MatchOptions o;
  o.games = 2;
  o.limits = MoveLimits{32, 0};
  o.game.length_cap = 80;
  const MatchResult r = play_match(mcts, random, o);
  ASSERT_EQ(r.games.size(), 2u);
  for (const GameOutcome& g : r.games) {
    expect_consistent(g, o.game);
    for (const PlayerMove& pm : g.info)
      if (pm.has_value) {
        EXPECT_GE(pm.visits, 1u);
      }
  }
}

TEST(Match, GameTextAndRecord) {
  GreedyPlayer greedy(1);
  RandomPlayer random(2);
  MatchOptions o;
  o.game.length_cap = 10;
  Opening op = parse_openings("h2e2 h9g7", "x")[0];
  GameOutcome g = play_game(greedy, random, op, o);
  g.index = 4;
  EXPECT_EQ(g.moves.size(), 10u);
  EXPECT_EQ(g.termination, "length cap");
  EXPECT_EQ(g.result, Result::DRAW);
  const std::string text = format_game(g);
  EXPECT_NE(text.find("[Game \"5\"]"), std::string::npos) << text;
  EXPECT_NE(text.find("[Red \"greedy\"]"), std::string::npos);
  EXPECT_NE(text.find("[Termination \"length cap\"]"), std::string::npos);
  EXPECT_NE(text.find("1. C2.5 (h2e2) H8+7 (h9g7)\n2. "), std::string::npos) << text;
  EXPECT_NE(text.find("\n1/2-1/2\n"), std::string::npos);
  const xqzero::GameRecord rec = to_game_record(g);
  EXPECT_EQ(rec.start_fen(), Position::kStartFen);
  ASSERT_EQ(rec.moves_size(), 10);
  EXPECT_EQ(rec.moves(0).move(), "h2e2");
  EXPECT_EQ(rec.result(), "1/2-1/2");
  EXPECT_EQ(rec.termination(), "length cap");
  EXPECT_EQ(rec.network(), "greedy vs random");
}

}  // namespace
}  // namespace xq::selfplay
