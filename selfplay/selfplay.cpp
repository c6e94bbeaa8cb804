#include "selfplay/selfplay.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "nn/policy_labels.h"
#include "selfplay/game_slot.h"

namespace xq::selfplay {

void fill_policy_target(const search::SearchResult& r, Color mover, xqzero::MoveRecord& out) {
  for (const search::RootMove& m : r.moves) {
    if (m.target <= 0) continue;
    out.add_policy_label(uint32_t(nn::label_of(m.move, mover)));
    out.add_policy_weight(m.target);
  }
}

double search_kl(const search::SearchResult& r) {
  double kl = 0;
  for (const search::RootMove& m : r.moves)
    if (m.target > 0) kl += double(m.target) * std::log(double(m.target) / std::max(double(m.prior), 1e-9));
  return std::max(0.0, kl);
}

Move choose_move(const search::SearchResult& r, float temperature, std::mt19937_64& rng) {
  if (temperature <= 0 || r.proven == search::Proven::WIN || r.moves.empty()) return r.best;
  std::vector<double> w;
  w.reserve(r.moves.size());
  for (const search::RootMove& m : r.moves)
    w.push_back(m.target > 0 ? std::pow(double(m.target), 1.0 / temperature) : 0.0);
  double total = 0;
  for (double x : w) total += x;
  if (!(total > 0) || !std::isfinite(total)) return r.best;
  return r.moves[std::discrete_distribution<size_t>(w.begin(), w.end())(rng)].move;
}

int ramped_visits(const SelfplayOptions& o, int visits, int64_t step) {
  if (o.visit_ramp_steps <= 0 || step < 0 || step >= o.visit_ramp_steps) return visits;
  const double share = o.visit_ramp_start + (1.0 - o.visit_ramp_start) * double(step) / o.visit_ramp_steps;
  return std::max(1, int(std::lround(visits * share)));
}

SelfplayRunner::SelfplayRunner(const SelfplayOptions& options, nn::Evaluator& evaluator, GameSink sink)
    : options_(options), sink_(std::move(sink)) {
  // A non-owning handle: the caller keeps `evaluator` alive while the runner runs.
  std::shared_ptr<nn::Evaluator> fixed(&evaluator, [](nn::Evaluator*) {});
  const std::string id = options.network_id;
  source_ = [fixed, id](int) { return GameEvaluator{fixed, id}; };
}

SelfplayRunner::SelfplayRunner(const SelfplayOptions& options, EvaluatorSource source, GameSink sink)
    : options_(options), source_(std::move(source)), sink_(std::move(sink)) {}

bool SelfplayRunner::claim_game() {
  if (stop_) return false;
  if (target_ == 0) return true;
  uint64_t n = started_.load();
  while (n < target_)
    if (started_.compare_exchange_weak(n, n + 1)) return true;
  return false;
}

void SelfplayRunner::run(uint64_t games) {
  target_ = games;
  started_ = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, options_.threads); ++t) threads.emplace_back([this, t] { worker(t); });
  for (auto& th : threads) th.join();
}

// One thread's games, driven in rounds: slots whose search is done play their move (a game
// that ends goes to the sink and the slot starts another); then the leaves of every slot's
// search are gathered, evaluated in one call per network, and handed back.
void SelfplayRunner::worker(int thread_index) {
  const SelfplayOptions& o = options_;
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + uint64_t(thread_index) * 1000003ULL + 1);
  std::vector<std::unique_ptr<GameSlot>> slots;
  for (int i = 0; i < std::max(1, o.games_per_thread); ++i) slots.push_back(std::make_unique<GameSlot>(o, stats_));
  auto start_or_close = [&](GameSlot& s) {
    if (claim_game())
      s.start(source_(thread_index), rng);
    else
      s.close();
  };

  for (auto& s : slots) start_or_close(*s);
  std::vector<nn::EvalRequest> requests;
  std::vector<nn::EvalResult> results;
  std::vector<nn::Evaluator*> nets;  // the distinct evaluators of this round's games
  for (;;) {
    if (stop_) break;
    if (paused_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    bool any = false;
    for (auto& sp : slots) {
      GameSlot& s = *sp;
      // Play moves whose search is done; a game may end here and a new one start.
      int guard = 0;
      while (s.active() && s.search().done() && guard++ < 1000) {
        if (!s.play_searched_move(rng)) continue;
        xqzero::GameRecord record = s.finish();
        {
          std::lock_guard<std::mutex> lock(sink_mutex_);
          sink_(std::move(record));
        }
        start_or_close(s);
      }
      if (s.active()) any = true;
    }
    if (!any) break;
    // One evaluator call per distinct network (two only while a new checkpoint comes in).
    nets.clear();
    for (auto& sp : slots)
      if (sp->active() && std::find(nets.begin(), nets.end(), sp->evaluator()) == nets.end())
        nets.push_back(sp->evaluator());
    for (nn::Evaluator* net : nets) {
      requests.clear();
      for (auto& sp : slots) {
        GameSlot& s = *sp;
        s.n_requests = 0;
        if (!s.active() || s.evaluator() != net) continue;
        s.first_request = requests.size();
        s.search().gather(s.game(), o.leaves_per_batch, requests);
        s.n_requests = requests.size() - s.first_request;
      }
      if (requests.empty()) continue;
      results.resize(requests.size());
      net->evaluate(nn::Span<const nn::EvalRequest>(requests.data(), requests.size()),
                    nn::Span<nn::EvalResult>(results.data(), requests.size()));
      ++stats_.batches;
      stats_.batch_positions += requests.size();
      stats_.evaluations += requests.size();
      for (auto& sp : slots) {
        GameSlot& s = *sp;
        if (s.active() && s.evaluator() == net && s.n_requests > 0)
          s.search().complete(results.data() + s.first_request, int(s.n_requests));
        s.n_requests = 0;
      }
    }
  }
}

}  // namespace xq::selfplay
