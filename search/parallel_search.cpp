#include "search/parallel_search.h"

#include <algorithm>
#include <climits>
#include <mutex>
#include <thread>

#include "search/search_driver.h"

namespace xq::search {

struct ParallelSearch::Worker {
  explicit Worker(uint64_t seed) : search(SearchParams(), seed) {}
  Search search;
  Game game;
  uint32_t start_visits = 0;
  size_t max_bytes = 0;
  int rounds = 0;
  std::atomic<uint64_t> new_visits{0};
  std::atomic<bool> finished{false};
  std::thread thread;
  SearchBuffers buffers;
  mutable std::mutex snapshot_mutex;
  std::vector<RootStat> snapshot;  // helpers publish their root statistics here
};

ParallelSearch::ParallelSearch(Hooks hooks) : hooks_(std::move(hooks)) {}

ParallelSearch::~ParallelSearch() { stop_helpers(); }

void ParallelSearch::clear_trees() {
  for (auto& w : workers_) w->search.reset();
}

void ParallelSearch::prepare(const Game& root, const ParallelSettings& settings, int64_t nodes,
                             nn::Evaluator& evaluator) {
  const int n = std::max(1, settings.threads);
  threads_ = n;
  leaves_per_batch_ = settings.leaves_per_batch;
  evaluator_ = &evaluator;
  helpers_stop_ = false;
  while (int(workers_.size()) < n)
    workers_.push_back(std::make_unique<Worker>(uint64_t(workers_.size()) * 0x9E3779B97F4A7C15ull + 1));
  for (int i = 0; i < n; ++i) {
    Worker& w = *workers_[size_t(i)];
    w.search.set_params(settings.params);
    w.search.set_root_filter(settings.search_moves);
    w.search.sync_to(root);
    w.game = root;
    w.start_visits = w.search.tree().node(w.search.tree().root()).visits;
    w.max_bytes = std::max<size_t>(settings.max_tree_bytes / size_t(n), 1 << 20);
    w.rounds = 0;
    w.new_visits = 0;
    w.finished = false;
    {
      std::lock_guard<std::mutex> lock(w.snapshot_mutex);
      w.snapshot.clear();
    }
    int64_t share = INT_MAX;
    if (nodes > 0) share = std::max<int64_t>(1, nodes / n + (i < nodes % n ? 1 : 0));
    w.search.start_move(w.game, int(std::min<int64_t>(INT_MAX, share)), i > 0);  // new visits
  }
}

void ParallelSearch::start_helpers() {
  for (int i = 1; i < threads_; ++i) {
    Worker& w = *workers_[size_t(i)];
    w.thread = std::thread([this, &w] { helper(w); });
  }
}

bool ParallelSearch::round(Worker& w) {
  if (w.search.done()) return false;
  if (w.rounds > 0 && w.search.tree().memory_bytes() >= w.max_bytes) return false;
  try {
    search_round(w.search, w.game, *evaluator_, leaves_per_batch_, w.buffers);
  } catch (const std::exception& e) {
    // The round's leaves are cancelled (the tree stays consistent); the worker ends here.
    ++w.rounds;
    if (hooks_.on_error) hooks_.on_error(e.what());
    return false;
  }
  ++w.rounds;
  const uint32_t visits = w.search.tree().node(w.search.tree().root()).visits;
  w.new_visits = visits > w.start_visits ? visits - w.start_visits : 0;
  return true;
}

bool ParallelSearch::main_round(bool stopping) {
  Worker& w0 = *workers_[0];
  const bool active = !(stopping && w0.rounds > 0) && round(w0);
  if (!active) w0.finished = true;
  return active;
}

void ParallelSearch::helper(Worker& w) {
  for (;;) {
    if (helpers_stop_.load() && w.rounds > 0) break;
    const bool active = round(w);
    std::vector<RootStat> s = root_stats(w.search);
    {
      std::lock_guard<std::mutex> lock(w.snapshot_mutex);
      w.snapshot = std::move(s);
    }
    if (!active) break;
  }
  w.finished = true;
  if (hooks_.on_helper_finished) hooks_.on_helper_finished();
}

bool ParallelSearch::all_finished() const {
  for (int i = 0; i < threads_; ++i)
    if (!workers_[size_t(i)]->finished.load()) return false;
  return true;
}

void ParallelSearch::stop_helpers() {
  helpers_stop_ = true;
  for (size_t i = 1; i < workers_.size(); ++i)
    if (workers_[i]->thread.joinable()) workers_[i]->thread.join();
}

const Search& ParallelSearch::main_search() const { return workers_.at(0)->search; }

uint64_t ParallelSearch::new_visits() const {
  uint64_t nodes = 0;
  for (int i = 0; i < threads_; ++i) nodes += workers_[size_t(i)]->new_visits.load();
  return nodes;
}

std::vector<RootStat> ParallelSearch::merged_stats(std::atomic<uint64_t>* nodes_read) const {
  std::vector<RootStat> stats = root_stats(main_search(), nodes_read);
  for (int i = 1; i < threads_; ++i) {
    const Worker& w = *workers_[size_t(i)];
    std::lock_guard<std::mutex> lock(w.snapshot_mutex);
    if (nodes_read) *nodes_read += w.snapshot.size();
    merge_into(stats, w.snapshot);
  }
  return stats;
}

Move ParallelSearch::best_move(const std::vector<RootStat>& merged) const {
  return merged_best(merged, threads_ == 1 ? main_search().result().best : Move());
}

}  // namespace xq::search
