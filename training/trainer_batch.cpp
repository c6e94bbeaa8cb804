#include "training/trainer_batch.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/game.h"
#include "nn/attack_map.h"
#include "nn/net_config.h"
#include "nn/planes.h"
#include "nn/policy_labels.h"

namespace xq::training {

namespace {

constexpr float kMaterialScale = 10.0f;
constexpr double kSoftPolicyPower = 0.25;  // KataGo's soft policy target raises the target to 1/4

// The value target of one sample: the result, mixed with the root W/D/L; for a length-capped
// game as capped_value_target says. Returns false when the value target is dropped.
bool value_target(const TrainingPosition& s, const xqzero::TrainingConfig& config, float z[3]) {
  const float q = float(s.root_value) / 65535.0f * 2 - 1, d = float(s.root_draw) / 65535.0f;
  const float root[3] = {std::max(0.0f, (1 - d + q) / 2), d, std::max(0.0f, (1 - d - q) / 2)};
  float mix = config.root_value_mix();
  if (s.termination == uint8_t(Termination::LENGTH_CAP)) {
    if (config.capped_value_target() == "drop") return false;
    if (config.capped_value_target() == "root") mix = 1;
  }
  const float r[3] = {s.result > 0 ? 1.0f : 0.0f, s.result == 0 ? 1.0f : 0.0f, s.result < 0 ? 1.0f : 0.0f};
  for (int k = 0; k < 3; ++k) z[k] = (1 - mix) * r[k] + mix * root[k];
  return true;
}

}  // namespace

Batch build_batch(const std::vector<TrainingPosition>& batch, const xqzero::NetworkConfig& network,
                  const xqzero::TrainingConfig& config) {
  const int64_t n = int64_t(batch.size());
  Batch b;
  // Training nets have no history (train_loop checks), so a position's compact bytes are its
  // Encoding followed by the attack map when the net uses one (nn/planes.h).
  const nn::PlaneLayout layout = nn::plane_layout(network);
  const int64_t width = nn::compact_width(layout);
  b.compact = torch::empty({n, width}, torch::kUInt8);
  b.policy = torch::zeros({n, nn::kNumLabels}, torch::kFloat32);
  const bool soft = network.soft_policy_head();
  if (soft) b.soft_policy = torch::zeros({n, nn::kNumLabels}, torch::kFloat32);
  float* sp = soft ? b.soft_policy.data_ptr<float>() : nullptr;
  const bool reply = network.reply_policy_head();
  if (reply) {
    b.reply = torch::zeros({n}, torch::kInt64);
    b.reply_weight = torch::zeros({n}, torch::kFloat32);
  }
  int64_t* rl = reply ? b.reply.data_ptr<int64_t>() : nullptr;
  float* rw = reply ? b.reply_weight.data_ptr<float>() : nullptr;
  const bool legal_only = config.legal_policy_loss();
  if (legal_only) b.illegal = torch::full({n, nn::kNumLabels}, -1e9f, torch::kFloat32);
  b.wdl = torch::zeros({n, 3}, torch::kFloat32);
  b.value_weight = torch::ones({n}, torch::kFloat32);
  b.material = torch::empty({n}, torch::kFloat32);
  b.short_value = torch::empty({n}, torch::kFloat32);
  uint8_t* c = b.compact.data_ptr<uint8_t>();
  float* p = b.policy.data_ptr<float>();
  float* mask = legal_only ? b.illegal.data_ptr<float>() : nullptr;
  float* v = b.wdl.data_ptr<float>();
  float* vw = b.value_weight.data_ptr<float>();
  float* mat = b.material.data_ptr<float>();
  float* stv = b.short_value.data_ptr<float>();
  double entropy = 0, mean_wdl[3] = {0, 0, 0}, kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const TrainingPosition& s = batch[size_t(i)];
    std::memcpy(c + i * width, &s.encoding, sizeof(nn::Encoding));
    if (layout.attacks) nn::attack_map(s.encoding.squares, c + i * width + nn::attack_offset(layout));
    if (rl && s.reply_label != kNoReply) {
      rl[i] = s.reply_label;
      rw[i] = 1;
      ++b.reply_rows;
    }
    float sum = 0;
    for (int k = 0; k < s.n_policy; ++k) sum += float(s.weights[k]);
    if (sum > 0) ++b.policy_rows;
    // The row's policy losses weigh policy_weight (sampling by surprise): its targets are
    // scaled, so the cross-entropy and the entropy floor both carry the weight.
    const double row_weight = double(s.policy_weight) / kUnitPolicyWeight;
    if (sp && sum > 0) {  // (w / sum)^p renormalised is w^p renormalised
      double soft[kMaxPolicyEntries], soft_sum = 0;
      for (int k = 0; k < s.n_policy; ++k) soft_sum += soft[k] = std::pow(double(s.weights[k]), kSoftPolicyPower);
      for (int k = 0; k < s.n_policy; ++k)
        sp[i * nn::kNumLabels + s.labels[k]] += float(row_weight * soft[k] / soft_sum);
    }
    for (int k = 0; k < s.n_policy; ++k) {
      if (mask) mask[i * nn::kNumLabels + s.labels[k]] = 0;
      if (sum <= 0 || s.weights[k] == 0) continue;
      const float w = float(s.weights[k]) / sum;
      p[i * nn::kNumLabels + s.labels[k]] += float(row_weight * w);
      entropy -= row_weight * double(w) * std::log(double(w));
    }
    float z[3];
    if (!value_target(s, config, z)) {
      vw[i] = 0;
      z[0] = z[2] = 0;
      z[1] = 1;
    } else {
      for (int k = 0; k < 3; ++k) mean_wdl[k] += z[k];
      ++kept;
    }
    for (int k = 0; k < 3; ++k) v[i * 3 + k] = z[k];
    mat[i] = float(s.material) / kMaterialScale;
    stv[i] = float(s.short_value) / 32767.0f;
  }
  b.policy_entropy = b.policy_rows > 0 ? entropy / b.policy_rows : 0;
  for (double m : mean_wdl)
    if (m > 0) b.value_entropy -= m / kept * std::log(m / kept);
  return b;
}

}  // namespace xq::training
