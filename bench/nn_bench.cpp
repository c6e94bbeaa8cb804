#include "bench/nn_bench.h"

#include <time.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bench/peak_flops.h"
#include "nn/batching_evaluator.h"
#include "nn/checkpoint.h"
#include "nn/device.h"
#include "nn/net_config.h"
#include "nn/net_flops.h"
#include "nn/output_check.h"
#include "nn/planes.h"
#include "nn/random_walk.h"
#include "nn/torch_evaluator.h"

namespace xq::bench {

using nn::EvalInput;
using nn::EvalRequest;
using nn::EvalResult;
using nn::Span;
using Clock = std::chrono::steady_clock;

namespace {

constexpr float kPolicyScale = 24, kValueScale = 48;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// CPU seconds used by this process: on a shared machine, positions per CPU second show the
// net's speed independently of what else runs.
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Fresh weights made to behave like a trained net's for the check: BatchNorm statistics and
// affine parameters away from their defaults (so folding them is exercised), output layers
// scaled up so that priors and W/D/L are peaked rather than near uniform.
void make_checkable(nn::Network& net, uint64_t seed) {
  torch::manual_seed(seed);
  torch::NoGradGuard g;
  for (auto& b : net->named_buffers()) {
    if (b.key().find("running_mean") != std::string::npos) b.value().uniform_(-0.1, 0.1);
    if (b.key().find("running_var") != std::string::npos) b.value().uniform_(0.7, 1.3);
  }
  for (auto& p : net->named_parameters()) {
    const std::string& k = p.key();
    if (k.find("bn") != std::string::npos && k.find(".weight") != std::string::npos) p.value().uniform_(0.7, 1.3);
    if (k.find("bn") != std::string::npos && k.find(".bias") != std::string::npos) p.value().uniform_(-0.1, 0.1);
    if (k.rfind("policy_out.", 0) == 0) p.value().mul_(kPolicyScale);
    if (k.rfind("value_fc2.", 0) == 0) p.value().mul_(kValueScale);
  }
}

// Whether /proc/cpuinfo lists `flag` (false where it cannot be read).
bool cpu_has(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  std::string word;
  while (in >> word)
    if (word == flag) return true;
  return false;
}

std::string line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

// Seconds per call of `f`, over at least `seconds` and `min_iters` calls after one warm-up call.
template <typename F>
double seconds_per_call(F&& f, double seconds, int min_iters) {
  f();
  int iters = 0;
  const auto t0 = Clock::now();
  do {
    f();
    ++iters;
  } while (since(t0) < seconds || iters < min_iters);
  return since(t0) / iters;
}

// The first `batch` requests' compact bytes as a tensor on the backend's device (call under
// c10::InferenceMode).
torch::Tensor device_compact(const nn::TorchEvaluator& backend, const std::vector<EvalRequest>& requests, int batch,
                             nn::PlaneLayout layout) {
  const int width = nn::compact_width(layout);
  std::vector<uint8_t> bytes(size_t(batch) * size_t(width));
  for (int b = 0; b < batch; ++b) nn::write_compact(requests[size_t(b)], layout, &bytes[size_t(b) * width]);
  return torch::from_blob(bytes.data(), {batch, width}, torch::kUInt8).clone().to(backend.device());
}

// The raw throughput table, one row per batch size; returns the backend's rate per batch size.
// `flops`: per position (nn/net_flops.h); `peak_gflops` the measured peak (0: none).
std::map<int, double> raw_throughput(std::ostream& out, nn::TorchEvaluator& backend,
                                     const std::vector<EvalRequest>& requests, const NnBenchOptions& o, double flops,
                                     double peak_gflops) {
  std::map<int, double> backend_rate;
  const nn::PlaneLayout layout = nn::plane_layout(o.network);
  for (int batch = 1; batch <= o.max_batch; batch *= 2) {
    // forward alone: the compact batch already on the device
    double forward_rate = 0;
    {
      c10::InferenceMode guard;
      const torch::Tensor compact = device_compact(backend, requests, batch, layout);
      forward_rate =
          double(batch) /
          seconds_per_call([&] { return backend.forward_compact(compact).second.sum().item<float>(); }, o.seconds, 2);
    }
    std::vector<EvalResult> results(static_cast<size_t>(batch));
    const Span<const EvalRequest> span(requests.data(), size_t(batch));
    backend.evaluate(span, results);
    int iters = 0;
    const auto t0 = Clock::now();
    const double c0 = cpu_seconds();
    do {
      backend.evaluate(span, results);
      ++iters;
    } while (since(t0) < o.seconds || iters < 2);
    const double elapsed = since(t0), cpu = cpu_seconds() - c0;
    backend_rate[batch] = double(batch) * iters / elapsed;
    const double gflops = forward_rate * flops / 1e9;
    out << line("%6d %12.0f %12.0f %10.3f %14.0f %9.1f %8.1f%%\n", batch, forward_rate, backend_rate[batch],
                1000 * elapsed / iters, double(batch) * iters / cpu, gflops,
                peak_gflops > 0 ? 100 * gflops / peak_gflops : 0.0);
    out.flush();
  }

  return backend_rate;
}

// Where one batch's time goes: the backend's evaluate() at batch min(64, max_batch) in its
// parts, each timed alone over the same batch (bench nn --breakdown).
void time_breakdown(std::ostream& out, nn::TorchEvaluator& backend, const std::vector<EvalRequest>& requests,
                    const NnBenchOptions& o, const nn::NetFlops& flops, double peak_gflops) {
  const int batch = std::min(64, o.max_batch);
  const Span<const EvalRequest> span(requests.data(), size_t(batch));
  std::vector<EvalResult> results(static_cast<size_t>(batch));
  const std::unique_ptr<nn::BatchSlot> slot = backend.make_slot(batch);
  const bool cuda = backend.device().is_cuda();
  auto per_call = [&](auto&& f) { return seconds_per_call(f, o.seconds, 3); };
  auto done = [&](const torch::Tensor& t) {  // a CUDA stage has finished only when read
    if (cuda) (void)t.flatten()[0].item<float>();
  };
  const double prepare = per_call([&] { backend.prepare(*slot, span); });
  const double run = per_call([&] { backend.run(*slot, results); });
  double planes = 0, tower = 0, policy = 0, value = 0, forward = 0;
  {
    c10::InferenceMode guard;
    const torch::Tensor compact = device_compact(backend, requests, batch, nn::plane_layout(o.network));
    const torch::Tensor input = backend.forward_planes(compact);
    const torch::Tensor features = backend.forward_tower(input);
    planes = per_call([&] { done(backend.forward_planes(compact)); });
    tower = per_call([&] { done(backend.forward_tower(input)); });
    policy = per_call([&] { done(backend.forward_policy(features)); });
    value = per_call([&] { done(backend.forward_value(features)); });
    forward = per_call([&] {
      const auto r = backend.forward_compact(compact);
      done(r.first);
      done(r.second);
    });
  }
  const double total = prepare + run;
  const double tower_gflops = flops.tower() * batch / tower / 1e9;
  out << line("where a batch of %d goes (%s; each part timed alone, ms per batch)\n", batch,
              backend.describe().c_str());
  auto row = [&](const char* what, double s, const std::string& note = "") {
    out << line("  %-46s %8.3f %6.1f%%  %s\n", what, 1000 * s, 100 * s / total, note.c_str());
  };
  row("host: compact bytes, label indices (prepare)", prepare);
  row("input planes (expand_planes)", planes);
  row("tower: stem and residual blocks", tower,
      line("%.1f GFLOP/s, %.1f%% of peak", tower_gflops, peak_gflops > 0 ? 100 * tower_gflops / peak_gflops : 0.0));
  row("policy head", policy);
  row("value head", value);
  row("rest of the forward pass (forward - parts)", forward - planes - tower - policy - value);
  row("gather, mask, softmax, copies (run - forward)", run - forward);
  row("total (prepare + run)", total, line("%.0f positions/s", batch / total));
  out.flush();
}

// The batching evaluator's table: threads submitting single positions, against the raw rate.
void batching_throughput(std::ostream& out, const std::shared_ptr<nn::TorchEvaluator>& backend,
                         const std::vector<EvalRequest>& requests, const std::map<int, double>& backend_rate,
                         const NnBenchOptions& o) {
  const auto raw_rate = [&](int batch) {
    const auto it = backend_rate.find(batch);
    return it == backend_rate.end() ? 0.0 : it->second;
  };
  out << "batching evaluator, each thread submitting single positions (deadline " << o.deadline_us << " us)\n";
  out << line("%8s %6s %12s %11s %12s %9s\n", "threads", "max", "positions/s", "mean batch", "backend@max", "ratio");
  std::vector<std::pair<int, int>> rows;
  for (int t : o.submitters) rows.emplace_back(t, t);
  const int last = o.submitters.empty() ? 4 : o.submitters.back();
  rows.emplace_back(2 * last, last);
  for (auto [threads, max_batch] : rows) {
    if (max_batch > o.max_batch) continue;
    nn::BatchingEvaluator batching(backend, {max_batch, o.deadline_us, 2});
    std::atomic<bool> stop{false}, go{false};
    std::atomic<uint64_t> done{0};
    std::vector<std::thread> pool_threads;
    for (int t = 0; t < threads; ++t)
      pool_threads.emplace_back([&, t] {
        EvalResult r;
        size_t i = size_t(t) * 7919;
        while (!go.load()) std::this_thread::yield();
        uint64_t mine = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          batching.evaluate_one(requests[i++ % requests.size()], r);
          ++mine;
        }
        done += mine;
      });
    // warm up briefly, then measure
    go = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const uint64_t b0 = batching.batches(), p0 = batching.positions();
    const auto t0 = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds * 1.5));
    const uint64_t b1 = batching.batches(), p1 = batching.positions();
    const double elapsed = since(t0);
    stop = true;
    for (auto& th : pool_threads) th.join();
    const double rate = double(p1 - p0) / elapsed;
    const double mean = b1 > b0 ? double(p1 - p0) / double(b1 - b0) : 0;
    out << line("%8d %6d %12.0f %11.2f %12.0f %8.1f%%\n", threads, max_batch, rate, mean, raw_rate(max_batch),
                100 * rate / raw_rate(max_batch));
    out.flush();
  }
}

