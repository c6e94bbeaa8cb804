#include "selfplay/game_slot.h"

#include <chrono>
#include <cmath>
#include <utility>

#include "core/movegen.h"
#include "core/types.h"

namespace xq::selfplay {

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

float unit(std::mt19937_64& rng) { return std::uniform_real_distribution<float>(0.0f, 1.0f)(rng); }

}  // namespace

GameSlot::GameSlot(const SelfplayOptions& options, SelfplayStats& stats)
    : o_(options), stats_(stats), search_(options.search) {}

void GameSlot::start(GameEvaluator net, std::mt19937_64& rng) {
  active_ = true;
  net_ = std::move(net);
  const uint64_t seed = rng();
  game_ = Game(Position::from_fen(o_.start_fen), o_.game);
  if (o_.random_opening_plies > 0) play_random_opening(rng);
  search_ = search::Search(o_.search, seed);
  record_.Clear();
  record_.set_start_fen(game_.position().fen());
  record_.set_network(net_.network_id);
  record_.set_config(o_.config_id);
  record_.set_seed(seed);
  record_.set_repetitions(o_.game.repetitions);
  record_.set_length_cap(o_.game.length_cap);
  record_.set_natural_limit(o_.game.natural_limit);
  no_resign_ = unit(rng) < o_.no_resign_fraction;
  record_.set_no_resign(no_resign_);
  low_streak_[0] = low_streak_[1] = 0;
  would_resign_ = -1;
  decisive_streak_ = 0;
  decisive_side_ = -1;
  begin_move(rng);
}

void GameSlot::play_random_opening(std::mt19937_64& rng) {
  const int plies = std::uniform_int_distribution<int>(0, o_.random_opening_plies)(rng);
  for (int i = 0; i < plies && !game_.over(); ++i) {
    const MoveList moves(game_.position());
    game_.play(moves[std::uniform_int_distribution<int>(0, int(moves.size()) - 1)(rng)]);
  }
  // The game (and its record) starts from the position reached, unless the random moves
  // happened to end it: then from the start position.
  game_ = Game(game_.over() ? Position::from_fen(o_.start_fen) : game_.position(), o_.game);
}

void GameSlot::begin_move(std::mt19937_64& rng) {
  // Drawn in every case, so that the random stream does not depend on decided().
  full_ = unit(rng) < o_.full_fraction && !decided();
  search_.start_move(game_, ramped_visits(o_, full_ ? o_.full_visits : o_.fast_visits, net_.step),
                     full_ || o_.fast_exploration);
}

bool GameSlot::resigns(Color mover, float value) {
  if (o_.resign_threshold <= -1.0f) return false;
  int& streak = low_streak_[mover];
  streak = value < o_.resign_threshold ? streak + 1 : 0;
  if (streak < o_.resign_consecutive) return false;
  if (!no_resign_) return true;
  if (would_resign_ < 0) would_resign_ = int(mover);
  return false;
}

void GameSlot::note_value(Color mover, float value) {
  if (o_.decisive_value <= 0) return;
  const float red = mover == RED ? value : -value;
  const int side = red >= o_.decisive_value ? int(RED) : red <= -o_.decisive_value ? int(BLACK) : -1;
  decisive_streak_ = side < 0 ? 0 : side == decisive_side_ ? decisive_streak_ + 1 : 1;
  decisive_side_ = side;
}

bool GameSlot::play_searched_move(std::mt19937_64& rng) {
  if (game_.over()) return true;
  const search::SearchResult r = search_.result();
  const Color mover = game_.side_to_move();
  // Decided before the move is recorded: a resigning side plays no move.
  if (resigns(mover, r.value)) {
    game_.resign(mover);
    return true;
  }
  const Move chosen = choose_move(r, game_.ply() < o_.temperature_plies ? o_.temperature : 0.0f, rng);
  xqzero::MoveRecord* mr = record_.add_moves();
  mr->set_move(move_to_iccs(chosen));
  fill_policy_target(r, mover, *mr);
  mr->set_root_value(r.value);
  mr->set_root_draw(r.draw);
  mr->set_training_target(full_);
  mr->set_visits(r.visits);
  ++stats_.moves;
  if (decided()) ++stats_.decided_moves;  // the streak changes only in note_value() below
  if (full_) {
    const double kl = search_kl(r);
    mr->set_surprise(float(kl));
    ++stats_.training_moves;
    stats_.search_kl_micro += uint64_t(std::llround(kl * 1e6));
    ++stats_.searches_full;
  }
  note_value(mover, r.value);
  game_.play(chosen);
  if (o_.tree_reuse)
    search_.advance(chosen);
  else
    search_.reset();
  if (game_.over()) return true;
  begin_move(rng);
  return false;
}

xqzero::GameRecord GameSlot::finish() {
  const GameState st = game_.state();
  record_.set_result(to_string(st.result));
  record_.set_termination(to_string(st.reason));
  record_.set_finished_unix_ms(now_ms());
  record_.set_would_resign(would_resign_);
  ++stats_.games;
  stats_.plies_sum += uint64_t(game_.ply());
  if (st.result == Result::RED_WIN) ++stats_.red_wins;
  if (st.result == Result::BLACK_WIN) ++stats_.black_wins;
  if (st.result == Result::DRAW) ++stats_.draws;
  ++stats_.terminations[int(st.reason)];
  if (no_resign_) {
    ++stats_.no_resign_games;
    if (would_resign_ >= 0) {
      ++stats_.would_resign;
      if (st.result != win_for(~Color(would_resign_))) ++stats_.false_resign;
    }
  }
  active_ = false;
  xqzero::GameRecord out = std::move(record_);
  record_.Clear();
  return out;
}

}  // namespace xq::selfplay
