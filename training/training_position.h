// One training sample, held compactly in memory: the position's compact encoding from the
// side to move's view, the game result and the search's root value from that side's view, how
// the game ended, the material balance a few plies later and the short-term value (auxiliary
// targets), the weight of its policy losses (1 unless sampling by surprise sets it), the
// opponent's reply (the move played next, for the auxiliary reply policy head), and the
// policy target over every legal move (its labels, with weight 0 for the
// moves the search gave no weight, so the trainer can restrict the policy to the legal moves).
//
// The policy entries hold all legal moves, largest weight first, up to kMaxPolicyEntries
// (more legal moves than that never occur in play; a position that had them would keep its
// largest weights). Weights are quantised to 16 bits and renormalised when a batch is built.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/game.h"
#include "game_record.pb.h"
#include "nn/encoding.h"

namespace xq::training {

constexpr int kMaxPolicyEntries = 128;
// A sample's reply_label when no move followed it.
constexpr uint16_t kNoReply = 0xFFFF;
// A sample's policy loss weight in units of 1/kUnitPolicyWeight (up to 65535 / 1024, about 64).
constexpr uint16_t kUnitPolicyWeight = 1024;

// Material in half-pawns: advisor and elephant 4, horse 8, cannon 9, chariot 18, pawn 2
// (4 once across the river). The king counts nothing.
int material_half_pawns(const Position& pos, Color side);

struct TrainingPosition {
  nn::Encoding encoding;  // 92 bytes
  int8_t result;          // +1 win, 0 draw, -1 loss for the side to move
  uint8_t termination;    // how the game ended (core/game.h Termination)
  uint8_t n_policy;       // entries used: the legal moves; 0 for a value-only sample
  int8_t material;        // material balance (half-pawns, side to move's view) at the
                          // auxiliary horizon (kMaterialHorizon plies later, or the end)
  uint16_t root_value;    // (value + 1) / 2 * 65535, value = win - loss for the side to move
  uint16_t root_draw;     // draw probability * 65535
  int16_t short_value;    // the short-term value target * 32767 (kShortValueLambda)
  uint16_t policy_weight = kUnitPolicyWeight;  // the policy losses' weight of this sample *
                                               // kUnitPolicyWeight (training.surprise_by "loss")
  uint16_t reply_label = kNoReply;  // the opponent's next move, labelled in the opponent's view
                                    // (nn/policy_labels.h); kNoReply after the game's last move
  uint16_t labels[kMaxPolicyEntries];
  uint16_t weights[kMaxPolicyEntries];  // weight * 65535, largest first; 0 for unsearched moves
};
static_assert(sizeof(TrainingPosition) == 618, "training/replay_window.h states the size of a position");

// Plies ahead at which the material target is taken (the game's end when it is nearer).
constexpr int kMaterialHorizon = 12;

// The short-term value target of ply t, in the mover's view: G_t = (1 - L) v_t - L G_{t+1},
// with v_t the root value the search found at ply t (win - loss for its mover) and G at the
// game's end its result for the side to move there; the sign flips because the movers
// alternate. So G_t weighs the root values of the plies ahead by (1 - L) L^k (mean horizon
// 1 / (1 - L) = 6 plies) and the result by what is left.
constexpr double kShortValueLambda = 5.0 / 6.0;

// Whether a recorded move carries a policy target (a full search's, with its weights).
bool has_policy_target(const xqzero::MoveRecord& move);
// Whether positions_of makes a sample of a recorded move: a policy target or, with
// `fast_value_targets`, any move (value-only when it has no policy target).
bool is_training_sample(const xqzero::MoveRecord& move, bool fast_value_targets);

// The training samples of one recorded game, in move order: the moves marked as training
// targets and, with `fast_value_targets` (training.fast_value_targets), every other move as a
// value-only sample (n_policy 0: no policy target). Throws std::runtime_error when the record
// is inconsistent (a bad FEN or move).
std::vector<TrainingPosition> positions_of(const xqzero::GameRecord& record, bool fast_value_targets = false);

// Gives `use` each game of `games` (read from the record file `path`) that training can use
// (positions_of accepts it), with its positions; `warn` receives one line for the others,
// naming the file, how many games were skipped and the first one's problem.
using UsePositions = std::function<void(xqzero::GameRecord&& game, std::vector<TrainingPosition>&& positions)>;
void for_each_usable_game(const std::string& path, std::vector<xqzero::GameRecord>& games,
                          const std::function<void(const std::string&)>& warn, const UsePositions& use,
                          bool fast_value_targets = false);

// The left-right mirror image of a sample (board and policy labels).
TrainingPosition mirrored(const TrainingPosition& p);

}  // namespace xq::training
