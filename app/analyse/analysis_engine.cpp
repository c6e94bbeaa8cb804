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

struct AnalysisEngine::QueryState {
  Query query;
  std::atomic<bool> cancelled{false};
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
  switch (p.kind) {
    case LineKind::QUIT: return false;
    case LineKind::TERMINATE: terminate(p.id, p.terminate_id); return true;
    case LineKind::ERROR: emit(error_json(p.id, -1, p.field, p.message)); return true;
    case LineKind::QUERY: break;
  }
  auto state = std::make_shared<QueryState>();
  state->query = std::move(p.query);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.erase(std::remove_if(live_.begin(), live_.end(), [](const auto& w) { return w.expired(); }), live_.end());
    live_.push_back(state);
    for (int ply : state->query.plies) queue_.push_back(Job{state, ply});
  }
  work_cv_.notify_all();
  return true;
}

void AnalysisEngine::terminate(const std::string& action_id, const std::string& query_id) {
  int positions = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& w : live_)
      if (const auto s = w.lock(); s && s->query.id == query_id && !s->cancelled.exchange(true))
        positions += int(s->query.plies.size());
  }
  emit(terminate_ack_json(action_id, query_id, positions));
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
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
      number = jobs_started_++;
    }
    try {
      analyse(job, options_.seed * 0x9E3779B97F4A7C15ull + number * 2 + uint64_t(index));
    } catch (const std::exception& e) {
      emit(error_json(job.query->query.id, job.ply, "", std::string("analysis failed: ") + e.what()));
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
      if (queue_.empty() && running_ == 0) idle_cv_.notify_all();
    }
  }
}

void AnalysisEngine::analyse(const Job& job, uint64_t seed) {
  const Query& q = job.query->query;
  if (job.query->cancelled.load()) {
    emit(terminated_json(q.id, job.ply));
    return;
  }
  Game game(q.fen);
  for (int i = 0; i < job.ply; ++i) game.play(q.moves[size_t(i)]);
  if (game.over()) {
    emit(game_over_json(q, job.ply, game));
    return;
  }
  search::Search search(q.search, seed);
  search.set_root_filter(q.search_moves);
  search.start_move(game, q.max_visits, false);
  using Clock = std::chrono::steady_clock;
  auto last_report = Clock::now();
  search::DriveLimits limits;
  limits.stop = &job.query->cancelled;
  if (q.report_every_s > 0)
    limits.after_round = [&] {
      if (std::chrono::duration<double>(Clock::now() - last_report).count() >= q.report_every_s && !search.done()) {
        emit(analysis_json(q, job.ply, game, search, true, false));
        last_report = Clock::now();
      }
      return true;
    };
  bool finished;
  try {
    finished = search::drive_search(search, game, *evaluator_, options_.leaves_per_round, limits);
  } catch (const std::exception& e) {
    emit(error_json(q.id, job.ply, "", std::string("evaluator failed: ") + e.what()));
    return;
  }
  const bool terminated = !finished;
  emit(analysis_json(q, job.ply, game, search, false, terminated));
}

}  // namespace xq::app::analyse
