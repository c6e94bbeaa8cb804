// A trainer's batch (training/trainer.cpp): the targets of a list of TrainingPositions as host
// tensors, with the baselines its losses are read against. Internal to the trainer (it brings
// in torch); tested through the trainer's losses.
#ifndef XQ_TRAINING_TRAINER_BATCH_H
#define XQ_TRAINING_TRAINER_BATCH_H

#include <torch/torch.h>

#include <vector>

#include "config.pb.h"
#include "training/training_position.h"

namespace xq::training {

// A prepared batch: host tensors first, then moved to the trainer's device.
struct Batch {
  torch::Tensor compact;       // uint8 [B, compact width]: the encoding, then the attack map if used
  torch::Tensor policy;        // float [B, labels]: target weights, summing per row to the sample's
                               // policy_weight (1 unless sampling by surprise weighs it; 0 in a
                               // value-only sample's row)
  double policy_rows = 0;      // the samples with a policy target
  torch::Tensor soft_policy;   // float [B, labels]: the policy target ^ kSoftPolicyPower, renormalised
                               // to the row's policy_weight
                               // (undefined without network.soft_policy_head)
  torch::Tensor reply;         // int64 [B]: the opponent's reply's label (0 where no move followed)
  torch::Tensor reply_weight;  // float [B]: 1 where a move followed, else 0
  double reply_rows = 0;       // the samples a move followed
                               // (reply and reply_weight undefined without network.reply_policy_head)
  torch::Tensor illegal;       // float [B, labels]: 0 for legal moves, -1e9 elsewhere (or undefined)
  torch::Tensor wdl;           // float [B, 3]
  torch::Tensor value_weight;  // float [B]: 1, or 0 for a value target dropped
  torch::Tensor material;      // float [B]: material balance / 10 half-pawns
  torch::Tensor short_value;   // float [B]: the short-term value target in [-1, 1]
  double policy_entropy = 0;   // mean over the samples with a policy target, each by its weight
  double value_entropy = 0;    // of the mean W/D/L target
};

// The batch of `batch` for a net of `network`: the policy target (and the soft one with
// network.soft_policy_head, the opponent's reply with network.reply_policy_head), the W/D/L target as config's root_value_mix and
// capped_value_target say, the auxiliary heads' targets, and the illegal-move mask with
// legal_policy_loss. Host tensors.
Batch build_batch(const std::vector<TrainingPosition>& batch, const xqzero::NetworkConfig& network,
                  const xqzero::TrainingConfig& config);

}  // namespace xq::training

#endif  // XQ_TRAINING_TRAINER_BATCH_H
