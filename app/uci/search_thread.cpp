#include "app/uci/search_thread.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "app/uci/score.h"
#include "core/movegen.h"
#include "core/perft.h"
#include "nn/eval_cache.h"

namespace xq::app::uci {

using search::RootStat;

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Perft that gives up (returning 0) once `stop` is set. The last three plies are counted
// without looking at it: some 100,000 leaves at most, about a millisecond.
uint64_t perft_until_stop(Position& pos, int depth, const std::atomic<bool>& stop) {
  if (depth <= 3) return perft(pos, depth);
  Move moves[MAX_MOVES];
  const int n = generate_legal(pos, moves);
  uint64_t total = 0;
  UndoInfo undo;
  for (int i = 0; i < n && !stop.load(std::memory_order_relaxed); ++i) {
    pos.do_move(moves[i], undo);
    total += perft_until_stop(pos, depth - 1, stop);
    pos.undo_move(moves[i], undo);
  }
  return total;
}

}  // namespace

SearchThread::SearchThread(Output out)
    : out_(std::move(out)),
      search_(search::ParallelSearch::Hooks{[this](const std::string& what) {
                                              out_(std::string("info string evaluator error: ") + what);
                                              stop();
                                            },
                                            [this] {
                                              { std::lock_guard<std::mutex> lock(wake_mutex_); }
                                              wake_.notify_all();
                                            }}) {}

SearchThread::~SearchThread() {
  stop();
  wait();
}

void SearchThread::clear_trees() { search_.clear_trees(); }

void SearchThread::stop() {
  {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    stop_ = true;
  }
  wake_.notify_all();
}

void SearchThread::ponderhit() {
  {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    clock_start_ns_ = now_ns();
    pondering_ = false;
  }
  wake_.notify_all();
}

void SearchThread::wait() {
  if (thread_.joinable()) thread_.join();
}

void SearchThread::start(const Game& game, std::shared_ptr<nn::Evaluator> evaluator, const SearchSettings& settings,
                         const SearchLimits& limits) {
  wait();
  evaluator_ = std::move(evaluator);
  settings_ = settings;
  settings_.search.threads = std::max(1, settings_.search.threads);
  settings_.multipv = std::max(1, settings_.multipv);
  limits_ = limits;
  root_game_ = game;
  stop_ = false;
  infinite_ = limits.infinite;
  pondering_ = limits.ponder;
  start_ns_ = now_ns();
  clock_start_ns_ = start_ns_;
  report_nodes_ = 0;
  busy_ = true;

  const MoveList legal(game.position());
  if (legal.empty()) {
    thread_ = std::thread([this] {
      out_("info depth 0 score mate 0");
      // Even without a move, an infinite or ponder search waits for stop.
      std::unique_lock<std::mutex> lock(wake_mutex_);
      wake_.wait(lock, [this] { return stop_.load() || (!infinite_.load() && !pondering_.load()); });
      lock.unlock();
      busy_ = false;
      out_("bestmove (none)");
    });
    return;
  }
  if (game.over()) {
    // The GUI plays on where our rules have ended the game (e.g. other repetition rules):
    // search on with the game's history, so that repetitions of earlier positions are still
    // judged; a move-count limit that ended it is lifted, any other verdict is set aside at
    // the root only (Game::play_on).
    out_("info string the game is over by xqzero's rules (" + game.state().to_string() +
         "); searching on with its history");
    const Termination reason = game.state().reason;
    if (reason == Termination::NATURAL_LIMIT || reason == Termination::LENGTH_CAP) {
      GameSettings s = root_game_.settings();
      s.natural_limit = 0;
      s.length_cap = 0;
      root_game_.set_settings(s);
    }
    if (root_game_.over()) root_game_.play_on();
  }

  // Taking over a large kept tree copies it (Tree::advance): done in the search thread, so
  // that isready and stop are answered meanwhile; the clock already runs.
  thread_ = std::thread([this] {
    search_.prepare(root_game_, settings_.search, limits_.nodes, *evaluator_);
    run();
  });
}

