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
#include "selfplay/search_driver.h"

namespace xq::app::uci {

using selfplay::Proven;
using selfplay::Tree;

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One root move's statistics in one tree (q and d as sums over visits, so trees can be merged).
struct RootStat {
  Move move;
  float prior = 0;
  uint32_t visits = 0;
  double q_sum = 0, d_sum = 0;
  Proven proven = Proven::NONE;  // for the side to move at the root (the mover into the child)
  int proven_plies = 0;          // with proven: plies from the root to the proven end
  double q() const { return visits ? q_sum / visits : 0.0; }
  double d() const { return visits ? d_sum / visits : 0.0; }
};

// `nodes_read` (optional) grows by the tree nodes read: the root's moves and the line of the
// search's choice.
std::vector<RootStat> root_stats(const selfplay::Search& search, std::atomic<uint64_t>* nodes_read = nullptr) {
  std::vector<RootStat> out;
  const Tree& tree = search.tree();
  if (!tree.node(tree.root()).expanded) return out;
  const selfplay::SearchResult result = search.result();
  if (nodes_read) *nodes_read += result.moves.size() + result.pv.size();
  for (const selfplay::RootMove& m : result.moves) {
    RootStat s;
    s.move = m.move;
    s.prior = m.prior;
    s.visits = m.visits;
    s.q_sum = double(m.q) * m.visits;
    s.d_sum = double(m.draw) * m.visits;
    s.proven = m.proven;
    s.proven_plies = m.proven_plies;
    out.push_back(s);
  }
  return out;
}

void merge_into(std::vector<RootStat>& into, const std::vector<RootStat>& from) {
  for (const RootStat& f : from) {
    auto it = std::find_if(into.begin(), into.end(), [&](const RootStat& s) { return s.move == f.move; });
    if (it == into.end()) {
      into.push_back(f);
      continue;
    }
    it->visits += f.visits;
    it->q_sum += f.q_sum;
    it->d_sum += f.d_sum;
    if (it->proven == Proven::NONE) {
      it->proven = f.proven;
      it->proven_plies = f.proven_plies;
    } else if (it->proven == Proven::WIN && f.proven == Proven::WIN) {
      it->proven_plies = std::min(it->proven_plies, f.proven_plies);
    }
  }
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

struct SearchThread::Worker {
  explicit Worker(uint64_t seed) : search(selfplay::SearchParams(), seed) {}
  selfplay::Search search;
  Game game;
  uint32_t start_visits = 0;
  size_t max_bytes = 0;
  int rounds = 0;
  std::atomic<uint64_t> new_visits{0};
  std::atomic<bool> finished{false};
  std::thread thread;
  selfplay::SearchBuffers buffers;
  std::mutex snapshot_mutex;
  std::vector<RootStat> snapshot;  // helpers publish their root statistics here
};

SearchThread::SearchThread(Output out) : out_(std::move(out)) {}

SearchThread::~SearchThread() {
  stop();
  wait();
}

void SearchThread::clear_trees() {
  for (auto& w : workers_) w->search.reset();
}

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
  settings_.threads = std::max(1, settings_.threads);
  settings_.multipv = std::max(1, settings_.multipv);
  limits_ = limits;
  root_game_ = game;
  stop_ = false;
  helpers_stop_ = false;
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
    // search the position itself, without its history and move-count limits.
    out_("info string the game is over by xqzero's rules (" + game.state().to_string() +
         "); searching the position without its history");
    GameSettings s;
    s.natural_limit = 0;
    s.length_cap = 0;
    root_game_ = Game(game.position(), s);
  }

