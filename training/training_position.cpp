#include "training/training_position.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/errors.h"
#include "core/input_file.h"
#include "core/move_parse.h"
#include "nn/policy_labels.h"
#include "records/record_io.h"

namespace xq::training {

namespace {

uint16_t quantise(float x) { return uint16_t(std::lround(std::clamp(x, 0.0f, 1.0f) * 65535.0f)); }

// Fills p's policy entries: every legal move of `game`'s position, with the record's target
// weight (0 for the moves the record does not name), largest weight first.
void fill_policy(const Game& game, const xqzero::MoveRecord& mr, TrainingPosition& p) {
  uint16_t legal[MAX_MOVES];
  const int n = nn::legal_labels(game.position(), legal);
  std::vector<std::pair<float, uint16_t>> policy;
  policy.reserve(size_t(n));
  for (int i = 0; i < n; ++i) policy.emplace_back(0.0f, legal[i]);
  for (int i = 0; i < mr.policy_label_size() && i < mr.policy_weight_size(); ++i) {
    const uint32_t label = mr.policy_label(i);
    auto it = std::find_if(policy.begin(), policy.end(), [&](const auto& e) { return e.second == label; });
    if (it == policy.end())
      throw std::runtime_error("policy target names an illegal move (label " + std::to_string(label) + ")");
    it->first += mr.policy_weight(i);
  }
  std::stable_sort(policy.begin(), policy.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  p.n_policy = uint8_t(std::min<size_t>(policy.size(), kMaxPolicyEntries));
  for (int i = 0; i < p.n_policy; ++i) {
    p.labels[i] = policy[size_t(i)].second;
    p.weights[i] = quantise(policy[size_t(i)].first);
  }
}

}  // namespace

int material_half_pawns(const Position& pos, Color side) {
  static constexpr int kValue[PIECE_TYPE_NB] = {0, 0, 4, 4, 8, 18, 9, 2};
  int sum = 0;
  for (int i = 0; i < pos.piece_count(side); ++i) {
    const Square s = pos.piece_square(side, i);
    const PieceType t = type_of(pos.piece_on(s));
    sum += kValue[t] + (t == PAWN && !own_half(side, s) ? 2 : 0);
  }
  return sum;
}

bool has_policy_target(const xqzero::MoveRecord& move) {
  return move.training_target() && move.policy_label_size() > 0;
}

bool is_training_sample(const xqzero::MoveRecord& move, bool fast_value_targets) {
  return fast_value_targets || has_policy_target(move);
}

std::vector<TrainingPosition> positions_of(const xqzero::GameRecord& record, bool fast_value_targets) {
  Result result;
  if (!parse_result(record.result(), result) || result == Result::ONGOING)
    throw std::runtime_error("game has no final result ('" + clipped(record.result()) + "')");
  Termination ended = Termination::ONGOING;  // unknown names count as "ongoing"
  parse_termination(record.termination(), ended);
  const uint8_t termination = uint8_t(ended);
  Game game(record.start_fen(), records::record_settings(record));
  std::vector<TrainingPosition> out;
  std::vector<size_t> target_index;  // per target in `out`: its index in red_material
  std::vector<Color> target_mover;
  std::vector<int> red_material;   // red minus black, per ply
  std::vector<float> root_values;  // per ply, the mover's view
  std::vector<int> move_labels;    // per ply, the move played, labelled in its mover's view
  for (const auto& mr : record.moves()) {
    const Position& pos = game.position();
    root_values.push_back(mr.root_value());
    red_material.push_back(material_half_pawns(pos, RED) - material_half_pawns(pos, BLACK));
    const bool policy_target = has_policy_target(mr);
    if (is_training_sample(mr, fast_value_targets)) {
      TrainingPosition p{};
      p.encoding = nn::encode(pos, game.repetition_count());
      const Color us = game.side_to_move();
      p.result = result == Result::DRAW ? 0 : (result == win_for(us) ? 1 : -1);
      p.termination = termination;
      p.root_value = quantise((mr.root_value() + 1) * 0.5f);
      p.root_draw = quantise(mr.root_draw());
      if (policy_target) fill_policy(game, mr, p);  // else n_policy 0: a value-only sample
      out.push_back(p);
      target_index.push_back(red_material.size() - 1);
      target_mover.push_back(us);
    }
    const Move move = parse_legal_move(game.position(), mr.move());
    move_labels.push_back(nn::label_of(move, game.side_to_move()));
    game.play(move);
  }
  const Position& last = game.position();
  red_material.push_back(material_half_pawns(last, RED) - material_half_pawns(last, BLACK));
  // The short-term value targets, from the game's end backwards (kShortValueLambda).
  const Color last_mover = game.side_to_move();
  std::vector<double> short_value(root_values.size() + 1);
  short_value.back() = result == Result::DRAW ? 0.0 : (result == win_for(last_mover) ? 1.0 : -1.0);
  for (size_t t = root_values.size(); t-- > 0;)
    short_value[t] = (1 - kShortValueLambda) * std::clamp(double(root_values[t]), -1.0, 1.0) -
                     kShortValueLambda * short_value[t + 1];
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].short_value = int16_t(std::lround(std::clamp(short_value[target_index[i]], -1.0, 1.0) * 32767));
    const int red_view = red_material[std::min(target_index[i] + kMaterialHorizon, red_material.size() - 1)];
    out[i].material = int8_t(std::clamp(target_mover[i] == RED ? red_view : -red_view, -127, 127));
    const size_t reply = target_index[i] + 1;  // the ply after the sample's: the opponent's move
    if (reply < move_labels.size() && move_labels[reply] != nn::kNoLabel) out[i].reply_label = uint16_t(move_labels[reply]);
  }
  return out;
}

TrainingPosition mirrored(const TrainingPosition& p) {
  TrainingPosition m = p;
  m.encoding = nn::mirror(p.encoding);
  for (int i = 0; i < p.n_policy; ++i) m.labels[i] = uint16_t(nn::mirror_label(p.labels[i]));
  if (p.reply_label != kNoReply) m.reply_label = uint16_t(nn::mirror_label(p.reply_label));
  return m;
}

void for_each_usable_game(const std::string& path, std::vector<xqzero::GameRecord>& games,
                          const std::function<void(const std::string&)>& warn, const UsePositions& use,
                          bool fast_value_targets) {
  size_t skipped = 0;
  std::string first_problem;
  for (size_t i = 0; i < games.size(); ++i) {
    std::vector<TrainingPosition> positions;
    try {
      positions = positions_of(games[i], fast_value_targets);
    } catch (const std::exception& e) {
      if (skipped++ == 0) first_problem = "game " + std::to_string(i + 1) + ": " + e.what();
      continue;
    }
    use(std::move(games[i]), std::move(positions));
  }
  if (skipped > 0)
    warn(file_message("record file", path,
                      "skipping " + std::to_string(skipped) + " of " + std::to_string(games.size()) +
                          " games that training cannot use (first, " + first_problem + ")"));
}

}  // namespace xq::training