// One row of nncheck: `requests` evaluated on (device, precision) along `path` (batched, through
// a checkpoint file, through the batching evaluator from four threads, or the module cast),
// compared with `expected`. Returns whether it is within the precision's tolerance.
bool check_path(std::ostream& out, const nn::Network& reference_net, const std::string& ckpt, const std::string& device,
                const std::string& precision, const std::string& path, const std::vector<EvalRequest>& requests,
                const std::vector<EvalResult>& expected, int torch_threads) {
  nn::Network net = path == "checkpoint" ? nn::load_network(ckpt) : nn::clone_network(reference_net);
  nn::InferenceForm form;
  if (path == "batched, module cast") form.fold_batchnorm = form.channels_last = false;
  auto backend = std::make_shared<nn::TorchEvaluator>(net, device, precision, torch_threads, form);
  std::vector<EvalResult> got(requests.size());
  if (path == "batching x4 threads") {
    nn::BatchingEvaluator batching(backend, {64, 500, 2});
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (size_t i = size_t(t); i < requests.size(); i += 4) batching.evaluate_one(requests[i], got[i]);
      });
    for (auto& th : threads) th.join();
  } else {
    backend->evaluate(requests, got);
  }
  const nn::OutputDifference d = nn::compare_outputs(expected, got);
  const std::string excess = nn::tolerance_excess(d, nn::output_tolerance(precision));
  std::string form_name = backend->folded() ? "bn folded" : "module";
  if (backend->channels_last()) form_name += ", channels-last";
  out << line("%-7s %-9s %-20s %-24s %11.2e %11.2e %6.1f%% %6.1f%% %10.2e  ", device.c_str(), precision.c_str(),
              path.c_str(), form_name.c_str(), d.max_prior, d.max_wdl, 100 * d.top1_agreement,
              100 * d.top1_agreement_beyond_ties, d.max_top1_loss)
      << (excess.empty() ? "ok" : "FAIL: " + excess) << "\n";
  out.flush();
  return excess.empty();
}

}  // namespace

