// The trainer: the network being learned, its optimiser and schedule, one step per batch
// of TrainingPositions, and checkpoints that carry everything needed to resume.
//
// Losses: policy cross-entropy against the search's target (a softmax over the position's
// legal moves, or with legal_policy_loss off over every label), W/D/L cross-entropy against
// the game result (optionally mixed with the search's root W/D/L; length-capped games per
// capped_value_target), with network.material_head the auxiliary material regression, with
// network.short_value_head the auxiliary short-term value regression, with
// network.soft_policy_head the auxiliary soft policy cross-entropy (both policy losses, and
// their floor below, weigh each sample by its policy_weight: 1 unless sampling by surprise
// sets it), with network.reply_policy_head the auxiliary cross-entropy of the opponent's reply
// (unweighted, over the samples a move followed), and L2 regularisation through the optimiser's weight decay (logged as
// 0.5 * weight_decay * sum of squared weights). Each step also reports the baselines the
// losses are read against: the entropy of the policy targets (the policy loss's floor; the
// loss minus it is the KL from the net to the targets) and the entropy of the batch's mean
// W/D/L target (what a net that knew only the class frequencies would score).
// Optimisers: SGD with Nesterov momentum, or AdamW. Schedules: constant, step, cosine.
// Gradient-norm clipping. Under precision bfloat16 (the default on CUDA and on CPUs with native
// bfloat16) the tower runs under bfloat16 autocast; the heads and the losses in float32.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "config.pb.h"
#include "training/training_position.h"

namespace xq::training {

class Collective;

struct StepLosses {
  double policy = 0, value = 0, material = 0, short_value = 0, soft_policy = 0, reply_policy = 0, regularisation = 0,
         learning_rate = 0;
  double policy_entropy = 0;  // mean entropy of the policy targets (each by its policy_weight)
  double value_entropy = 0;   // entropy of the mean W/D/L target (class-frequency baseline)
};

class Trainer {
 public:
  Trainer(const xqzero::NetworkConfig& network, const xqzero::TrainingConfig& training);
  ~Trainer();

  // One optimiser step. The regularisation figure costs a pass over the weights, so it is
  // computed only when asked for.
  StepLosses step(const std::vector<TrainingPosition>& batch, bool with_regularisation = false);
  // One step on the mean of the parts' losses, each part its own forward pass with its own
  // BatchNorm batch statistics: what parts.size() data-parallel ranks compute together, each
  // on its part (the reference of the data-parallel test). Losses are the parts' means.
  StepLosses step_split(const std::vector<std::vector<TrainingPosition>>& parts, bool with_regularisation = false);

  // Data-parallel training: from now on every step averages its gradients over the ranks of
  // `collective` (which must outlive the trainer's steps), and the samples trained count all
  // ranks' batches. Called by every rank at the same point; all take rank 0's weights.
  void join(Collective& collective);
  // Makes the BatchNorm running statistics (each rank's own) the ranks' mean; every rank
  // calls it, before rank 0 saves a checkpoint. Nothing without a collective.
  void average_buffers();
  // A checksum of every weight and buffer: equal on every rank of a data-parallel run.
  uint64_t weights_checksum() const;

  // The same losses without training (evaluation mode, no gradient): held-out figures.
  StepLosses measure(const std::vector<TrainingPosition>& batch);
  int64_t steps() const;
  int64_t samples_trained() const;
  double learning_rate_at(int64_t step) const;
  std::string device_name() const;

  // Checkpoint: weights, optimiser state, step, trained-sample count and the sampler's RNG.
  // With training.ema_decay > 0 the checkpoint's network is the moving average of the trained
  // weights (updated after every step) and the trained weights go in a section of their own.
  void save(const std::string& path, const std::string& note, const std::mt19937_64& rng) const;
  // Restores all of it; throws nn::CheckpointError when the file is bad or the architecture
  // differs. A checkpoint without trainer state (a bare network) loads its weights only.
  void load(const std::string& path, std::mt19937_64& rng);

  // Raw forward+backward time of the bare network on prepared tensors, for `xqzero bench
  // train`: positions per second over `seconds` on copies of `batch`.
  double raw_throughput(const std::vector<TrainingPosition>& batch, double seconds);

 private:
  StepLosses step_parts(const std::vector<const std::vector<TrainingPosition>*>& parts, bool with_regularisation);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xq::training
