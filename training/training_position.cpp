#include "training/training_position.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/game.h"
#include "core/move_parse.h"
#include "nn/policy_labels.h"
#include "selfplay/record_io.h"

namespace xq::training {

namespace {
uint16_t quantise(float x) { return uint16_t(std::lround(std::clamp(x, 0.0f, 1.0f) * 65535.0f)); }
}  // namespace

std::vector<TrainingPosition> positions_of(const xqzero::GameRecord& record) {
  Result result;
  if (!parse_result(record.result(), result) || result == Result::ONGOING)
    throw std::runtime_error("game has no final result ('" + record.result() + "')");
  Game game(record.start_fen(), selfplay::record_settings(record));
  std::vector<TrainingPosition> out;
  std::vector<std::pair<float, uint16_t>> policy;
  for (const auto& mr : record.moves()) {
    if (mr.training_target() && mr.policy_label_size() > 0) {
      TrainingPosition p{};
      p.encoding = nn::encode(game.position(), game.repetition_count());
      const Color us = game.side_to_move();
      p.result = result == Result::DRAW ? 0 : (result == win_for(us) ? 1 : -1);
      p.root_value = quantise((mr.root_value() + 1) * 0.5f);
      p.root_draw = quantise(mr.root_draw());
      policy.clear();
      for (int i = 0; i < mr.policy_label_size() && i < mr.policy_weight_size(); ++i) {
        if (mr.policy_label(i) >= uint32_t(nn::kNumLabels)) throw std::runtime_error("policy label out of range");
        policy.emplace_back(mr.policy_weight(i), uint16_t(mr.policy_label(i)));
      }
      std::sort(policy.begin(), policy.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      p.n_policy = uint8_t(std::min<size_t>(policy.size(), kMaxPolicyEntries));
      for (int i = 0; i < p.n_policy; ++i) {
        p.labels[i] = policy[size_t(i)].second;
        p.weights[i] = quantise(policy[size_t(i)].first);
      }
      out.push_back(p);
    }
    game.play(parse_legal_move(game.position(), mr.move()));
  }
  return out;
}

TrainingPosition mirrored(const TrainingPosition& p) {
  TrainingPosition m = p;
  m.encoding = nn::mirror(p.encoding);
  for (int i = 0; i < p.n_policy; ++i) m.labels[i] = uint16_t(nn::mirror_label(p.labels[i]));
  return m;
}

}  // namespace xq::training
