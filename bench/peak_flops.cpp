#include "bench/peak_flops.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

#include "nn/torch_evaluator.h"

namespace xq::bench {

namespace {

// GFLOP/s of `op` (`flops` per call): the best of three runs of about `seconds` / 3 each,
// after a warm-up; `sync` waits for the device.
double best_rate(const std::function<void()>& op, const std::function<void()>& sync, double flops, bool cuda,
                 double seconds) {
  op();
  sync();
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    int iters = 0;
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      op();
      if (cuda) sync();
      ++iters;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (elapsed < seconds / 3 || iters < 2);
    best = std::max(best, flops * iters / elapsed / 1e9);
  }
  return best;
}

}  // namespace

PeakFlops measure_peak(const nn::Evaluator& backend, int threads, double seconds, int n) {
  PeakFlops peak;
  const auto* torch_backend = dynamic_cast<const nn::TorchEvaluator*>(&backend);
  if (!torch_backend) return peak;
  const torch::Device device = torch_backend->device();
  const torch::ScalarType dtype = torch_backend->dtype();
  std::thread timer([&] {
    if (threads > 0) at::set_num_threads(threads);
    c10::InferenceMode guard;
    torch::manual_seed(3);
    const bool cuda = device.is_cuda();
    const auto options = torch::TensorOptions().device(device).dtype(dtype);
    // A large matrix product.
    const torch::Tensor a = torch::randn({n, n}, options), b = torch::randn({n, n}, options);
    torch::Tensor c = torch::empty({n, n}, options);
    const auto sync_mm = [&] { (void)c.sum().item<float>(); };
    const double mm = best_rate([&] { at::mm_out(c, a, b); }, sync_mm, 2.0 * n * n * double(n), cuda, seconds);
    // A wide 3x3 convolution on the board (128 channels, batch 64, channels-last): the
    // library's convolution kernels at their best, where a small net's layers lose to
    // reorders and short loops. Without AMX, torch's bfloat16 matrix product can run slower
    // than its convolutions, so the peak is the better of the two.
    constexpr int kChannels = 128, kBatch = 64, kRows = 10, kFiles = 9;
    const torch::Tensor x =
        torch::randn({kBatch, kChannels, kRows, kFiles}, options).contiguous(at::MemoryFormat::ChannelsLast);
    const torch::Tensor w =
        torch::randn({kChannels, kChannels, 3, 3}, options).contiguous(at::MemoryFormat::ChannelsLast);
    torch::Tensor y;
    const auto sync_conv = [&] { (void)y.sum().item<float>(); };
    const double conv_flops = 2.0 * kBatch * kRows * kFiles * double(kChannels) * kChannels * 9;
    const double conv = best_rate([&] { y = at::conv2d(x, w, {}, 1, 1); }, sync_conv, conv_flops, cuda, seconds);
    peak.gflops = std::max(mm, conv);
    const std::string where = std::string(nn::precision_name(dtype)) + ", " +
                              (cuda ? "cuda:" + std::to_string(device.index()) : std::string("cpu")) + ", " +
                              std::to_string(at::get_num_threads()) + " thread(s)";
    char figures[160];
    std::snprintf(figures, sizeof figures, "best of matmul %d x %d (%.0f) and conv3x3 %dch batch %d (%.0f), ", n, n, mm,
                  kChannels, kBatch, conv);
    peak.what = figures + where;
  });
  timer.join();
  return peak;
}

}  // namespace xq::bench
