#include "nn/network.h"

#include <stdexcept>

#include "nn/blas.h"
#include "nn/net_config.h"
#include "nn/planes.h"
#include "nn/policy_labels.h"

namespace xq::nn {

namespace F = torch::nn::functional;
using torch::nn::BatchNorm2d;
using torch::nn::Conv2d;
using torch::nn::Conv2dOptions;
using torch::nn::Linear;

namespace {

Conv2d conv(int in, int out, int k, bool bias) { return Conv2d(Conv2dOptions(in, out, k).padding(k / 2).bias(bias)); }

}  // namespace

NetworkImpl::NetworkImpl(const xqzero::NetworkConfig& config) : config_(config) {
  validate(config_);
  blas_info();  // before any linear layer runs: OpenBLAS's pthread flavour set to one thread (nn/blas.h)
  const int c = config_.channels();
  stem_ = register_module("stem", conv(input_planes(plane_layout(config_)), c, 3, false));
  stem_bn_ = register_module("stem_bn", BatchNorm2d(c));
  for (int i = 0; i < config_.blocks(); ++i) {
    Block b;
    const std::string p = "block" + std::to_string(i) + "_";
    b.conv1 = register_module(p + "conv1", conv(c, c, 3, false));
    b.bn1 = register_module(p + "bn1", BatchNorm2d(c));
    b.conv2 = register_module(p + "conv2", conv(c, c, 3, false));
    b.bn2 = register_module(p + "bn2", BatchNorm2d(c));
    if (config_.se()) {
      const int hidden = c / config_.se_ratio();
      b.se1 = register_module(p + "se1", Linear(c, hidden));
      b.se2 = register_module(p + "se2", Linear(hidden, 2 * c));
    }
    blocks_.push_back(b);
  }
  policy_conv_ = register_module("policy_conv", conv(c, c, 3, false));
  policy_bn_ = register_module("policy_bn", BatchNorm2d(c));
  policy_out_ = register_module("policy_out", conv(c, kPolicyPlanes, 1, true));
  if (config_.soft_policy_head()) soft_policy_out_ = register_module("soft_policy_out", conv(c, kPolicyPlanes, 1, true));
  if (config_.reply_policy_head())
    reply_policy_out_ = register_module("reply_policy_out", conv(c, kPolicyPlanes, 1, true));
  const int vc = config_.value_channels();
  value_conv_ = register_module("value_conv", conv(c, vc, 1, false));
  value_bn_ = register_module("value_bn", BatchNorm2d(vc));
  const int value_in = vc * SQUARE_NB + (config_.global_pool() ? 2 * c : 0);
  value_fc1_ = register_module("value_fc1", Linear(value_in, config_.value_hidden()));
  value_fc2_ = register_module("value_fc2", Linear(config_.value_hidden(), 3));
  if (config_.material_head()) material_fc_ = register_module("material_fc", Linear(config_.value_hidden(), 1));
  if (config_.short_value_head())
    short_value_fc_ = register_module("short_value_fc", Linear(config_.value_hidden(), 1));
}

std::pair<torch::Tensor, torch::Tensor> NetworkImpl::forward(torch::Tensor planes) {
  Heads h = heads(tower(std::move(planes)), false);
  return {h.policy, h.wdl};
}

NetworkImpl::Heads NetworkImpl::forward_heads(const torch::Tensor& compact) {
  return heads(tower(expand_planes(compact, plane_layout(config_), stem_->weight.scalar_type())), true);
}

torch::Tensor NetworkImpl::tower(torch::Tensor x) {
  x = torch::relu(stem_bn_(stem_(x)));
  for (Block& b : blocks_) {
    torch::Tensor y = torch::relu(b.bn1(b.conv1(x)));
    y = b.bn2(b.conv2(y));
    if (b.se1) {
      torch::Tensor g = b.se2(torch::relu(b.se1(y.mean({2, 3}))));
      auto parts = g.chunk(2, 1);
      y = y * torch::sigmoid(parts[0]).unsqueeze(-1).unsqueeze(-1) + parts[1].unsqueeze(-1).unsqueeze(-1);
    }
    x = torch::relu(x + y);
  }
  return x;
}

NetworkImpl::Heads NetworkImpl::heads(const torch::Tensor& x, bool with_aux) {
  Heads out = value_heads(x, with_aux);
  const torch::Tensor hidden = policy_hidden(x);
  out.policy = policy_out_(hidden).reshape({x.size(0), -1});
  if (with_aux && soft_policy_out_) out.soft_policy = soft_policy_out_(hidden).reshape({x.size(0), -1});
  // The opponent's labels are in its view, whose ranks run the other way (nn/encoding.h): the
  // map is flipped upside down, so a move's logit is read at its from-square on our board.
  if (with_aux && reply_policy_out_) out.reply_policy = reply_policy_out_(hidden).flip({2}).reshape({x.size(0), -1});
  return out;
}

torch::Tensor NetworkImpl::policy_hidden(const torch::Tensor& x) { return torch::relu(policy_bn_(policy_conv_(x))); }

torch::Tensor NetworkImpl::policy_head(const torch::Tensor& x) {
  return policy_out_(policy_hidden(x)).reshape({x.size(0), -1});
}

NetworkImpl::Heads NetworkImpl::value_heads(const torch::Tensor& x, bool with_aux) {
  torch::Tensor v = torch::relu(value_bn_(value_conv_(x))).reshape({x.size(0), -1});
  if (config_.global_pool()) v = torch::cat({v, x.mean({2, 3}), x.amax({2, 3})}, 1);
  const torch::Tensor hidden = torch::relu(value_fc1_(v));
  Heads out;
  out.wdl = value_fc2_(hidden);
  if (with_aux && material_fc_) out.material = material_fc_(hidden).squeeze(1);
  if (with_aux && short_value_fc_) out.short_value = torch::tanh(short_value_fc_(hidden)).squeeze(1);
  return out;
}

std::pair<torch::Tensor, torch::Tensor> NetworkImpl::forward_compact(const torch::Tensor& compact) {
  return forward(expand_planes(compact, plane_layout(config_), stem_->weight.scalar_type()));
}

int64_t NetworkImpl::parameter_count() const {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

torch::Tensor expand_planes(const torch::Tensor& compact, PlaneLayout layout, torch::ScalarType dtype) {
  const int64_t batch = compact.size(0);
  const int boards = layout.history + 1;
  if (compact.dim() != 2 || compact.size(1) != compact_width(layout))
    throw std::invalid_argument("expand_planes: compact batch has the wrong width");
  const auto opts = torch::TensorOptions().device(compact.device());
  // [B, boards, 1, 90] == [1, 1, 14, 1] codes 1..14 -> [B, boards, 14, 90]
  torch::Tensor squares = compact.narrow(1, 0, SQUARE_NB * boards).reshape({batch, boards, 1, SQUARE_NB});
  torch::Tensor codes = torch::arange(1, kPlanesPerBoard + 1, opts.dtype(torch::kUInt8)).view({1, 1, -1, 1});
  torch::Tensor pieces = squares.eq(codes).to(dtype).view({batch, boards * kPlanesPerBoard, RANK_NB, FILE_NB});
  torch::Tensor scalars = compact.narrow(1, SQUARE_NB * boards, 2).to(torch::kFloat);
  torch::Tensor rep = scalars.select(1, 0), half = scalars.select(1, 1);
  torch::Tensor s = torch::stack({rep.ge(1).to(torch::kFloat), rep.ge(2).to(torch::kFloat),
                                  half / float(kHalfmoveScale), torch::ones_like(rep)},
                                 1)
                        .to(dtype)
                        .view({batch, kScalarPlanes, 1, 1})
                        .expand({batch, kScalarPlanes, RANK_NB, FILE_NB});
  if (!layout.attacks) return torch::cat({pieces, s}, 1);
  // attack map bytes: own count in bits 0-1, opponent count in bits 2-3 (nn/attack_map.h)
  const torch::Tensor map = compact.narrow(1, attack_offset(layout), SQUARE_NB);
  const torch::Tensor own = map.bitwise_and(3);
  const torch::Tensor attacks = torch::stack({own.ge(1), own.ge(2), map.ge(4), map.ge(8)}, 1)
                                    .to(dtype)
                                    .view({batch, kAttackPlanes, RANK_NB, FILE_NB});
  return torch::cat({pieces, s, attacks}, 1);
}

torch::Tensor label_logits(const torch::Tensor& policy_map) {
  static const std::vector<int64_t> index = [] {
    std::vector<int64_t> v(kNumLabels);
    for (int l = 0; l < kNumLabels; ++l) v[size_t(l)] = label_policy_index(l);
    return v;
  }();
  torch::Tensor idx = torch::tensor(index, torch::TensorOptions().dtype(torch::kLong)).to(policy_map.device());
  return policy_map.index_select(1, idx);
}

namespace {

using NamedTensors = torch::OrderedDict<std::string, torch::Tensor>;

// Throws unless `from` and `into` hold tensors of the same names and shapes.
void check_same_layout(const NamedTensors& from, const NamedTensors& into, const char* kind) {
  for (const auto& f : from) {
    const torch::Tensor* target = into.find(f.key());
    if (target == nullptr)
      throw std::invalid_argument(std::string("copy_weights: the target network has no ") + kind + " " + f.key());
    if (target->sizes() != f.value().sizes())
      throw std::invalid_argument(std::string("copy_weights: ") + kind + " " + f.key() + " has another shape in the target network");
  }
  for (const auto& t : into)
    if (from.find(t.key()) == nullptr)
      throw std::invalid_argument(std::string("copy_weights: the source network has no ") + kind + " " + t.key());
}

}  // namespace

void copy_weights(const Network& from, Network& into) {
  torch::NoGradGuard no_grad;
  const NamedTensors from_params = from->named_parameters(true), into_params = into->named_parameters(true);
  const NamedTensors from_buffers = from->named_buffers(true), into_buffers = into->named_buffers(true);
  check_same_layout(from_params, into_params, "parameter");
  check_same_layout(from_buffers, into_buffers, "buffer");
  for (const auto& f : from_params) into_params[f.key()].copy_(f.value());
  for (const auto& f : from_buffers) into_buffers[f.key()].copy_(f.value());
}

Network clone_network(const Network& net) {
  Network copy(net->config());
  copy_weights(net, copy);
  copy->train(net->is_training());
  return copy;
}

Network make_network(const xqzero::NetworkConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  return Network(config);
}

}  // namespace xq::nn
