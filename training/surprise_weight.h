// Sampling by surprise (training.surprise_weight): how many copies of each training sample of
// a game enter the replay window, so that the positions where search moved the target far from
// the net's prior (MoveRecord.surprise) are trained on more often, as KataGo and lc0 do.
#pragma once

#include <vector>

#include "game_record.pb.h"
#include "training/training_position.h"

namespace xq::training {

// Per sample of positions_of(game, fast_value_targets), in order: its copies in the window.
// A policy sample gets w = (1 - weight) + weight * k / mean(k) in expectation, with k its
// move's surprise and the mean over the game's policy samples: floor(w) copies and one more
// with probability frac(w), drawn from the game's seed and the move's ply (the same on every
// rebuild of the window). Value-only samples get one copy; so does every sample when weight
// is 0, or when the game has no surprise recorded (records written before the field) or its
// mean is 0. The expected copies of the policy samples add up to their number.
std::vector<int> surprise_copies(const xqzero::GameRecord& game, bool fast_value_targets, double weight);

// `positions` with each one repeated copies[i] times (0 drops it), in order.
std::vector<TrainingPosition> with_copies(const std::vector<TrainingPosition>& positions,
                                          const std::vector<int>& copies);

}  // namespace xq::training
