// One training sample, held compactly in memory (at most 256 bytes): the position's compact
// encoding from the side to move's view, the game result and the search's root value from
// that side's view, and the sparse policy target (the kMaxPolicyEntries largest weights,
// quantised to 16 bits; the rest of a long target is dropped and the kept weights are
// renormalised when a batch is built).
#pragma once

#include <cstdint>
#include <vector>

#include "game_record.pb.h"
#include "nn/encoding.h"

namespace xq::training {

constexpr int kMaxPolicyEntries = 38;

struct TrainingPosition {
  nn::Encoding encoding;       // 92 bytes
  int8_t result;               // +1 win, 0 draw, -1 loss for the side to move
  uint8_t n_policy;            // entries used
  uint16_t root_value;         // (value + 1) / 2 * 65535, value = win - loss for the side to move
  uint16_t root_draw;          // draw probability * 65535
  uint16_t labels[kMaxPolicyEntries];
  uint16_t weights[kMaxPolicyEntries];  // weight * 65535, largest first
};
static_assert(sizeof(TrainingPosition) <= 256, "a training position must stay within 256 bytes");

// The training targets of one recorded game, in move order (only moves marked as training
// targets). Throws std::runtime_error when the record is inconsistent (a bad FEN or move).
std::vector<TrainingPosition> positions_of(const xqzero::GameRecord& record);

// The left-right mirror image of a sample (board and policy labels).
TrainingPosition mirrored(const TrainingPosition& p);

}  // namespace xq::training