void SearchThread::start_perft(const Position& pos, int depth) {
  wait();
  stop_ = false;
  infinite_ = false;
  pondering_ = false;
  busy_ = true;
  thread_ = std::thread([this, pos, depth] { run_perft(pos, depth); });
}

void SearchThread::run_perft(Position pos, int depth) {
  Move moves[MAX_MOVES];
  const int n = generate_legal(pos, moves);
  uint64_t total = 0;
  int counted = 0;
  for (; counted < n; ++counted) {
    UndoInfo undo;
    pos.do_move(moves[counted], undo);
    const uint64_t count = perft_until_stop(pos, depth - 1, stop_);
    pos.undo_move(moves[counted], undo);
    if (stop_.load()) break;
    out_(move_to_iccs(moves[counted]) + ": " + std::to_string(count));
    total += count;
  }
  busy_ = false;
  if (counted < n) {
    out_("info string perft " + std::to_string(depth) + " stopped after " + std::to_string(counted) + " of " +
         std::to_string(n) + " moves; no total");
    return;
  }
  out_("");
  out_("Nodes searched: " + std::to_string(total));
}

// Past the clock, node or depth limits (never while waiting for stop).
bool SearchThread::past_limits(int64_t now) {
  if (infinite_.load() || pondering_.load()) return false;
  if (search_.all_finished() || mate_found()) return true;
  const double elapsed_ms = double(now - clock_start_ns_.load()) / 1e6;
  if (limits_.time.limited()) {
    if (elapsed_ms >= double(limits_.time.hard_ms)) return true;
    if (elapsed_ms >= double(limits_.time.soft_ms)) {
      // Past the normal budget: stop unless the runner-up is close to the best move.
      std::vector<RootStat> s = search::root_stats(search_.main_search(), &report_nodes_);
      std::sort(s.begin(), s.end(), [](const RootStat& a, const RootStat& b) { return a.visits > b.visits; });
      if (s.size() < 2 || double(s[0].visits) >= 1.25 * double(s[1].visits)) return true;
    }
  }
  return limits_.depth > 0 && std::lround(search_.main_search().depth().average()) >= limits_.depth;
}

// Permille of Hash in use: the trees (worker 0's against its share, the trees grow alike) and
// the evaluator's cache (the outermost wrapper, nn/evaluator_factory.h) together.
int SearchThread::hash_permille() const {
  const size_t threads = size_t(search_.threads());
  const size_t share = std::max<size_t>(settings_.search.max_tree_bytes / threads, 1 << 20);  // ParallelSearch's
  const double trees = double(share) * double(threads);
  const double tree_used = std::min(1.0, double(search_.main_search().tree().memory_bytes()) / double(share)) * trees;
  double cache = 0, cache_used = 0;
  if (auto* c = dynamic_cast<nn::CachingEvaluator*>(evaluator_.get())) {
    cache = double(c->cache().memory_bytes());
    cache_used = double(c->cache().size() * nn::EvalCache::kBytesPerEntry);
  }
  return int(std::min(1000.0, 1000.0 * (tree_used + cache_used) / (trees + cache)));
}

bool SearchThread::mate_found() {
  if (limits_.mate <= 0) return false;
  for (const RootStat& s : search_.merged_stats(&report_nodes_))
    if (s.proven == search::Proven::WIN && mate_moves(s.proven_plies) <= limits_.mate) return true;
  return false;
}

void SearchThread::run() {
  search_.start_helpers();
  const int64_t interval_ns = std::max<int64_t>(1, settings_.info_interval_ms) * 1000000;
  int64_t next_info = start_ns_ + interval_ns;
  for (;;) {
    const bool active = search_.main_round(stop_.load());
    if (stop_.load()) break;
    const int64_t now = now_ns();
    if (past_limits(now)) break;
    if (now >= next_info) {
      report(false);
      next_info = now + interval_ns;
    }
    if (!active) {
      // Worker 0 is done: sleep until stop, a helper finishing, ponderhit or the next check.
      int64_t wait_ns = std::min<int64_t>(next_info - now, 10 * 1000000);
      std::unique_lock<std::mutex> lock(wake_mutex_);
      wake_.wait_for(lock, std::chrono::nanoseconds(std::max<int64_t>(wait_ns, 100000)),
                     [this] { return stop_.load(); });
    }
  }
  if (limits_.mate > 0 && !stop_.load() && !mate_found()) {
    const std::string n = std::to_string(limits_.mate);
    out_("info string go mate " + n + ": no mate in " + n + " proven within " + std::to_string(search_.new_visits()) +
         " visits; playing the best move found");
  }
  finish();
}

