// The self-play generator: worker threads, each driving many games at once, all sharing one
// evaluator (normally the batching wrapper of nn/, so the leaves of every game of every
// thread meet in large batches).
//
// Per move, playout cap randomisation (KataGo) picks a full search (`full_visits`, root
// exploration on, a training target) with probability `full_fraction`, else a fast one
// (`fast_visits`, not a target, root noise only with `fast_exploration`); with
// `visit_ramp_steps` both budgets start smaller for young nets and grow with the net's
// training step (the step travels with the net, in GameEvaluator). For the first
// `temperature_plies` plies the move is drawn from the search's target (visit shares for
// PUCT, the improved policy for Gumbel) raised to 1/temperature; later the search's own
// choice is played (most visits, or Gumbel's sequential-halving winner). A side resigns when its root value stays below
// `resign_threshold` for `resign_consecutive` of its moves, except in a `no_resign_fraction` of games, which play on
// and record who would have resigned, so the false-resignation rate can be measured.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "core/game.h"
#include "game_record.pb.h"
#include "nn/evaluator.h"
#include "search/search.h"

namespace xq::selfplay {

struct SelfplayOptions {
  search::SearchParams search;
  GameSettings game;  // repetition judging, natural limit, length cap
  std::string start_fen = Position::kStartFen;
  int threads = 1;
  int games_per_thread = 8;  // games each thread drives at once
  int leaves_per_batch = 8;  // simulations in flight per game and round
  int full_visits = 200;
  int fast_visits = 40;
  float full_fraction = 0.25f;    // 1 = every move is a full search and a training target
  float temperature = 1.0f;       // move choice from the search's target^(1/temperature) early on
  bool fast_exploration = false;  // fast searches explore at the root too (they are not targets)
  int temperature_plies = 20;
  int random_opening_plies = 0;    // up to this many random moves before the record starts
  int visit_ramp_steps = 0;        // visits grow over the first steps of training (0 = off)
  float visit_ramp_start = 0.25f;  // the share of the visits a net of step 0 searches with
  float decisive_value = 0.0f;     // a decided game's moves are fast searches (0 = off)
  int decisive_plies = 4;          // consecutive moves that decide it
  float resign_threshold = -0.9f;  // root value for the side to move; <= -1 disables resigning
  int resign_consecutive = 3;
  float no_resign_fraction = 0.1f;
  bool tree_reuse = true;
  uint64_t seed = 1;
  std::string network_id = "unknown";  // written into each record
  std::string config_id = "";
};

struct SelfplayStats {
  std::atomic<uint64_t> games{0}, moves{0}, training_moves{0}, evaluations{0}, plies_sum{0};
  std::atomic<uint64_t> red_wins{0}, black_wins{0}, draws{0};
  std::atomic<uint64_t> batches{0}, batch_positions{0};
  std::atomic<uint64_t> no_resign_games{0}, would_resign{0}, false_resign{0};
  // Moves played while the game was decided (decisive_value): all of them fast searches,
  // of which about full_fraction would otherwise have been full ones.
  std::atomic<uint64_t> decided_moves{0};
  // How much full searches move away from the net: the sum over full searches of
  // KL(target || prior) in millionths of a nat, and their count.
  std::atomic<uint64_t> search_kl_micro{0}, searches_full{0};
  // Finished games by how they ended (index: core/game.h Termination).
  std::atomic<uint64_t> terminations[TERMINATION_NB] = {};
};

// Receives each finished game; called from worker threads (serialised by the runner).
using GameSink = std::function<void(xqzero::GameRecord&&)>;

// The evaluator (and its name for the records) that a new game uses. The training loop
// hands out the newest network this way: every game keeps the net it started with, so
// self-play switches to a new checkpoint between games. The source is told which worker
// thread asks (0..threads-1), so that threads can be spread over devices.
struct GameEvaluator {
  std::shared_ptr<nn::Evaluator> evaluator;
  std::string network_id;
  int64_t step = -1;  // the net's training step (a checkpoint's), -1 when unknown
};

// The visits a net of training step `step` searches with, from a budget of `visits`
// (SelfplayOptions::visit_ramp_steps; at least 1).
int ramped_visits(const SelfplayOptions& o, int visits, int64_t step);

using EvaluatorSource = std::function<GameEvaluator(int thread)>;

// One net on several devices (nn::make_evaluators): thread t gets device t mod N.
struct DeviceNets {
  std::vector<GameEvaluator> per_device;
  GameEvaluator for_thread(int thread) const { return per_device[size_t(thread) % per_device.size()]; }
};

class SelfplayRunner {
 public:
  SelfplayRunner(const SelfplayOptions& options, nn::Evaluator& evaluator, GameSink sink);
  SelfplayRunner(const SelfplayOptions& options, EvaluatorSource source, GameSink sink);

  // Plays until `games` games have finished (0 = until stop()). Blocks; returns when the
  // worker threads have ended. Unfinished games are abandoned.
  void run(uint64_t games);
  void stop() { stop_ = true; }
  // While paused, the workers wait between rounds (their games stay as they are).
  void set_paused(bool paused) { paused_ = paused; }
  const SelfplayStats& stats() const { return stats_; }

 private:
  void worker(int thread_index);
  bool claim_game();

  SelfplayOptions options_;
  EvaluatorSource source_;
  GameSink sink_;
  std::atomic<bool> paused_{false};
  std::mutex sink_mutex_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> started_{0};
  uint64_t target_ = 0;
  SelfplayStats stats_;
};

// Converts search statistics into a record's sparse policy target (labels in the mover's view).
void fill_policy_target(const search::SearchResult& r, Color mover, xqzero::MoveRecord& out);

// KL(target || prior) of a search's root (how far search moved from the net's policy).
double search_kl(const search::SearchResult& r);

// The move to play from a finished search: the search's choice, or with `temperature` > 0 a
// draw from the target weights raised to 1/temperature (never instead of a proven win).
Move choose_move(const search::SearchResult& r, float temperature, std::mt19937_64& rng);

}  // namespace xq::selfplay
