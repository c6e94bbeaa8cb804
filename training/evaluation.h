// Evaluation matches of the training loop: the new network against earlier ones and fixed
// baselines (random, greedy, Fairy-Stockfish at a fixed depth), at a fixed small visit budget
// or with each player's own limits, colours alternating, judged by the core's rules.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.pb.h"
#include "selfplay/elo.h"
#include "selfplay/players.h"

namespace xq::training {

struct MatchScore {
  std::string opponent;
  selfplay::EloEstimate elo;  // from the first player's point of view
};

// Plays `games` games of `a` against `b`, with `visits` new visits per move for MCTS players.
// Games come in pairs from the same opening, a as Red in the first and as Black in the
// second; each pair's opening is `opening_plies` random legal moves from the start position
// (seeded by the pair number), so that deterministic players do not repeat one game.
MatchScore play_evaluation_match(selfplay::Player& a, selfplay::Player& b, int games, int visits,
                                 const GameSettings& settings, int opening_plies = 4, uint64_t seed = 1);

// The same with each player's own limits (selfplay/players.h): nodes are an MCTS player's
// new visits or a UCI engine's `go nodes N`, depth is for UCI engines only (`go depth N`),
// movetime is in ms. E.g. a = the net with MoveLimits{800}, b = an engine with
// MoveLimits{0, 0, 1} (depth 1).
MatchScore play_evaluation_match(selfplay::Player& a, selfplay::Player& b, int games,
                                 const selfplay::MoveLimits& a_limits, const selfplay::MoveLimits& b_limits,
                                 const GameSettings& settings, int opening_plies = 4, uint64_t seed = 1);

// Where Debian's fairy-stockfish package puts the engine.
inline constexpr const char* kFairyStockfishPath = "/usr/games/fairy-stockfish";

// Fairy-Stockfish as a fixed-strength opponent: it searches `depth` plies per move
// (`go depth N`, 1..1000) whatever limits the match passes, so it can join the opponents
// played with either overload above; named "fairy-stockfish-d<depth>". The engine is started
// here, and must offer UCI_Variant xiangqi, which is selected (ranks 1..10 in its moves, see
// UciEnginePlayer). nullptr when `path` is not an executable file, the engine does not start
// or it has no xiangqi variant; `why`, when given, then says which in one line. Throws
// std::invalid_argument for a depth out of range.
std::unique_ptr<selfplay::Player> fairy_stockfish_player(int depth, std::string* why = nullptr,
                                                         const std::string& path = kFairyStockfishPath);

// An MCTS player over a checkpoint (deterministic, the config's search and evaluator with
// its batching and cache, on the evaluator's device).
std::unique_ptr<selfplay::Player> checkpoint_player(const xqzero::Config& config, const std::string& checkpoint,
                                                    const std::string& name);

}  // namespace xq::training
