// An inference-only copy of a Network with every BatchNorm folded into the convolution before
// it (include only from torch translation units; used by the torch backend, nn/torch_evaluator.h).
//
// In eval mode a BatchNorm is a per-channel affine map, so conv-then-BN equals one convolution
// with weights w * s and bias beta + (b - mean) * s, where s = gamma / sqrt(var + eps). The
// folded weights are computed in float64 from the float32 module, then cast to the target
// dtype (and to channels-last memory format when asked), and forward() repeats
// NetworkImpl::forward without the BatchNorms. Reason: in bfloat16 on CPU (LibTorch 1.13,
// channels-last) folding made 3x32 and 6x64 nets 1.16-1.47x faster, in float32 0.98-1.25x
// (README, Benchmarks).
//
// forward() must stay equal to NetworkImpl::forward: the constructor maps every parameter and
// buffer of the module by name and throws std::invalid_argument naming any it does not know
// (a layer added to the network and not here), and tests/nn/folded_network_test.cpp compares
// the two in float32 for every architecture option.
#pragma once

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "nn/network.h"

namespace xq::nn {

class FoldedNetwork {
 public:
  // `net` is read, never changed (its own device and dtype do not matter).
  FoldedNetwork(const Network& net, const torch::Device& device, torch::ScalarType dtype, bool channels_last);

  // As NetworkImpl::forward_compact: compact uint8 [B, compact_width] on the device ->
  // (policy map [B, kPolicyPlanes * 90], wdl logits [B, 3]) in this net's dtype.
  std::pair<torch::Tensor, torch::Tensor> forward_compact(const torch::Tensor& compact) const;
  // forward_compact in its stages (it is value(tower(planes(compact))) and policy of the same
  // features), for the benchmark's breakdown: the input planes in this net's dtype and memory
  // format; the tower's features; the policy map; the W/D/L logits.
  torch::Tensor planes(const torch::Tensor& compact) const;
  torch::Tensor tower(torch::Tensor x) const;
  torch::Tensor policy(const torch::Tensor& features) const;
  torch::Tensor value(const torch::Tensor& features) const;

  torch::ScalarType dtype() const { return dtype_; }
  bool channels_last() const { return channels_last_; }

 private:
  struct Conv {
    torch::Tensor weight, bias;
    int64_t padding = 0;
    torch::Tensor operator()(const torch::Tensor& x) const;
  };
  struct Linear {
    torch::Tensor weight, bias;
    torch::Tensor operator()(const torch::Tensor& x) const;
  };
  struct Block {
    Conv conv1, conv2;
    Linear se1, se2;  // undefined tensors without squeeze-excitation
  };

  xqzero::NetworkConfig config_;
  torch::ScalarType dtype_;
  bool channels_last_;
  Conv stem_;
  std::vector<Block> blocks_;
  Conv policy_conv_, policy_out_, value_conv_;
  Linear value_fc1_, value_fc2_;
};

}  // namespace xq::nn
