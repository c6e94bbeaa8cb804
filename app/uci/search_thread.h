// The UCI engine's background search: root-parallel MCTS (search/parallel_search.h) in its
// own thread, so the protocol loop keeps answering (`isready`, `stop`) while it runs.
//
// Worker 0 runs in the search thread itself and, between its rounds, this thread checks
// `stop`, the limits and the clock and prints `info` lines every `info_interval_ms`. `stop`
// therefore ends a search within one round. The best move and the scores come from the
// merged root statistics (search/root_merge.h); the principal variations and the depth
// figures from worker 0's tree. Taking over a kept tree (tree reuse) is done in the search
// thread, so the protocol loop is not held up by it.
//
// Reports and limit checks cost the same whatever the size of the (reused) tree: the depth
// figures are this search's simulations' (search::SearchDepth, kept as they are backed up),
// the node count is the root's new visits, and the only tree reads are the root's moves and
// the principal variations (at most 64 moves each); report_nodes() counts those reads.
//
// A game over by xqzero's rules that the GUI plays on (other repetition rules) is searched on
// with its whole history (Game::play_on), so repetitions of earlier positions still count.
// `go mate N` (SearchLimits::mate) ends once the merged root moves hold a win in at most N
// moves, and says so in an info string when its node bound came first.
//
// `go perft N` runs here too (start_perft), so `isready`, `stop` and `quit` are answered
// while it counts; stop ends it within a few milliseconds, without a total.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/game.h"
#include "nn/evaluator.h"
#include "search/parallel_search.h"
#include "search/time_manager.h"

namespace xq::app::uci {

struct SearchSettings {
  search::ParallelSettings search;  // parameters, threads, leaves per round, tree memory
  int multipv = 1;
  bool show_wdl = false;
  int64_t info_interval_ms = 1000;
};

struct SearchLimits {
  int64_t nodes = 0;        // new visits in all, 0 = no limit
  int depth = 0;            // stop once worker 0's average simulation depth reaches it, 0 = no limit
  search::TimeBudget time;  // from the clock or movetime
  bool infinite = false;    // report bestmove only after stop (also when the search is done)
  bool ponder = false;      // like infinite until ponderhit, then the limits apply from then on
  int mate = 0;             // go mate N: stop once a win in at most N moves is proven, 0 = no
};

class SearchThread {
 public:
  using Output = std::function<void(const std::string& line)>;
  explicit SearchThread(Output out);
  ~SearchThread();  // stops and joins
  SearchThread(const SearchThread&) = delete;
  SearchThread& operator=(const SearchThread&) = delete;

  // Starts searching `game`'s current position; a previous search must have ended (call
  // wait() first). Prints info lines and finally `bestmove` through the output.
  void start(const Game& game, std::shared_ptr<nn::Evaluator> evaluator, const SearchSettings& settings,
             const SearchLimits& limits);
  // Counts the leaves `depth` plies below `pos` in the background, printing `move: count`
  // per legal move, an empty line and `Nodes searched: N`; after stop only an info string.
  // A previous search must have ended. No bestmove.
  void start_perft(const Position& pos, int depth);
  void stop();       // asks the search to end now; bestmove follows
  void ponderhit();  // the pondered move was played: the limits count from now
  void wait();       // until the search has ended (bestmove sent) and its thread is joined
  bool busy() const { return busy_.load(); }
  // True while the running search only ends on stop (infinite, or pondering) and no stop
  // has been sent yet.
  bool waits_for_stop() const { return busy_.load() && !stop_.load() && (infinite_.load() || pondering_.load()); }
  void clear_trees();  // ucinewgame; only while not busy
  // Tree nodes read by the reports and limit checks of the last search (root moves and
  // principal variation moves); bounded per report whatever the tree's size.
  uint64_t report_nodes() const { return report_nodes_.load(); }

 private:
  void run();
  void run_perft(Position pos, int depth);
  bool past_limits(int64_t now);  // the clock, node, depth and mate limits, when not waiting for stop
  bool mate_found();              // a root move proven to win in at most limits_.mate moves
  int hash_permille() const;      // hashfull: the trees and the evaluator's cache
  void report(bool final_report);
  void finish();

  Output out_;
  std::thread thread_;
  std::atomic<bool> busy_{false}, stop_{false}, infinite_{false}, pondering_{false};
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  std::atomic<int64_t> clock_start_ns_{0};  // when the limits started counting
  std::atomic<uint64_t> report_nodes_{0};

  search::ParallelSearch search_;
  std::shared_ptr<nn::Evaluator> evaluator_;
  SearchSettings settings_;
  SearchLimits limits_;
  Game root_game_;  // the position searched (worker 0's copy is used while it runs)
  int64_t start_ns_ = 0;
};

}  // namespace xq::app::uci
