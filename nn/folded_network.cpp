#include "nn/folded_network.h"

#include <map>
#include <stdexcept>
#include <string>

#include "nn/net_config.h"
#include "nn/planes.h"

namespace xq::nn {

namespace {

// The module's floating-point parameters and buffers by name, in float64 on CPU; take()
// removes what it returns, so what is left at the end is what the folding does not know.
class Source {
 public:
  explicit Source(const Network& net) {
    torch::NoGradGuard no_grad;
    for (const auto& p : net->named_parameters(true))
      tensors_[p.key()] = p.value().detach().to(torch::kCPU, torch::kDouble);
    for (const auto& b : net->named_buffers(true))
      if (b.value().is_floating_point()) tensors_[b.key()] = b.value().detach().to(torch::kCPU, torch::kDouble);
    for (const auto& m : net->named_modules("", /*include_self=*/false))
      if (const auto* bn = dynamic_cast<const torch::nn::BatchNorm2dImpl*>(m.value().get()))
        eps_[m.key()] = bn->options.eps();
  }

  bool has(const std::string& name) const { return tensors_.count(name) > 0; }

  torch::Tensor take(const std::string& name) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw std::invalid_argument("FoldedNetwork: the network has no tensor '" + name + "'");
    torch::Tensor t = it->second;
    tensors_.erase(it);
    return t;
  }

  double eps(const std::string& bn) const {
    auto it = eps_.find(bn);
    if (it == eps_.end()) throw std::invalid_argument("FoldedNetwork: '" + bn + "' is not a BatchNorm2d");
    return it->second;
  }

  void check_all_taken() const {
    if (tensors_.empty()) return;
    std::string names;
    for (const auto& [name, t] : tensors_) names += (names.empty() ? "" : ", ") + name;
    throw std::invalid_argument("FoldedNetwork: the network has tensors the folded copy does not know (" + names +
                                "); update nn/folded_network.cpp with nn/network.cpp");
  }

 private:
  std::map<std::string, torch::Tensor> tensors_;
  std::map<std::string, double> eps_;
};

}  // namespace

torch::Tensor FoldedNetwork::Conv::operator()(const torch::Tensor& x) const {
  return torch::conv2d(x, weight, bias, torch::IntArrayRef{1, 1}, torch::IntArrayRef{padding, padding});
}

torch::Tensor FoldedNetwork::Linear::operator()(const torch::Tensor& x) const { return torch::linear(x, weight, bias); }

FoldedNetwork::FoldedNetwork(const Network& net, const torch::Device& device, torch::ScalarType dtype,
                             bool channels_last)
    : config_(net->config()), dtype_(dtype), channels_last_(channels_last) {
  torch::NoGradGuard no_grad;
  Source src(net);
  auto finish_conv = [&](torch::Tensor w, torch::Tensor b) {
    Conv c;
    c.padding = w.size(2) / 2;  // network.cpp: "same" padding for odd kernels
    c.weight = w.to(device, dtype);
    if (channels_last) c.weight = c.weight.contiguous(torch::MemoryFormat::ChannelsLast);
    c.bias = b.to(device, dtype);
    return c;
  };
  // conv then eval-mode BatchNorm -> one convolution with a bias.
  auto fold = [&](const std::string& conv, const std::string& bn) {
    torch::Tensor w = src.take(conv + ".weight");
    torch::Tensor b = src.has(conv + ".bias") ? src.take(conv + ".bias") : torch::zeros({w.size(0)}, w.options());
    torch::Tensor gamma = src.take(bn + ".weight"), beta = src.take(bn + ".bias");
    torch::Tensor mean = src.take(bn + ".running_mean"), var = src.take(bn + ".running_var");
    torch::Tensor scale = gamma / torch::sqrt(var + src.eps(bn));
    return finish_conv(w * scale.view({-1, 1, 1, 1}), beta + (b - mean) * scale);
  };
  auto linear = [&](const std::string& name) {
    Linear l;
    l.weight = src.take(name + ".weight").to(device, dtype);
    l.bias = src.take(name + ".bias").to(device, dtype);
    return l;
  };

  stem_ = fold("stem", "stem_bn");
  for (int i = 0; i < config_.blocks(); ++i) {
    const std::string p = "block" + std::to_string(i) + "_";
    Block b;
    b.conv1 = fold(p + "conv1", p + "bn1");
    b.conv2 = fold(p + "conv2", p + "bn2");
    if (config_.se()) {
      b.se1 = linear(p + "se1");
      b.se2 = linear(p + "se2");
    }
    blocks_.push_back(b);
  }
  policy_conv_ = fold("policy_conv", "policy_bn");
  policy_out_ = finish_conv(src.take("policy_out.weight"), src.take("policy_out.bias"));
  value_conv_ = fold("value_conv", "value_bn");
  value_fc1_ = linear("value_fc1");
  value_fc2_ = linear("value_fc2");
  if (config_.material_head()) {  // a training-only head: search never reads it
    src.take("material_fc.weight");
    src.take("material_fc.bias");
  }
  if (config_.short_value_head()) {  // training-only as well
    src.take("short_value_fc.weight");
    src.take("short_value_fc.bias");
  }
  if (config_.soft_policy_head()) {  // and this one
    src.take("soft_policy_out.weight");
    src.take("soft_policy_out.bias");
  }
  if (config_.reply_policy_head()) {  // and this one
    src.take("reply_policy_out.weight");
    src.take("reply_policy_out.bias");
  }
  src.check_all_taken();
}

std::pair<torch::Tensor, torch::Tensor> FoldedNetwork::forward_compact(const torch::Tensor& compact) const {
  const torch::Tensor x = tower(planes(compact));
  return {policy(x), value(x)};
}

torch::Tensor FoldedNetwork::planes(const torch::Tensor& compact) const {
  torch::Tensor x = expand_planes(compact, plane_layout(config_), dtype_);
  return channels_last_ ? x.contiguous(torch::MemoryFormat::ChannelsLast) : x;
}

torch::Tensor FoldedNetwork::tower(torch::Tensor x) const {
  x = stem_(x).relu_();
  for (const Block& b : blocks_) {
    torch::Tensor y = b.conv2(b.conv1(x).relu_());
    if (b.se1.weight.defined()) {
      torch::Tensor g = b.se2(b.se1(y.mean({2, 3})).relu_());
      auto parts = g.chunk(2, 1);
      y = y * torch::sigmoid(parts[0]).unsqueeze(-1).unsqueeze(-1) + parts[1].unsqueeze(-1).unsqueeze(-1);
    }
    x = y.add_(x).relu_();
  }
  return x;
}

torch::Tensor FoldedNetwork::policy(const torch::Tensor& x) const {
  return policy_out_(policy_conv_(x).relu_()).reshape({x.size(0), -1});
}

torch::Tensor FoldedNetwork::value(const torch::Tensor& x) const {
  torch::Tensor v = value_conv_(x).relu_().reshape({x.size(0), -1});
  if (config_.global_pool()) {
    // Pooled over one flattened axis: mean and amax over {2, 3} of a channels-last bfloat16
    // tensor were the slow part of the value head on an AMX Xeon (0.43-0.49 ms of a 2.5 ms
    // batch of 64; 0.36-0.37 ms so, `bench nn --breakdown`).
    const torch::Tensor xf = x.reshape({x.size(0), x.size(1), -1});
    v = torch::cat({v, xf.mean(2), std::get<0>(xf.max(2))}, 1);
  }
  return value_fc2_(value_fc1_(v).relu_());
}

}  // namespace xq::nn
