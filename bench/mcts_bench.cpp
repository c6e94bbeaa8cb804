#include "bench/mcts_bench.h"

#include <chrono>
#include <cstdio>
#include <ostream>
#include <thread>

#include "bench/peak_flops.h"
#include "core/game.h"
#include "nn/batching_evaluator.h"
#include "nn/evaluator_factory.h"
#include "nn/net_config.h"
#include "nn/net_flops.h"
#include "nn/random_walk.h"
#include "search/search.h"
#include "selfplay/selfplay.h"
#include "selfplay/selfplay_config.h"

namespace xq::bench {

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Positions per second of `backend` on batches of `batch` distinct positions.
double raw_throughput(nn::Evaluator& backend, int batch, double seconds) {
  const std::vector<nn::EvalInput> inputs = nn::random_walk_inputs(batch, 7);
  std::vector<nn::EvalRequest> requests;
  for (const auto& in : inputs) requests.push_back(in.request());
  std::vector<nn::EvalResult> results(requests.size());
  backend.evaluate(requests, results);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  uint64_t done = 0;
  while (since(start) < seconds) {
    backend.evaluate(requests, results);
    done += requests.size();
  }
  return double(done) / since(start);
}

}  // namespace

void run_mcts_bench(std::ostream& out, const xqzero::Config& config, double seconds) {
  xqzero::EvaluatorConfig backend_config = config.evaluator();
  backend_config.set_name("torch");
  backend_config.set_max_batch(1);  // the bare backend; batching is added here
  backend_config.set_cache_entries(0);
  const std::shared_ptr<nn::Evaluator> backend = nn::make_evaluator(backend_config, config.network());
  nn::BatchingEvaluator::Options bo;
  bo.max_batch = config.evaluator().max_batch();
  bo.deadline_us = config.evaluator().deadline_us();
  bo.callers = selfplay::selfplay_callers(config).threads;  // as self-play's evaluators have it
  auto batching = std::make_shared<nn::BatchingEvaluator>(backend, bo);

  selfplay::SelfplayOptions options = selfplay::selfplay_options(config);
  uint64_t games_done = 0;
  selfplay::SelfplayRunner runner(options, *batching, [&](xqzero::GameRecord&&) { ++games_done; });
  const auto start = std::chrono::steady_clock::now();
  std::thread worker([&] { runner.run(0); });
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  runner.stop();
  worker.join();
  const double elapsed = since(start);
  const auto& s = runner.stats();
  const double evals = double(batching->positions()) / elapsed;
  const double fill = batching->batches() ? double(batching->positions()) / double(batching->batches()) : 0;
  const int batch = std::max(1, int(fill + 0.5));
  // The raw figure is measured right after, on the same machine state, as the better of two
  // runs (a busy machine only ever makes the raw figure lower, and the ratio higher).
  const double raw_seconds = std::max(1.0, seconds / 4);
  const double raw =
      std::max(raw_throughput(*backend, batch, raw_seconds), raw_throughput(*backend, batch, raw_seconds));

  char line[256];
  out << "net " << nn::short_name(config.network()) << ", " << backend->describe() << "\n";
  out << "self-play: " << options.threads << " thread(s) x " << options.games_per_thread << " games, "
      << options.leaves_per_batch << " leaves per game and round, " << config.search().algorithm() << ", "
      << options.full_visits << "/" << options.fast_visits << " visits\n";
  std::snprintf(line, sizeof line, "%-34s %12.0f\n", "search moves/s", double(s.moves.load()) / elapsed);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12.0f\n", "leaf evaluations/s (search)", evals);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12.1f of %d\n", "evaluator batch fill", fill, bo.max_batch);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12.0f  (batch %d)\n", "raw backend positions/s", raw, batch);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12.2f\n", "ratio search / raw", raw > 0 ? evals / raw : 0.0);
  out << line;
  // The leaf evaluations' operations against a peak measured here (bench/peak_flops.h).
  const double flops = nn::net_flops(config.network()).total();
  const PeakFlops peak = measure_peak(*backend, config.evaluator().threads());
  std::snprintf(line, sizeof line, "%-34s %12.1f  (%.2f MFLOP per position)\n", "leaf evaluations GFLOP/s",
                evals * flops / 1e9, flops / 1e6);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12.1f  (%s)\n", "measured peak GFLOP/s", peak.gflops, peak.what.c_str());
  out << line;
  std::snprintf(line, sizeof line, "%-34s %11.1f%%  (raw backend %.1f%%)\n", "leaf evaluations of peak",
                peak.gflops > 0 ? 100 * evals * flops / 1e9 / peak.gflops : 0.0,
                peak.gflops > 0 ? 100 * raw * flops / 1e9 / peak.gflops : 0.0);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12zu / %zu bytes\n", "tree node / edge", sizeof(search::Node),
                search::kEdgeBytes);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12llu\n", "games finished", (unsigned long long)games_done);
  out << line;
}

void run_tree_memory_bench(std::ostream& out, int visits, const std::string& algorithm) {
  search::SearchParams params;
  params.algorithm = algorithm == "gumbel" ? search::RootAlgorithm::GUMBEL : search::RootAlgorithm::PUCT;
  search::Search search(params, 1);
  Game game;
  nn::UniformEvaluator uniform;
  const search::SearchResult r = search.run(game, uniform, visits, false, 16);
  const search::Tree& t = search.tree();
  char line[256];
  out << "tree memory: one " << (params.algorithm == search::RootAlgorithm::GUMBEL ? "gumbel" : "puct")
      << " search from the start position, uniform evaluator\n";
  std::snprintf(line, sizeof line, "%-34s %12u\n", "root visits", r.visits);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12zu\n", "nodes", t.node_count());
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12zu\n", "edges", t.edge_count());
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12zu  (%.1f MB)\n", "bytes in use", t.memory_bytes(),
                double(t.memory_bytes()) / 1e6);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12.1f\n", "bytes per node",
                t.node_count() ? double(t.memory_bytes()) / double(t.node_count()) : 0.0);
  out << line;
  std::snprintf(line, sizeof line, "%-34s %12.1f\n", "edges per node",
                t.node_count() ? double(t.edge_count()) / double(t.node_count()) : 0.0);
  out << line;
}

}  // namespace xq::bench
