#include "bench/train_bench.h"

#include <chrono>
#include <cstdio>
#include <ostream>

#include "nn/net_config.h"
#include "selfplay/selfplay.h"
#include "selfplay/selfplay_config.h"
#include "training/replay_window.h"
#include "training/trainer.h"

namespace xq::bench {

void run_train_bench(std::ostream& out, const xqzero::Config& config, double seconds) {
  const xqzero::TrainingConfig& tc = config.training();
  const int batch_size = tc.batch_size();
  // Data: quick self-play with the uniform evaluator, every move a target.
  selfplay::SelfplayOptions sp = selfplay::selfplay_options(config);
  sp.full_fraction = 1.0f;
  sp.full_visits = 8;
  sp.threads = 1;
  nn::UniformEvaluator uniform;
  training::ReplayWindow window(1, 1 << 20, 1.0);
  selfplay::SelfplayRunner runner(sp, uniform,
                                  [&](xqzero::GameRecord&& g) { window.add(training::positions_of(g)); });
  while (window.total_added() < 4 * int64_t(batch_size)) runner.run(uint64_t(sp.games_per_thread));

  training::Trainer trainer(config.network(), tc);
  std::mt19937_64 rng(1);
  std::vector<training::TrainingPosition> batch;
  window.sample(batch_size, rng, batch);
  trainer.step(batch);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int64_t samples = 0;
  while (since() < seconds) {
    window.sample(batch_size, rng, batch);
    trainer.step(batch);
    samples += batch_size;
  }
  const double with_data = double(samples) / since();
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
