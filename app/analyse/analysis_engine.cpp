#include "app/analyse/analysis_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <istream>
#include <ostream>

#include "app/analyse/response.h"
#include "app/line_reader.h"
#include "search/search_driver.h"

namespace xq::app::analyse {

// A query's positions, each with its own stop flag (terminate may name some plies) and a
// flag set once its final line is written.
struct AnalysisEngine::QueryState {
  explicit QueryState(Query q)
      : query(std::move(q)),
        stop(new std::atomic<bool>[query.plies.size()]),
        answered(new std::atomic<bool>[query.plies.size()]) {
    for (size_t i = 0; i < query.plies.size(); ++i) stop[i] = answered[i] = false;
  }
  Query query;
  std::unique_ptr<std::atomic<bool>[]> stop, answered;
};

AnalysisEngine::AnalysisEngine(std::shared_ptr<nn::Evaluator> evaluator, QueryDefaults defaults, Options options,
                               std::ostream& out)
    : evaluator_(std::move(evaluator)), defaults_(std::move(defaults)), options_(options), out_(out) {
  options_.threads = std::max(1, options_.threads);
  options_.leaves_per_round = std::max(1, options_.leaves_per_round);
  for (int i = 0; i < options_.threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

AnalysisEngine::~AnalysisEngine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void AnalysisEngine::emit(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mutex_);
  out_ << line << '\n' << std::flush;
}

bool AnalysisEngine::handle(const std::string& line) {
  ParsedLine p = parse_line(line, defaults_);
  const std::string& id = p.kind == LineKind::QUERY ? p.query.id : p.id;
  for (const std::string& field : p.unknown_fields) emit(warning_json(id, field, unknown_field_message(field)));
  switch (p.kind) {
    case LineKind::QUIT: return false;
    case LineKind::ERROR: emit(error_json(p.id, -1, p.field, p.message)); return true;
    case LineKind::TERMINATE:
      emit(terminate_ack_json(p.id, &p.terminate_id, p.plies, terminate(&p.terminate_id, p.plies)));
      return true;
    case LineKind::TERMINATE_ALL:
      emit(terminate_ack_json(p.id, nullptr, p.plies, terminate(nullptr, p.plies)));
      return true;
    case LineKind::QUERY_VERSION: emit(version_json(p.id)); return true;
    case LineKind::CLEAR_CACHE:
      evaluator_->clear_cache();
      emit(clear_cache_ack_json(p.id));
      return true;
    case LineKind::QUERY: break;
  }
  auto state = std::make_shared<QueryState>(std::move(p.query));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.erase(std::remove_if(live_.begin(), live_.end(), [](const auto& w) { return w.expired(); }), live_.end());
    live_.push_back(state);
    for (size_t i = 0; i < state->query.plies.size(); ++i)
      queue_.push(Job{state, int(i), state->query.priority, jobs_queued_++});
  }
  work_cv_.notify_all();
  return true;
}

int AnalysisEngine::terminate(const std::string* query_id, const std::vector<int>& plies) {
  int positions = 0;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& w : live_) {
    const auto s = w.lock();
    if (!s || (query_id && s->query.id != *query_id)) continue;
    for (size_t i = 0; i < s->query.plies.size(); ++i) {
      if (!plies.empty() && !std::binary_search(plies.begin(), plies.end(), s->query.plies[i])) continue;
      if (!s->answered[i].load() && !s->stop[i].exchange(true)) ++positions;
    }
  }
  return positions;
}

int AnalysisEngine::run(std::istream& in) {
  std::string line;
  bool too_long = false;
  while (read_line(in, line, too_long)) {
    if (too_long) {
      emit(error_json("", -1, "", "line longer than " + std::to_string(kMaxLineBytes) + " bytes ignored"));
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines are allowed
    if (!handle(line)) break;
  }
  wait_idle();
  return 0;
}

void AnalysisEngine::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_cv_.wait(lock, [&] { return queue_.empty() && running_ == 0; });
}

void AnalysisEngine::worker_loop(int index) {
  for (;;) {
    Job job;
    uint64_t number;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      job = queue_.top();
      queue_.pop();
      ++running_;
      number = jobs_started_++;
    }
    try {
      analyse(job, options_.seed * 0x9E3779B97F4A7C15ull + number * 2 + uint64_t(index));
    } catch (const std::exception& e) {
      emit(error_json(job.query->query.id, job.query->query.plies[size_t(job.index)], "",
                      std::string("analysis failed: ") + e.what()));
    }
    job.query->answered[size_t(job.index)] = true;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
      if (queue_.empty() && running_ == 0) idle_cv_.notify_all();
    }
  }
}

void AnalysisEngine::analyse(const Job& job, uint64_t seed) {
  const Query& q = job.query->query;
  const int ply = q.plies[size_t(job.index)];
  const std::atomic<bool>& stop = job.query->stop[size_t(job.index)];
  if (stop.load()) {
    emit(terminated_json(q.id, ply));
    return;
  }
  Game game(q.fen);
  for (int i = 0; i < ply; ++i) game.play(q.moves[size_t(i)]);
  if (game.over()) {
    emit(game_over_json(q, ply, game));
    return;
  }
  search::Search search(q.search, seed);
  search.set_root_filter(q.search_moves);
  search.start_move(game, q.max_visits, false);
  using Clock = std::chrono::steady_clock;
  auto last_report = Clock::now();
  search::DriveLimits limits;
  limits.stop = &stop;
  const size_t tree_share = std::max<size_t>(options_.max_tree_bytes / size_t(options_.threads), size_t(1) << 20);
  bool memory_limited = false;
  if (q.max_time_s > 0)
    limits.deadline =
        last_report + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(q.max_time_s));
  limits.after_round = [&] {
    if (search.tree().memory_bytes() >= tree_share && !search.done()) {
      memory_limited = true;
      return false;
    }
    if (q.report_every_s > 0 && !search.done() &&
        std::chrono::duration<double>(Clock::now() - last_report).count() >= q.report_every_s) {
      emit(analysis_json(q, ply, game, search, true, false));
      last_report = Clock::now();
    }
    return true;
  };
  bool finished;
  try {
    finished = search::drive_search(search, game, *evaluator_, options_.leaves_per_round, limits);
  } catch (const std::exception& e) {
    emit(error_json(q.id, ply, "", std::string("evaluator failed: ") + e.what()));
    return;
  }
  // Not finished: stopped by terminate, by maxTime (an answer like any other) or by the tree's
  // memory share (marked).
  emit(analysis_json(q, ply, game, search, false, !finished && stop.load(), !finished && memory_limited));
}

}  // namespace xq::app::analyse
