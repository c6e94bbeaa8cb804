// One self-play game in progress inside a worker thread (selfplay/selfplay.h): the game, its
// search, the record being written and the resignation bookkeeping. A worker drives many
// slots in rounds: it gathers leaves from each slot's search, evaluates them together, hands
// the results back, then lets each slot whose search is done play its move.
#pragma once

#include <cstddef>
#include <random>

#include "core/game.h"
#include "game_record.pb.h"
#include "search/search.h"
#include "selfplay/selfplay.h"

namespace xq::selfplay {

class GameSlot {
 public:
  GameSlot(const SelfplayOptions& options, SelfplayStats& stats);

  // A new game with `net` from the start position (after a random opening, when the options
  // ask for one); `rng` draws its seed, the opening, whether it may resign, and the kind
  // (full or fast) of its first search.
  void start(GameEvaluator net, std::mt19937_64& rng);
  // No game here any more (the runner has no more games to start).
  void close() { active_ = false; }
  bool active() const { return active_; }

  // Plays the move of the finished search (or resigns), records it, and starts the next
  // move's search unless the game is over. Returns whether the game is over.
  bool play_searched_move(std::mt19937_64& rng);
  // The finished game's record, its result and statistics counted; the slot is then free.
  xqzero::GameRecord finish();

  search::Search& search() { return search_; }
  Game& game() { return game_; }  // gather() plays and takes back moves on it
  nn::Evaluator* evaluator() const { return net_.evaluator.get(); }

  // Where this slot's requests sit in the round's batch.
  size_t first_request = 0, n_requests = 0;

 private:
  void begin_move(std::mt19937_64& rng);
  // 0..random_opening_plies uniformly random legal moves; the game then starts afresh there.
  void play_random_opening(std::mt19937_64& rng);
  // Whether the mover resigns after a search that returned `value` (a no-resign game
  // records who would have resigned instead).
  bool resigns(Color mover, float value);
  // Counts the moves in a row whose root value (`value`, for `mover`) decides the game for
  // one side (SelfplayOptions::decisive_value); decided() once there are decisive_plies.
  void note_value(Color mover, float value);
  bool decided() const { return o_.decisive_value > 0 && decisive_streak_ >= o_.decisive_plies; }

  const SelfplayOptions& o_;
  SelfplayStats& stats_;
  bool active_ = false;
  GameEvaluator net_;
  Game game_;
  search::Search search_;
  xqzero::GameRecord record_;
  bool full_ = false;  // this move's search is a full one (a training target)
  bool no_resign_ = false;
  int low_streak_[2] = {0, 0};
  int would_resign_ = -1;
  int decisive_streak_ = 0;
  int decisive_side_ = -1;  // the side the streak favours (a Color), -1 none
};

}  // namespace xq::selfplay
