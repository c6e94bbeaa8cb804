#include "selfplay/selfplay.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "nn/policy_labels.h"

namespace xq::selfplay {

void fill_policy_target(const SearchResult& r, Color mover, xqzero::MoveRecord& out) {
  for (const RootMove& m : r.moves) {
    if (m.target <= 0) continue;
    out.add_policy_label(uint32_t(nn::label_of(m.move, mover)));
    out.add_policy_weight(m.target);
  }
}

double search_kl(const SearchResult& r) {
  double kl = 0;
  for (const RootMove& m : r.moves)
    if (m.target > 0) kl += double(m.target) * std::log(double(m.target) / std::max(double(m.prior), 1e-9));
  return std::max(0.0, kl);
}

Move choose_move(const SearchResult& r, float temperature, std::mt19937_64& rng) {
  if (temperature <= 0 || r.proven == Proven::WIN || r.moves.empty()) return r.best;
  std::vector<double> w;
  w.reserve(r.moves.size());
  for (const RootMove& m : r.moves) w.push_back(m.target > 0 ? std::pow(double(m.target), 1.0 / temperature) : 0.0);
  double total = 0;
  for (double x : w) total += x;
  if (!(total > 0) || !std::isfinite(total)) return r.best;
  return r.moves[std::discrete_distribution<size_t>(w.begin(), w.end())(rng)].move;
}

SelfplayRunner::SelfplayRunner(const SelfplayOptions& options, nn::Evaluator& evaluator, GameSink sink)
    : options_(options), sink_(std::move(sink)) {
  // A non-owning handle: the caller keeps `evaluator` alive while the runner runs.
  std::shared_ptr<nn::Evaluator> fixed(&evaluator, [](nn::Evaluator*) {});
  const std::string id = options.network_id;
  source_ = [fixed, id] { return GameEvaluator{fixed, id}; };
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

namespace {

struct Slot {
  explicit Slot(const SearchParams& p) : search(p) {}
  bool active = false;
  GameEvaluator net;
  Game game;
  Search search;
  xqzero::GameRecord record;
  bool full = false;        // this move's search is a full one
  bool no_resign = false;
  int low_streak[2] = {0, 0};
  int would_resign = -1;
  uint64_t seed = 0;
  size_t first_request = 0, n_requests = 0;
};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void SelfplayRunner::worker(int thread_index) {
  const SelfplayOptions& o = options_;
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + uint64_t(thread_index) * 1000003ULL + 1);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<std::unique_ptr<Slot>> slots;
  for (int i = 0; i < std::max(1, o.games_per_thread); ++i) slots.push_back(std::make_unique<Slot>(o.search));

  auto begin_move = [&](Slot& s) {
    s.full = unit(rng) < o.full_fraction;
    s.search.start_move(s.game, s.full ? o.full_visits : o.fast_visits, s.full || o.fast_exploration);
  };
  auto start_game = [&](Slot& s) {
    if (!claim_game()) {
      s.active = false;
      return;
    }
    s.active = true;
    s.net = source_();
    s.seed = rng();
    s.game = Game(Position::from_fen(o.start_fen), o.game);
    s.search = Search(o.search, s.seed);
    s.record.Clear();
    s.record.set_start_fen(s.game.position().fen());
    s.record.set_network(s.net.network_id);
    s.record.set_config(o.config_id);
    s.record.set_seed(s.seed);
    s.record.set_repetitions(o.game.repetitions);
    s.record.set_length_cap(o.game.length_cap);
    s.record.set_natural_limit(o.game.natural_limit);
    s.no_resign = unit(rng) < o.no_resign_fraction;
    s.record.set_no_resign(s.no_resign);
    s.low_streak[0] = s.low_streak[1] = 0;
    s.would_resign = -1;
    begin_move(s);
  };
  auto finish_game = [&](Slot& s) {
    const GameState st = s.game.state();
    s.record.set_result(to_string(st.result));
    s.record.set_termination(to_string(st.reason));
    s.record.set_finished_unix_ms(now_ms());
    s.record.set_would_resign(s.would_resign);
    ++stats_.games;
    stats_.plies_sum += uint64_t(s.game.ply());
    if (st.result == Result::RED_WIN) ++stats_.red_wins;
    if (st.result == Result::BLACK_WIN) ++stats_.black_wins;
    if (st.result == Result::DRAW) ++stats_.draws;
    ++stats_.terminations[int(st.reason)];
    if (s.no_resign) {
      ++stats_.no_resign_games;
      if (s.would_resign >= 0) {
        ++stats_.would_resign;
        if (st.result != win_for(~Color(s.would_resign))) ++stats_.false_resign;
      }
    }
    {
      std::lock_guard<std::mutex> lock(sink_mutex_);
      sink_(std::move(s.record));
    }
    s.record.Clear();
  };
  // Chooses, records and plays the move of a finished search.
  auto play_move = [&](Slot& s) {
    const SearchResult r = s.search.result();
    const Color mover = s.game.side_to_move();
    // Resignation, decided before the move is recorded: a resigning side plays no move.
    if (o.resign_threshold > -1.0f) {
      int& streak = s.low_streak[mover];
      streak = r.value < o.resign_threshold ? streak + 1 : 0;
      if (streak >= o.resign_consecutive) {
        if (!s.no_resign) {
          s.game.resign(mover);
          return;
        }
        if (s.would_resign < 0) s.would_resign = int(mover);
      }
    }
    const Move chosen = choose_move(r, s.game.ply() < o.temperature_plies ? o.temperature : 0.0f, rng);
    xqzero::MoveRecord* mr = s.record.add_moves();
    mr->set_move(move_to_iccs(chosen));
    fill_policy_target(r, mover, *mr);
    mr->set_root_value(r.value);
    mr->set_root_draw(r.draw);
    mr->set_training_target(s.full);
    mr->set_visits(r.visits);
    ++stats_.moves;
    if (s.full) {
      ++stats_.training_moves;
      stats_.search_kl_micro += uint64_t(std::llround(search_kl(r) * 1e6));
      ++stats_.searches_full;
    }
    s.game.play(chosen);
    if (o.tree_reuse)
      s.search.advance(chosen);
    else
      s.search.reset();
  };

  for (auto& s : slots) start_game(*s);
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
      Slot& s = *sp;
      if (!s.active) continue;
      // Finish moves whose search is done; a game may end here and a new one start.
      int guard = 0;
      while (s.active && s.search.done() && guard++ < 1000) {
        if (s.game.over()) {
          finish_game(s);
          start_game(s);
          continue;
        }
        play_move(s);
        if (s.game.over()) {
          finish_game(s);
          start_game(s);
        } else {
          begin_move(s);
        }
      }
      if (s.active) any = true;
    }
    if (!any) break;
    // One evaluator call per distinct network (two only while a new checkpoint comes in).
    nets.clear();
    for (auto& sp : slots)
      if (sp->active && std::find(nets.begin(), nets.end(), sp->net.evaluator.get()) == nets.end())
        nets.push_back(sp->net.evaluator.get());
    for (nn::Evaluator* net : nets) {
      requests.clear();
      for (auto& sp : slots) {
        Slot& s = *sp;
        s.n_requests = 0;
        if (!s.active || s.net.evaluator.get() != net) continue;
        s.first_request = requests.size();
        s.search.gather(s.game, o.leaves_per_batch, requests);
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
        Slot& s = *sp;
        if (s.active && s.net.evaluator.get() == net && s.n_requests > 0)
          s.search.complete(results.data() + s.first_request, int(s.n_requests));
        s.n_requests = 0;
      }
    }
  }
}

}  // namespace xq::selfplay
