// `xqzero analyse`: an analysis engine for programs (docs/analysis.md). Queries arrive as
// JSON lines; each analysed position gets one JSON response line (and, when asked,
// intermediate ones during its search), written as soon as it is ready, so responses of
// different queries interleave and carry their query's id and ply.
//
// Threads: the caller's thread reads and parses lines and queues one job per analysed
// position; `threads` workers each run one search at a time, all sharing one evaluator
// (a batching one, so concurrent searches fill the network's batches). The queue is
// ordered by the query's priority, highest first, and by arrival within a priority, so
// an interactive query overtakes the queued positions of a bulk file (a search already
// running is not interrupted). Output lines are written whole under one lock and flushed.
//
// Bad input never stops the engine: it is answered with {"id", "error", "field"} and the
// next line is read; an unknown field is answered with {"id", "warning", "field"} and the
// line is carried out. `terminate` stops the positions of the queries with its
// terminateId, `terminate_all` those of every query read so far (either restricted to
// some plies): a running search answers with what it has, marked "terminated"; queued
// positions answer {"id", "ply", "terminated": true}. A search whose tree reaches its share of
// Options::max_tree_bytes stops there and answers with what it has, marked "memoryLimited".
// `query_version` and `clear_cache` (the evaluator's cache) are answered at once. `quit` (or
// end of input) stops reading; every query already queued is still answered before run()
// returns.
#pragma once

#include <condition_variable>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "app/analyse/query.h"
#include "nn/evaluator.h"

namespace xq::app::analyse {

class AnalysisEngine {
 public:
  struct Options {
    int threads = 8;           // positions searched at once
    int leaves_per_round = 8;  // simulations per search and evaluator call (virtual loss)
    uint64_t seed = 1;         // of the Gumbel sampling (searches run without exploration)
    // The trees of the searches running at once, together: each stops growing at its share
    // (max_tree_bytes / threads, at least 1 MiB) and answers with what it has, marked
    // "memoryLimited". 16 searches of 10,000,000 visits would otherwise need about 18 GB.
    size_t max_tree_bytes = size_t(1) << 30;
  };

  AnalysisEngine(std::shared_ptr<nn::Evaluator> evaluator, QueryDefaults defaults, Options options, std::ostream& out);
  // Answers what is queued, then stops the workers.
  ~AnalysisEngine();

  // Handles one input line; false after quit.
  bool handle(const std::string& line);
  // Reads lines until quit or the end of input, then waits until every queued position is
  // answered. Returns the exit status (0).
  int run(std::istream& in);
  // Waits until every queued and running position is answered.
  void wait_idle();

 private:
  struct QueryState;
  struct Job {
    std::shared_ptr<QueryState> query;
    int index = 0;          // into query->query.plies
    int priority = 0;       // the query's
    uint64_t sequence = 0;  // arrival order
  };
  // The priority queue's order: true when `a` comes out after `b` (a lower priority, or the
  // same and later).
  struct Later {
    bool operator()(const Job& a, const Job& b) const {
      return a.priority != b.priority ? a.priority < b.priority : a.sequence > b.sequence;
    }
  };
  void worker_loop(int index);
  void analyse(const Job& job, uint64_t seed);
  // Stops the unanswered positions of the queries with id `query_id` (null: of every query),
  // only at `plies` when it is not empty; returns how many.
  int terminate(const std::string* query_id, const std::vector<int>& plies);
  void emit(const std::string& line);

  std::shared_ptr<nn::Evaluator> evaluator_;
  QueryDefaults defaults_;
  Options options_;
  std::ostream& out_;
  std::mutex out_mutex_;

  std::mutex mutex_;  // guards what follows
  std::condition_variable work_cv_, idle_cv_;
  std::priority_queue<Job, std::vector<Job>, Later> queue_;
  std::vector<std::weak_ptr<QueryState>> live_;  // queries with positions queued or running
  int running_ = 0;
  bool stopping_ = false;
  uint64_t jobs_started_ = 0;
  uint64_t jobs_queued_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace xq::app::analyse
