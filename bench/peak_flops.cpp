#include "bench/peak_flops.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "nn/torch_evaluator.h"

namespace xq::bench {

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
    const auto options = torch::TensorOptions().device(device).dtype(dtype);
    const torch::Tensor a = torch::randn({n, n}, options), b = torch::randn({n, n}, options);
    torch::Tensor c = torch::empty({n, n}, options);
    auto product = [&] { at::mm_out(c, a, b); };
    product();
    (void)c.sum().item<float>();  // waits for the device
    const double flops = 2.0 * double(n) * double(n) * double(n);
    for (int run = 0; run < 3; ++run) {
      int iters = 0;
      const auto t0 = std::chrono::steady_clock::now();
      double elapsed = 0;
      do {
        product();
        if (device.is_cuda()) (void)c.sum().item<float>();
        ++iters;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      } while (elapsed < seconds / 3 || iters < 2);
      peak.gflops = std::max(peak.gflops, flops * iters / elapsed / 1e9);
    }
    peak.what = "matmul " + std::to_string(n) + " x " + std::to_string(n) + ", " +
                (dtype == torch::kHalf       ? "float16"
                 : dtype == torch::kBFloat16 ? "bfloat16"
                                             : "float32") +
                ", " + (device.is_cuda() ? "cuda:" + std::to_string(device.index()) : std::string("cpu")) + ", " +
                std::to_string(at::get_num_threads()) + " thread(s)";
  });
  timer.join();
  return peak;
}

}  // namespace xq::bench
