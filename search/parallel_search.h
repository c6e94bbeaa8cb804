// Root-parallel MCTS over threads: `threads` workers each own a Search over their own copy
// of the game and share one evaluator (thread-safe; a batching evaluator gathers the leaves
// of all workers into one batch). Worker 0 is deterministic and runs in the caller's thread,
// a round at a time (one gather, one evaluator call, one backup), so the caller can check
// its limits and report between rounds; workers 1.. run in their own threads with root
// exploration (Dirichlet noise for PUCT, Gumbel samples for Gumbel) and their own seeds, so
// the trees differ, and publish their root statistics after each round. The statistics are
// merged by search/root_merge.h.
//
// A node budget is split evenly between the workers, so N nodes means N new visits in all.
// Each worker keeps its tree for the next search when the new position extends the old game
// (tree reuse, Search::sync_to). A worker's tree stops growing at its share of the memory
// limit. Every worker completes at least one round, so there is always a searched move.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/game.h"
#include "nn/evaluator.h"
#include "search/root_merge.h"
#include "search/search.h"

namespace xq::search {

struct ParallelSettings {
  SearchParams params;
  int threads = 1;
  int leaves_per_batch = 8;
  size_t max_tree_bytes = size_t(1) << 30;  // all workers together
  // The root moves every worker may search (UCI searchmoves; Search::set_root_filter):
  // empty, or none of them legal, searches every move.
  std::vector<Move> search_moves;
};

class ParallelSearch {
 public:
  // Called from the worker's thread: an evaluator error (the round's leaves are cancelled,
  // the tree stays consistent, and the worker stops), and a helper having finished.
  struct Hooks {
    std::function<void(const std::string& what)> on_error;
    std::function<void()> on_helper_finished;
  };
  explicit ParallelSearch(Hooks hooks);
  ~ParallelSearch();  // stops and joins the helpers
  ParallelSearch(const ParallelSearch&) = delete;
  ParallelSearch& operator=(const ParallelSearch&) = delete;

  // Forgets every worker's tree (a new game); not while searching.
  void clear_trees();
  // Prepares a search of `root`'s position by `settings.threads` workers, with `nodes` new
  // visits in all (0: no node limit). Takes over kept trees, which copies them
  // (Tree::advance): call it from the searching thread. The evaluator must outlive the search.
  void prepare(const Game& root, const ParallelSettings& settings, int64_t nodes, nn::Evaluator& evaluator);
  // Starts workers 1.. in their own threads.
  void start_helpers();
  // One round of worker 0 in the calling thread. Returns false, and worker 0 counts as
  // finished, when it is done (budget, proof, full tree, evaluator error) or `stopping` is
  // set and it has completed a round.
  bool main_round(bool stopping);
  bool all_finished() const;
  // Asks the helpers to end (each after at least one round) and joins them.
  void stop_helpers();

  const Search& main_search() const;
  int threads() const { return threads_; }
  uint64_t new_visits() const;  // root visits of this search, all workers
  // Worker 0's root statistics merged with the helpers' last published ones; `nodes_read`
  // (optional) grows by the tree nodes and published moves read.
  std::vector<RootStat> merged_stats(std::atomic<uint64_t>* nodes_read = nullptr) const;
  // The move to play from merged_stats() (merged_best, with worker 0's own choice when it
  // searches alone).
  Move best_move(const std::vector<RootStat>& merged) const;

 private:
  struct Worker;
  bool round(Worker& w);  // one gather/evaluate/complete; false when the worker is finished
  void helper(Worker& w);

  Hooks hooks_;
  std::vector<std::unique_ptr<Worker>> workers_;
  int threads_ = 1;
  int leaves_per_batch_ = 8;
  nn::Evaluator* evaluator_ = nullptr;
  std::atomic<bool> helpers_stop_{false};
};

}  // namespace xq::search