void run_nn_bench(std::ostream& out, const NnBenchOptions& o) {
  nn::validate(o.network);
  nn::Network net = nn::make_network(o.network, 1);
  nn::InferenceForm form;
  form.fold_batchnorm = o.fold_batchnorm;
  form.channels_last = o.channels_last;
  auto backend = std::make_shared<nn::TorchEvaluator>(net, o.device, o.precision, o.threads, form);
  if (o.threads > 0) at::set_num_threads(o.threads);  // the raw forward loop runs on this thread
  const int pool = std::max(o.max_batch, 64);
  const std::vector<EvalInput> inputs = nn::random_walk_inputs(pool, 42);
  std::vector<EvalRequest> requests;
  for (const EvalInput& in : inputs) requests.push_back(in.request());

  out << "network " << nn::short_name(o.network) << ": " << net->parameter_count() << " parameters; evaluator "
      << backend->describe() << "; torch threads " << at::get_num_threads() << "\n";
  const nn::NetFlops flops = nn::net_flops(o.network);
  const PeakFlops peak = measure_peak(*backend, o.threads);
  out << line("operations per position: %.2f MFLOP (tower %.2f, policy head %.2f, value head %.2f)\n",
              flops.total() / 1e6, flops.tower() / 1e6, flops.policy / 1e6, flops.value / 1e6);
  out << line("measured peak: %.1f GFLOP/s (%s)\n", peak.gflops, peak.what.c_str());
  out << "raw throughput (positions/s): forward = planes + net on device tensors; backend = whole torch"
         " evaluator call; GFLOP/s and peak: of the forward pass\n";
  out << line("%6s %12s %12s %10s %14s %9s %9s\n", "batch", "forward", "backend", "ms/batch", "backend/cpu-s",
              "GFLOP/s", "of peak");
  const std::map<int, double> backend_rate = raw_throughput(out, *backend, requests, o, flops.total(), peak.gflops);
  if (o.breakdown) time_breakdown(out, *backend, requests, o, flops, peak.gflops);
  batching_throughput(out, backend, requests, backend_rate, o);
}

