// Matches between two players (selfplay/players.h): colour alternation, openings, concurrent
// games, judging by the core's rules, per-game records and the W/D/L, score and Elo summary.
//
//   MatchOptions o;  o.games = 20;  o.limits.nodes = 200;
//   MatchResult r = play_match(a, b, o);
//   std::cout << r.summary() << "\n";
//
// Game i (0-based) uses opening (i / 2) % openings.size(); player a has red in even games
// and black in odd ones, so every opening is played once with each colour. Games are judged
// by Game (core/game.h): checkmate, stalemate, repetition verdicts, natural limit, dead draw,
// and the length cap as an adjudicated draw. A player that fails to move (crash, exit, no
// reply in time, a malformed or illegal move) loses that game by forfeit, recorded as
// termination "forfeit" with the reason; the match goes on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/game.h"
#include "game_record.pb.h"
#include "selfplay/elo.h"
#include "selfplay/players.h"

namespace xq::selfplay {

struct Opening {
  std::string fen = Position::kStartFen;
  std::vector<Move> moves;  // played from fen before the game starts
  std::string source;       // the line it came from, for messages
};

// An openings file: one opening per line; blank lines and lines starting with '#' are
// skipped. A line is a FEN (short or full form), optionally followed by "moves m1 m2 ...",
// or a list of ICCS moves from the start position, or "startpos [moves ...]" /
// "fen F [moves ...]" as UCI writes it. Throws std::invalid_argument naming the file, the
// line and the problem (bad FEN, illegal move, game already over).
std::vector<Opening> parse_openings(const std::string& text, const std::string& name);
std::vector<Opening> load_openings(const std::string& path);

struct GameOutcome;

struct MatchOptions {
  int64_t games = 2;
  std::vector<Opening> openings;  // empty: the start position
  MoveLimits limits{100, 0};
  // Per-player limits that replace `limits` for player a or b (as match tools set each
  // engine's own nodes, depth or time), so that, say, a network at 800 visits can face an
  // engine at depth 1.
  std::optional<MoveLimits> a_limits, b_limits;
  const MoveLimits& limits_of_a() const { return a_limits ? *a_limits : limits; }
  const MoveLimits& limits_of_b() const { return b_limits ? *b_limits : limits; }
  // Games played at once (each in its own thread with its own player clones). 1..256.
  int concurrency = 1;
  // Judging: repetitions and natural limit as core/game.h; length_cap (plies from the
  // opening's FEN, its moves included) ends a game as an adjudicated draw.
  GameSettings game{1, 400, 120};
  uint64_t seed = 1;  // varies the clones of random players between game slots
  // Called after each game (from the thread that played it, serialised by the runner).
  std::function<void(const GameOutcome&)> on_game;
  // When set and true, no further game starts; the games being played are finished and the
  // result counts the games played (a clean stop of `xqzero match` on SIGINT).
  const std::atomic<bool>* stop = nullptr;
};

struct GameOutcome {
  int64_t index = 0;  // 0-based game number
  int opening = 0;    // index into the openings (0 with none)
  bool a_is_red = true;
  std::string red, black;  // player names
  std::string start_fen;   // the opening's FEN (before its moves)
  int opening_plies = 0;   // the first moves were the opening's
  std::vector<Move> moves;
  std::vector<std::string> wxf;  // each move in WXF, same length as moves
  std::vector<PlayerMove> info;  // per move the player's statistics (after the opening)
  Result result = Result::ONGOING;
  std::string termination;  // core's termination name ("checkmate", ...) or "forfeit"
  std::string reason;       // for a forfeit: who and why, e.g. "black (uci:x): illegal move a0a9"
  // Points of player a: 2 win, 1 draw, 0 loss.
  int a_points() const;
};

struct MatchResult {
  std::string a_name, b_name;
  int64_t a_wins = 0, draws = 0, a_losses = 0;
  int64_t forfeits_a = 0, forfeits_b = 0;  // games lost by forfeit
  std::vector<GameOutcome> games;          // in game order
  EloEstimate elo() const { return estimate_elo(a_wins, draws, a_losses); }
  // "a vs b: games 10 wins 6 draws 2 losses 2 score 0.700 elo +147.2 +/- 212.5 (95%)"
  std::string summary() const;
};

// Plays one game from `opening`; the players' new_game() is called first. Both players
// search with options.limits, or with the limits given here.
GameOutcome play_game(Player& red, Player& black, const Opening& opening, const MatchOptions& options);
GameOutcome play_game(Player& red, Player& black, const Opening& opening, const MatchOptions& options,
                      const MoveLimits& red_limits, const MoveLimits& black_limits);

MatchResult play_match(Player& a, Player& b, const MatchOptions& options);

// A text record of one game: headers (players, result, termination, reason, start FEN),
// then numbered moves, each in WXF and ICCS ("1. C2.5 (h2e2)  H8+7 (h9g7)").
std::string format_game(const GameOutcome& g);
// The same game in the game_record.proto format (network = "red vs black").
xqzero::GameRecord to_game_record(const GameOutcome& g);

}  // namespace xq::selfplay
