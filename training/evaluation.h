// Evaluation matches of the training loop: the new network against earlier ones and fixed
// baselines, at a fixed small visit budget, colours alternating, judged by the core's rules.
#pragma once

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

// An MCTS player over a checkpoint (deterministic, the config's search and evaluator with
// its batching and cache, on the evaluator's device).
std::unique_ptr<selfplay::Player> checkpoint_player(const xqzero::Config& config, const std::string& checkpoint,
                                                    const std::string& name);

}  // namespace xq::training