bool run_nn_check(std::ostream& out, const NnCheckOptions& o) {
  nn::Network reference_net{nullptr};
  if (!o.weights.empty()) {
    reference_net = nn::load_network(o.weights);
  } else {
    nn::validate(o.network);
    reference_net = nn::make_network(o.network, o.seed);
    make_checkable(reference_net, o.seed + 1);
  }
  const xqzero::NetworkConfig& config = reference_net->config();
  const std::vector<EvalInput> inputs = nn::random_walk_inputs(o.positions, o.seed + 2);
  std::vector<EvalRequest> requests;
  for (const EvalInput& in : inputs) requests.push_back(in.request());

  // CPU float32 reference, one position at a time.
  nn::TorchEvaluator reference(nn::clone_network(reference_net), "cpu", "float32", o.threads);
  std::vector<EvalResult> expected(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) reference.evaluate_one(requests[i], expected[i]);
  double top_prior = 0, top_wdl = 0;
  for (const EvalResult& r : expected) {
    top_prior += *std::max_element(r.priors.begin(), r.priors.end());
    top_wdl += *std::max_element(r.wdl.begin(), r.wdl.end());
  }

  // (device, precision) rows: every precision of the device, and bfloat16 on CPU.
  const nn::DeviceSpec spec = nn::resolve_device(o.device);
  std::vector<std::pair<std::string, std::string>> targets;
  if (spec.cuda) {
    for (const char* p : {"float32", "float16", "bfloat16"}) targets.emplace_back(spec.name(), p);
    targets.emplace_back("cpu", "bfloat16");
  } else {
    targets = {{"cpu", "float32"}, {"cpu", "bfloat16"}};
  }

  char tmpl[] = "/tmp/xqzero-nncheck-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("cannot create a temporary checkpoint file");
  ::close(fd);
  const std::string ckpt = tmpl;
  nn::save_checkpoint(ckpt, reference_net, 0, "nncheck");

  out << "nncheck: network " << nn::short_name(config) << " ("
      << (o.weights.empty() ? "fresh weights, seed " + std::to_string(o.seed) : o.weights) << "), " << requests.size()
      << " positions; reference torch(cpu, float32) single evaluations: mean top prior "
      << line("%.3f", top_prior / double(expected.size())) << ", mean largest W/D/L "
      << line("%.3f", top_wdl / double(expected.size())) << "\n";
  out << "cpu flags: avx512_bf16 " << (cpu_has("avx512_bf16") ? "yes" : "no") << ", amx_bf16 "
      << (cpu_has("amx_bf16") ? "yes" : "no") << "\n";
  out << "top-1: positions whose most likely move is the reference's; beyond ties: the same, counting as agreeing a "
         "move whose reference prior is within "
      << nn::kTop1Tie << " of the top; top-1 loss: largest reference prior given up\n";
  out << "tolerances (max|dprior|, max|dwdl| at most; top-1 agreement beyond ties at least):";
  for (const char* p : {"float32", "float16", "bfloat16"}) {
    const nn::OutputTolerance t = nn::output_tolerance(p);
    out << line(" %s %.0e, %.0e, %.0f%%;", p, t.max_prior, t.max_wdl, 100 * t.min_top1_agreement);
  }
  out << "\n";
  out << line("%-7s %-9s %-20s %-24s %11s %11s %7s %7s %10s  %s\n", "device", "precision", "path", "form",
              "max|dprior|", "max|dwdl|", "top-1", "b.ties", "top-1 loss", "result");
  bool all_ok = true;
  for (const auto& [device, precision] : targets) {
    std::vector<std::string> paths = {"batched", "checkpoint", "batching x4 threads"};
    // bfloat16 on CPU runs a BatchNorm-folded copy by default; check the module cast as well.
    if (device == "cpu" && precision == "bfloat16") paths.push_back("batched, module cast");
    for (const std::string& path : paths)
      all_ok &= check_path(out, reference_net, ckpt, device, precision, path, requests, expected, o.threads);
  }
  std::remove(ckpt.c_str());
  out << (all_ok ? "nncheck: all within tolerance\n" : "nncheck: FAILED\n");
  return all_ok;
}

}  // namespace xq::bench