void SearchThread::finish() {
  search_.stop_helpers();
  report(true);
}

void SearchThread::report(bool final_report) {
  std::vector<RootStat> stats = search_.merged_stats(&report_nodes_);
  const uint64_t nodes = search_.new_visits();
  const int64_t elapsed_ms = std::max<int64_t>(0, (now_ns() - start_ns_) / 1000000);
  const uint64_t nps = elapsed_ms > 0 ? nodes * 1000 / uint64_t(elapsed_ms) : nodes * 1000;
  const search::Search& w0 = search_.main_search();
  const int hashfull = hash_permille();

  Move best = search_.best_move(stats);
  if (best.is_none()) {  // nothing expanded (cannot happen after a round; kept for safety)
    const MoveList legal(root_game_.position());
    if (!legal.empty()) best = legal[0];
  }

  // Lines: the best move first, then the others by visits.
  std::vector<const RootStat*> order;
  for (const RootStat& s : stats)
    if (s.move == best) order.push_back(&s);
  std::vector<const RootStat*> rest;
  for (const RootStat& s : stats)
    if (s.move != best && s.visits > 0) rest.push_back(&s);
  std::stable_sort(rest.begin(), rest.end(), [](const RootStat* a, const RootStat* b) {
    return a->visits > b->visits || (a->visits == b->visits && a->q() > b->q());
  });
  order.insert(order.end(), rest.begin(), rest.end());
  if (order.size() > size_t(settings_.multipv)) order.resize(size_t(settings_.multipv));

  // This search's simulations (kept as they are backed up: no walk of the tree).
  const search::SearchDepth& sd = w0.depth();
  const int depth = std::max(1, int(std::lround(sd.average())));
  const int seldepth = std::max(depth, sd.max);
  std::vector<Move> best_pv{best};
  if (order.empty() || order[0]->visits == 0) {
    std::ostringstream os;
    os << "info depth " << depth << " seldepth " << seldepth << " nodes " << nodes << " nps " << nps << " hashfull "
       << hashfull << " time " << elapsed_ms;
    if (!best.is_none()) os << " pv " << move_to_iccs(best);
    out_(os.str());
  } else {
    for (size_t k = 0; k < order.size(); ++k) {
      const RootStat& s = *order[k];
      if (s.visits == 0) continue;
      const Score sc = score_of(float(s.q()), float(s.d()), s.proven, s.proven_plies);
      const std::string score = sc.uci();
      const std::array<int, 3>& wdl = sc.wdl;
      std::ostringstream os;
      os << "info depth " << depth << " seldepth " << seldepth << " multipv " << k + 1 << " score " << score;
      if (settings_.show_wdl) os << " wdl " << wdl[0] << " " << wdl[1] << " " << wdl[2];
      os << " nodes " << nodes << " nps " << nps << " hashfull " << hashfull << " time " << elapsed_ms << " pv";
      const std::vector<Move> pv = w0.principal_variation(s.move);
      report_nodes_ += pv.size();
      for (const Move m : pv) os << " " << move_to_iccs(m);
      if (k == 0) best_pv = pv;
      out_(os.str());
    }
  }
  if (!final_report) return;
  std::string line = best.is_none() ? "bestmove (none)" : "bestmove " + move_to_iccs(best);
  if (best_pv.size() >= 2 && best_pv[0] == best) line += " ponder " + move_to_iccs(best_pv[1]);
  busy_ = false;
  out_(line);
}

}  // namespace xq::app::uci
