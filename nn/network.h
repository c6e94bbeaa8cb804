// The policy/value network (LibTorch). Include only from the few torch translation units.
//
// Input: the compact batch (nn/planes.h), uint8 [B, compact_width(layout)], expanded to
// float planes [B, input_planes(layout), 10, 9] on the net's own device by expand_planes.
// Tower: 3x3 conv stem, then `blocks` residual blocks (conv3x3-BN-ReLU-conv3x3-BN, optional
// squeeze-excitation giving a per-channel scale and bias, skip connection, ReLU), `channels`
// wide. Convolutions before a BatchNorm have no bias.
// Policy head: conv3x3-BN-ReLU, then a 1x1 conv to kPolicyPlanes move-type planes; the
// label logits are gathered from that map (nn/policy_labels.h label_policy_index), so the
// head is small and translation-aware. Value head: 1x1 conv to value_channels, BN, ReLU,
// flatten (with global_pool also the tower's per-channel mean and max), FC value_hidden,
// ReLU, FC 3 = win/draw/loss logits. With material_head, a linear read-out of that hidden
// layer predicts the material balance a few plies later, and with short_value_head a tanh
// read-out of it the short-term value, and with soft_policy_head a second 1x1 conv on the
// policy head's hidden layer the soft policy, and with reply_policy_head a third one, flipped
// to the opponent's view, the opponent's reply (auxiliary training targets that search never
// uses).
// Precision: float32, or bfloat16 (CPU or CUDA) and float16 (CUDA only) for inference; on CPU
// the evaluator runs bfloat16 through a BatchNorm-folded, channels-last copy of the net
// (nn/folded_network.h). The masked softmax is always computed in float32.
#pragma once

#include <torch/torch.h>

#include <utility>

#include "config.pb.h"
#include "nn/planes.h"

namespace xq::nn {

class NetworkImpl : public torch::nn::Module {
 public:
  explicit NetworkImpl(const xqzero::NetworkConfig& config);

  // planes [B, input_planes, 10, 9] -> (policy map [B, kPolicyPlanes * 90], wdl logits [B, 3]).
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor planes);
  // compact uint8 [B, compact_width] on the net's device -> as forward().
  std::pair<torch::Tensor, torch::Tensor> forward_compact(const torch::Tensor& compact);

  // Every head, for training: the material prediction [B] is undefined without material_head,
  // the short-term value [B] (in [-1, 1]) without short_value_head, the soft policy map (as
  // policy) without soft_policy_head, the reply policy map (as policy, but gathered with the
  // opponent's labels) without reply_policy_head.
  struct Heads {
    torch::Tensor policy, wdl, material, short_value, soft_policy, reply_policy;
  };
  Heads forward_heads(const torch::Tensor& compact);
  // forward_heads in parts, so a trainer can run them in different precisions: the tower
  // (stem and residual blocks) on input planes -> features [B, channels, 10, 9]; the heads on
  // those features: every head, the policy map alone, or the value and auxiliary heads alone
  // (policy undefined; the auxiliary heads only when asked and present).
  torch::Tensor tower(torch::Tensor planes);
  Heads heads(const torch::Tensor& features, bool with_aux);
  torch::Tensor policy_head(const torch::Tensor& features);
  Heads value_heads(const torch::Tensor& features, bool with_aux);

  const xqzero::NetworkConfig& config() const { return config_; }
  int64_t parameter_count() const;

 private:
  // The policy head's hidden layer (3x3 conv, BN, ReLU), shared by the policy outputs.
  torch::Tensor policy_hidden(const torch::Tensor& features);
  struct Block {
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
    torch::nn::Linear se1{nullptr}, se2{nullptr};
  };
  xqzero::NetworkConfig config_;
  torch::nn::Conv2d stem_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  std::vector<Block> blocks_;
  torch::nn::Conv2d policy_conv_{nullptr}, policy_out_{nullptr}, soft_policy_out_{nullptr}, reply_policy_out_{nullptr};
  torch::nn::BatchNorm2d policy_bn_{nullptr};
  torch::nn::Conv2d value_conv_{nullptr};
  torch::nn::BatchNorm2d value_bn_{nullptr};
  torch::nn::Linear value_fc1_{nullptr}, value_fc2_{nullptr};
  torch::nn::Linear material_fc_{nullptr};
  torch::nn::Linear short_value_fc_{nullptr};
};
TORCH_MODULE(Network);

// Expands a compact batch (nn/planes.h) to input planes of `dtype` on the batch's device.
torch::Tensor expand_planes(const torch::Tensor& compact, PlaneLayout layout, torch::ScalarType dtype);

// Dense label logits [B, kNumLabels] from a policy map (for training losses).
torch::Tensor label_logits(const torch::Tensor& policy_map);

// A new network of the same architecture with copies of every parameter and buffer (on CPU).
Network clone_network(const Network& net);

// Copies every parameter and buffer of `from` into `into` in place, by name, across devices.
// Throws std::invalid_argument, before copying anything, naming the first tensor the two nets
// do not share in name and shape.
void copy_weights(const Network& from, Network& into);

// A fresh network with weights drawn from torch's generator seeded with `seed`.
Network make_network(const xqzero::NetworkConfig& config, uint64_t seed);

}  // namespace xq::nn
