#include "bench/train_bench.h"

#include <chrono>
#include <cstdio>
#include <ostream>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "nn/net_config.h"
#include "selfplay/selfplay.h"
#include "selfplay/selfplay_config.h"
#include "training/replay_window.h"
#include "training/trainer.h"

namespace xq::bench {

namespace {

// One untimed warm-up step, then steps on batches of `share` positions sampled from the window
// until stop(seconds so far) says so. Returns (steps, seconds); `batch` holds the last batch.
template <typename Stop>
std::pair<int64_t, double> timed_steps(training::Trainer& trainer, const training::ReplayWindow& window, int share,
                                       uint64_t seed, std::vector<training::TrainingPosition>& batch, Stop stop) {
  std::mt19937_64 rng(seed);
  window.sample(share, rng, batch);
  trainer.step(batch);
  const auto start = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int64_t steps = 0;
  while (!stop(since())) {
    window.sample(share, rng, batch);
    trainer.step(batch);
    ++steps;
  }
  return {steps, since()};
}

// Data-parallel: every rank steps on its share until rank 0's clock says stop (the ranks agree
// each step, so they stop at the same step); no bare-loop comparison.
void run_distributed_train_bench(std::ostream& out, const xqzero::Config& config, double seconds,
                                 const training::ReplayWindow& window, const training::DistributedOptions& d) {
  const xqzero::TrainingConfig& tc = config.training();
  const int share = tc.batch_size() / d.world_size;
  if (share * d.world_size != tc.batch_size())
    throw std::invalid_argument("training.batch_size must be a multiple of the world size");
  const training::RankDevice device = training::rank_device(tc.device(), d);
  training::DistributedOptions rank = d;
  rank.nccl = device.nccl;
  auto collective = training::Collective::connect(rank);
  xqzero::TrainingConfig rank_tc = tc;
  rank_tc.set_device(device.device);
  training::Trainer trainer(config.network(), rank_tc);
  trainer.join(*collective);
  std::vector<training::TrainingPosition> batch;
  const auto [steps, elapsed] = timed_steps(trainer, window, share, 1 + uint64_t(d.rank), batch, [&](double t) {
    std::vector<int64_t> done{d.rank == 0 && t >= seconds};
    collective->max(done);
    return done[0] != 0;
  });
  trainer.average_buffers();  // BatchNorm statistics, each rank's own until now
  char line[200];
  out << "net " << nn::short_name(config.network()) << " on " << trainer.device_name() << ", batch " << tc.batch_size()
      << " over " << d.world_size << " ranks (this is rank " << d.rank << "), " << tc.optimizer() << ", window "
      << window.window_size() << " positions\n";
  std::snprintf(line, sizeof line, "%-40s %10.0f\n", "trainer samples/s, all ranks",
                double(steps) * tc.batch_size() / elapsed);
  out << line;
  std::snprintf(line, sizeof line, "%-40s %10x\n", "weights checksum (equal on every rank)",
                unsigned(trainer.weights_checksum() & 0xffffffffu));
  out << line;
}

}  // namespace

void run_train_bench(std::ostream& out, const xqzero::Config& config, double seconds,
                     const training::DistributedOptions& distributed) {
  const xqzero::TrainingConfig& tc = config.training();
  const int batch_size = tc.batch_size();
  // Data: quick self-play with the uniform evaluator, every move a target.
  selfplay::SelfplayOptions sp = selfplay::selfplay_options(config);
  sp.full_fraction = 1.0f;
  sp.full_visits = 8;
  sp.threads = 1;
  nn::UniformEvaluator uniform;
  training::ReplayWindow window(1, 1 << 20, 1.0);
  selfplay::SelfplayRunner runner(sp, uniform, [&](xqzero::GameRecord&& g) { window.add(training::positions_of(g)); });
  while (window.total_added() < 4 * int64_t(batch_size)) runner.run(uint64_t(sp.games_per_thread));
  if (distributed.enabled()) return run_distributed_train_bench(out, config, seconds, window, distributed);

  training::Trainer trainer(config.network(), tc);
  std::vector<training::TrainingPosition> batch;
  const auto [steps, elapsed] =
      timed_steps(trainer, window, batch_size, 1, batch, [&](double t) { return t >= seconds; });
  const double with_data = double(steps) * batch_size / elapsed;
  const double raw = trainer.raw_throughput(batch, seconds);

  char line[200];
  out << "net " << nn::short_name(config.network()) << " on " << trainer.device_name() << ", batch " << batch_size
      << ", " << tc.optimizer() << ", window " << window.window_size() << " positions\n";
  std::snprintf(line, sizeof line, "%-40s %10.0f\n", "trainer samples/s (sample+batch+step)", with_data);
  out << line;
  std::snprintf(line, sizeof line, "%-40s %10.0f\n", "raw forward+backward samples/s", raw);
  out << line;
  std::snprintf(line, sizeof line, "%-40s %10.2f\n", "ratio", raw > 0 ? with_data / raw : 0.0);
  out << line;
}

}  // namespace xq::bench