  while (int(workers_.size()) < settings_.threads)
    workers_.push_back(std::make_unique<Worker>(uint64_t(workers_.size()) * 0x9E3779B97F4A7C15ull + 1));
  // Taking over a large kept tree copies it (Tree::advance): done in the search thread, so
  // that isready and stop are answered meanwhile; the clock already runs.
  thread_ = std::thread([this] {
    prepare_workers();
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

void SearchThread::prepare_workers() {
  const int n = settings_.threads;
  const SearchLimits& limits = limits_;
  for (int i = 0; i < n; ++i) {
    Worker& w = *workers_[size_t(i)];
    w.search.set_params(settings_.params);
    w.search.sync_to(root_game_);
    w.game = root_game_;
    w.start_visits = w.search.tree().node(w.search.tree().root()).visits;
    w.max_bytes = std::max<size_t>(settings_.max_tree_bytes / size_t(n), 1 << 20);
    w.rounds = 0;
    w.new_visits = 0;
    w.finished = false;
    {
      std::lock_guard<std::mutex> lock(w.snapshot_mutex);
      w.snapshot.clear();
    }
    int64_t share = INT_MAX;
    if (limits.nodes > 0) share = std::max<int64_t>(1, limits.nodes / n + (i < limits.nodes % n ? 1 : 0));
    w.search.start_move(w.game, int(std::min<int64_t>(INT_MAX, share)), i > 0);  // new visits
  }
}

bool SearchThread::round(Worker& w) {
  if (w.search.done()) return false;
  if (w.rounds > 0 && w.search.tree().memory_bytes() >= w.max_bytes) return false;
  try {
    selfplay::search_round(w.search, w.game, *evaluator_, settings_.leaves_per_batch, w.buffers);
  } catch (const std::exception& e) {
    // The round's leaves are cancelled (the tree stays consistent); report and end the search.
    out_(std::string("info string evaluator error: ") + e.what());
    ++w.rounds;
    stop();
    return false;
  }
  ++w.rounds;
  const uint32_t visits = w.search.tree().node(w.search.tree().root()).visits;
  w.new_visits = visits > w.start_visits ? visits - w.start_visits : 0;
  return true;
}

void SearchThread::helper(Worker& w) {
  for (;;) {
    if (helpers_stop_.load() && w.rounds > 0) break;
    if (!round(w)) break;
    std::vector<RootStat> s = root_stats(w.search);
    std::lock_guard<std::mutex> lock(w.snapshot_mutex);
    w.snapshot = std::move(s);
  }
  {
    std::vector<RootStat> s = root_stats(w.search);
    std::lock_guard<std::mutex> lock(w.snapshot_mutex);
    w.snapshot = std::move(s);
  }
  {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    w.finished = true;
  }
  wake_.notify_all();
}

void SearchThread::run() {
  const int n = settings_.threads;
  Worker& w0 = *workers_[0];
  for (int i = 1; i < n; ++i) {
    Worker& w = *workers_[size_t(i)];
    w.thread = std::thread([this, &w] { helper(w); });
  }
  const int64_t interval_ns = std::max<int64_t>(1, settings_.info_interval_ms) * 1000000;
  int64_t next_info = start_ns_ + interval_ns;
  for (;;) {
    bool active = false;
    if (!(stop_.load() && w0.rounds > 0)) active = round(w0);
    if (!active) w0.finished = true;
    if (stop_.load()) break;
    bool all_finished = true;
    for (int i = 0; i < n; ++i) all_finished = all_finished && workers_[size_t(i)]->finished.load();
    const int64_t now = now_ns();
    const bool waiting = infinite_.load() || pondering_.load();
    if (!waiting) {
      if (all_finished) break;
      const double elapsed_ms = double(now - clock_start_ns_.load()) / 1e6;
      if (limits_.time.limited()) {
        if (elapsed_ms >= double(limits_.time.hard_ms)) break;
        if (elapsed_ms >= double(limits_.time.soft_ms)) {
          // Past the normal budget: stop unless the runner-up is close to the best move.
          std::vector<RootStat> s = root_stats(w0.search, &report_nodes_);
          std::sort(s.begin(), s.end(), [](const RootStat& a, const RootStat& b) { return a.visits > b.visits; });
          if (s.size() < 2 || double(s[0].visits) >= 1.25 * double(s[1].visits)) break;
        }
      }
      if (limits_.depth > 0 && std::lround(w0.search.depth().average()) >= limits_.depth) break;
    }
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
  finish();
}

void SearchThread::finish() {
  helpers_stop_ = true;
  for (size_t i = 1; i < size_t(settings_.threads); ++i)
    if (workers_[i]->thread.joinable()) workers_[i]->thread.join();
  report(true);
}

void SearchThread::report(bool final_report) {
  const int n = settings_.threads;
  Worker& w0 = *workers_[0];
  std::vector<RootStat> stats = root_stats(w0.search, &report_nodes_);
  uint64_t nodes = w0.new_visits.load();
  for (int i = 1; i < n; ++i) {
    Worker& w = *workers_[size_t(i)];
    nodes += w.new_visits.load();
    std::lock_guard<std::mutex> lock(w.snapshot_mutex);
    report_nodes_ += w.snapshot.size();
    merge_into(stats, w.snapshot);
  }
  const int64_t elapsed_ms = std::max<int64_t>(0, (now_ns() - start_ns_) / 1000000);
  const uint64_t nps = elapsed_ms > 0 ? nodes * 1000 / uint64_t(elapsed_ms) : nodes * 1000;

  // The best move, by the search's own rule (selfplay/search.h) on the merged statistics: a
  // proven result first; else, with one worker, the search's own choice (Gumbel's pick
  // included); else the most visited move.
  std::vector<selfplay::RootMove> merged;
  for (const RootStat& s : stats) {
    selfplay::RootMove m;
    m.move = s.move;
    m.prior = s.prior;
    m.visits = s.visits;
    m.q = float(s.q());
    m.draw = float(s.d());
    m.proven = s.proven;
    m.proven_plies = s.proven_plies;
    merged.push_back(m);
  }
  const bool all_proven = !merged.empty() && std::all_of(merged.begin(), merged.end(), [](const selfplay::RootMove& m) {
    return m.proven != Proven::NONE;
  });
  Move best;
  if (const int p = selfplay::proven_choice(merged, all_proven); p >= 0)
    best = merged[size_t(p)].move;
  else if (n == 1 && !stats.empty())
    best = w0.search.result().best;
  else if (const int v = selfplay::most_visited(merged); v >= 0)
    best = merged[size_t(v)].move;
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
  const selfplay::SearchDepth& sd = w0.search.depth();
  const int depth = std::max(1, int(std::lround(sd.average())));
  const int seldepth = std::max(depth, sd.max);
  std::vector<Move> best_pv{best};
  if (order.empty() || order[0]->visits == 0) {
    std::ostringstream os;
    os << "info depth " << depth << " seldepth " << seldepth << " nodes " << nodes << " nps " << nps << " time "
       << elapsed_ms;
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
      os << " nodes " << nodes << " nps " << nps << " time " << elapsed_ms << " pv";
      const std::vector<Move> pv = w0.search.principal_variation(s.move);
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
