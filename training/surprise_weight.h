// Sampling by surprise (training.surprise_weight): how much each training sample of a game
// weighs, by copies in the replay window or by its policy loss's weight, so that the positions
// where search moved the target far from the net's prior (MoveRecord.surprise) count more in
// training, as KataGo and lc0 do.
#pragma once

#include <vector>

#include "game_record.pb.h"
#include "training/training_position.h"

namespace xq::training {

// Per sample of positions_of(game, fast_value_targets), in order: its weight under sampling
// by surprise. A policy sample gets w = (1 - weight) + weight * k / mean(k), with k its move's
// surprise and the mean over the game's policy samples, so the policy samples' weights add up
// to their number. Value-only samples get 1; so does every sample when weight is 0, or when
// the game has no surprise recorded (records written before the field) or its mean is 0.
std::vector<double> surprise_weights(const xqzero::GameRecord& game, bool fast_value_targets, double weight);

// The same samples' copies in the replay window (training.surprise_by "copies"): floor(w)
// copies of a sample of weight w and one more with probability frac(w), drawn from the game's
// seed and the move's ply (the same on every rebuild of the window).
std::vector<int> surprise_copies(const xqzero::GameRecord& game, bool fast_value_targets, double weight);

// Sets each sample's policy_weight to its surprise weight (training.surprise_by "loss"),
// rounded to 1/kUnitPolicyWeight and capped at 65535/kUnitPolicyWeight (about 64: one move
// far more surprising than the rest of a long game can reach it at s near 1).
void set_surprise_weights(const xqzero::GameRecord& game, bool fast_value_targets, double weight,
                          std::vector<TrainingPosition>& positions);

// `positions` with each one repeated copies[i] times (0 drops it), in order.
std::vector<TrainingPosition> with_copies(const std::vector<TrainingPosition>& positions,
                                          const std::vector<int>& copies);

}  // namespace xq::training
