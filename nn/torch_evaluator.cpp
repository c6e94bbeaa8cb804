#include "nn/torch_evaluator.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <thread>

#include "nn/checkpoint.h"
#include "nn/device.h"
#include "nn/folded_network.h"
#include "nn/net_config.h"
#include "nn/planes.h"
#include "nn/policy_labels.h"
#include "nn/precision_choice.h"
#include "nn/random_walk.h"
#include "nn/torch_backend.h"

namespace xq::nn {

namespace {

// A precision by name; "auto" is float16 on CUDA (on CPU the constructor measures instead:
// auto_cpu_precision).
torch::ScalarType parse_precision(const std::string& text, bool cuda) {
  if (text == "auto") return cuda ? torch::kHalf : torch::kFloat;
  if (text == "float32") return torch::kFloat;
  if (text == "bfloat16") return torch::kBFloat16;
  if (text == "float16") {
    if (!cuda) throw std::invalid_argument("precision float16 needs a CUDA device; use float32 or bfloat16 on CPU");
    return torch::kHalf;
  }
  throw std::invalid_argument("bad precision '" + text + "': expected auto, float32, float16 or bfloat16");
}

// Positions per second of a copy of `net` on the CPU in `precision`, at batch 64 (a seeded
// random walk's positions), over about `seconds` after two warm-up calls.
double cpu_rate(const Network& net, const std::string& precision, int threads, double seconds) {
  TorchEvaluator backend(clone_network(net), "cpu", precision, threads);
  const std::vector<EvalInput> inputs = random_walk_inputs(64, 11);
  std::vector<EvalRequest> requests;
  for (const EvalInput& in : inputs) requests.push_back(in.request());
  std::vector<EvalResult> results(requests.size());
  backend.evaluate(requests, results);  // the first calls create oneDNN's kernels
  backend.evaluate(requests, results);
  int iters = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    backend.evaluate(requests, results);
    ++iters;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < seconds || iters < 3);
  return double(requests.size()) * iters / elapsed;
}

struct TorchSlot final : BatchSlot {
  int capacity = 0;
  int batch = 0;
  int max_labels = 0;
  torch::Tensor compact;  // uint8 [capacity, width]
  torch::Tensor index;    // int64 [capacity * MAX_MOVES], used as [batch, max_labels]
  torch::Tensor counts;   // int64 [capacity]
  std::vector<int> n_labels;
};

}  // namespace

const char* precision_name(torch::ScalarType t) {
  return t == torch::kHalf ? "float16" : t == torch::kBFloat16 ? "bfloat16" : "float32";
}

TorchEvaluator::TorchEvaluator(Network net, const std::string& device, const std::string& precision, int threads,
                               const InferenceForm& form)
    : net_(std::move(net)), device_(torch::kCPU), dtype_(torch::kFloat), threads_(threads) {
  const DeviceSpec spec = resolve_device(device);
  device_ = spec.cuda ? torch::Device(torch::kCUDA, int8_t(spec.index)) : torch::Device(torch::kCPU);
  if (threads_ < 0) throw std::invalid_argument("threads must be >= 0");
  if (precision == "auto" && !spec.cuda)
    dtype_ = auto_cpu_precision(net_, threads_) == "bfloat16" ? torch::kBFloat16 : torch::kFloat;
  else
    dtype_ = parse_precision(precision, spec.cuda);
  // The thread count is set where forward passes run (run(), per calling thread): setting it
  // here would change the constructing thread's count, the trainer's in `xqzero train`.
  // On CPU both precisions run the folded, channels-last copy by default: 1.3-4.3x the cast
  // module in bfloat16 and 1.1-1.4x the module in float32 (README, Benchmarks).
  const bool cpu = !spec.cuda;
  channels_last_ = form.channels_last.value_or(cpu);
  net_->to(device_);
  net_->eval();
  if (form.fold_batchnorm.value_or(cpu)) {
    try {
      folded_ = std::make_unique<FoldedNetwork>(net_, device_, dtype_, channels_last_);
      return;
    } catch (const std::invalid_argument&) {
      if (form.fold_batchnorm.has_value()) throw;  // asked for explicitly; otherwise run the module
    }
  }
  // Cast floating-point tensors only (Module::to(dtype) would also cast BatchNorm's integer
  // num_batches_tracked).
  if (dtype_ == torch::kFloat && !channels_last_) return;
  torch::NoGradGuard no_grad;
  for (auto& p : net_->parameters()) {
    torch::Tensor t = p.to(dtype_);
    if (channels_last_ && t.dim() == 4) t = t.contiguous(torch::MemoryFormat::ChannelsLast);
    p.set_data(t);
  }
  if (dtype_ != torch::kFloat)
    for (auto& b : net_->buffers())
      if (b.is_floating_point()) b.set_data(b.to(dtype_));
}

TorchEvaluator::~TorchEvaluator() = default;

std::string TorchEvaluator::describe() const {
  std::string form;
  if (folded_) form += ", bn folded";
  if (channels_last_) form += ", channels-last";
  return "torch(" + (device_.is_cuda() ? "cuda:" + std::to_string(device_.index()) : std::string("cpu")) + ", " +
         precision_name(dtype_) + ", " + short_name(net_->config()) + form + ")";
}

std::pair<torch::Tensor, torch::Tensor> TorchEvaluator::forward_compact(const torch::Tensor& compact) {
  const torch::Tensor features = forward_tower(forward_planes(compact));
  return {forward_policy(features), forward_value(features)};
}

torch::Tensor TorchEvaluator::forward_planes(const torch::Tensor& compact) {
  if (folded_) return folded_->planes(compact);
  const torch::Tensor planes = expand_planes(compact, plane_layout(net_->config()), dtype_);
  return channels_last_ ? planes.contiguous(torch::MemoryFormat::ChannelsLast) : planes;
}

torch::Tensor TorchEvaluator::forward_tower(const torch::Tensor& planes) {
  return folded_ ? folded_->tower(planes) : net_->tower(planes);
}

torch::Tensor TorchEvaluator::forward_policy(const torch::Tensor& features) {
  return folded_ ? folded_->policy(features) : net_->policy_head(features);
}

torch::Tensor TorchEvaluator::forward_value(const torch::Tensor& features) {
  return folded_ ? folded_->value(features) : net_->value_heads(features, false).wdl;
}

std::unique_ptr<BatchSlot> TorchEvaluator::make_slot(int max_batch) {
  auto slot = std::make_unique<TorchSlot>();
  slot->capacity = std::max(1, max_batch);
  auto host = torch::TensorOptions().device(torch::kCPU).pinned_memory(device_.is_cuda());
  slot->compact =
      torch::empty({slot->capacity, compact_width(plane_layout(net_->config()))}, host.dtype(torch::kUInt8));
  slot->index = torch::empty({int64_t(slot->capacity) * MAX_MOVES}, host.dtype(torch::kLong));
  slot->counts = torch::empty({slot->capacity}, host.dtype(torch::kLong));
  slot->n_labels.resize(size_t(slot->capacity));
  return slot;
}

void TorchEvaluator::prepare(BatchSlot& base, Span<const EvalRequest> requests) {
  auto& slot = static_cast<TorchSlot&>(base);
  const int n = int(requests.size());
  if (n > slot.capacity) throw std::invalid_argument("TorchEvaluator: batch larger than its slot");
  const PlaneLayout layout = plane_layout(net_->config());
  const int width = compact_width(layout);
  uint8_t* compact = slot.compact.data_ptr<uint8_t>();
  int max_labels = 1;
  for (int b = 0; b < n; ++b) {
    const EvalRequest& r = requests[size_t(b)];
    if (r.n_labels < 0 || r.n_labels > MAX_MOVES) throw std::invalid_argument("TorchEvaluator: bad label count");
    write_compact(r, layout, compact + int64_t(b) * width);
    max_labels = std::max(max_labels, r.n_labels);
  }
  int64_t* index = slot.index.data_ptr<int64_t>();
  int64_t* counts = slot.counts.data_ptr<int64_t>();
  for (int b = 0; b < n; ++b) {
    const EvalRequest& r = requests[size_t(b)];
    int64_t* row = index + int64_t(b) * max_labels;
    for (int j = 0; j < r.n_labels; ++j) {
      if (r.labels[j] >= kNumLabels) throw std::invalid_argument("TorchEvaluator: label out of range");
      row[j] = label_policy_index(r.labels[j]);
    }
    std::fill(row + r.n_labels, row + max_labels, 0);
    counts[b] = r.n_labels;
    slot.n_labels[size_t(b)] = r.n_labels;
  }
  slot.batch = n;
  slot.max_labels = max_labels;
}

void TorchEvaluator::run(BatchSlot& base, Span<EvalResult> results) {
  auto& slot = static_cast<TorchSlot&>(base);
  const int n = slot.batch, L = slot.max_labels;
  if (size_t(n) != results.size()) throw std::invalid_argument("TorchEvaluator: result count differs from batch");
  if (n == 0) return;
  thread_local int threads_set = 0;
  if (threads_ > 0 && threads_set != threads_) {
    at::set_num_threads(threads_);  // per-thread with OpenMP builds
    threads_set = threads_;
  }
  torch::Tensor priors, wdl;
  {
    c10::InferenceMode guard;
    std::lock_guard<std::mutex> lock(forward_mutex_);
    const bool cuda = device_.is_cuda();
    torch::Tensor compact = slot.compact.narrow(0, 0, n).to(device_, /*non_blocking=*/cuda);
    torch::Tensor index = slot.index.narrow(0, 0, int64_t(n) * L).view({n, L}).to(device_, cuda);
    torch::Tensor counts = slot.counts.narrow(0, 0, n).to(device_, cuda);
    // LibTorch's CPU convolution takes its slow im2col + BLAS path for a single position
    // (oneDNN only from two up), so a lone CPU position is run as a pair of copies.
    const bool pad_single = !cuda && n == 1;
    if (pad_single) compact = torch::cat({compact, compact}, 0);
    auto out = forward_compact(compact);
    if (pad_single) out = {out.first.narrow(0, 0, 1), out.second.narrow(0, 0, 1)};
    torch::Tensor logits = out.first.gather(1, index).to(torch::kFloat);
    torch::Tensor pad = torch::arange(L, counts.options()).unsqueeze(0).ge(counts.unsqueeze(1));
    logits.masked_fill_(pad, -std::numeric_limits<float>::infinity());
    priors = torch::softmax(logits, 1).to(torch::kCPU).contiguous();
    wdl = torch::softmax(out.second.to(torch::kFloat), 1).to(torch::kCPU).contiguous();
  }
  const float* p = priors.data_ptr<float>();
  const float* v = wdl.data_ptr<float>();
  for (int b = 0; b < n; ++b) {
    EvalResult& r = results[size_t(b)];
    const int k = slot.n_labels[size_t(b)];
    r.priors.assign(p + int64_t(b) * L, p + int64_t(b) * L + k);
    r.wdl = {v[3 * b], v[3 * b + 1], v[3 * b + 2]};
  }
}

void TorchEvaluator::evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) {
  if (requests.size() != results.size())
    throw std::invalid_argument("TorchEvaluator: requests and results differ in size");
  if (requests.empty()) return;
  const std::unique_ptr<BatchSlot> slot = make_slot(int(requests.size()));
  prepare(*slot, requests);
  run(*slot, results);
}

std::string auto_cpu_precision(const Network& net, int threads) {
  const std::string work = "inference " + short_name(net->config()) + ", batch 64, " +
                           (threads > 0 ? std::to_string(threads) + (threads == 1 ? " thread" : " threads")
                                        : std::string("torch's default threads"));
  std::ostream* log = precision_log();
  return choose_cpu_precision(
      machine_key(), work, precision_cache_path(),
      [&] {
        PrecisionTiming t;
        // The copies of the net draw their initial weights from torch's generator before
        // they are overwritten: its state is put back, so that measuring leaves no trace.
        at::Generator generator = at::globalContext().defaultGenerator(at::DeviceType::CPU);
        const at::Tensor state = generator.get_state();
        // On a thread of its own: run() sets the torch thread count of the thread it runs on.
        std::thread timer([&] {
          t.float32 = cpu_rate(net, "float32", threads, 0.25);
          t.bfloat16 = cpu_rate(net, "bfloat16", threads, 0.25);
        });
        timer.join();
        generator.set_state(state);
        return t;
      },
      log);
}

std::shared_ptr<Evaluator> make_torch_backend(const xqzero::EvaluatorConfig& ec, const xqzero::NetworkConfig& nc) {
  Network net{nullptr};
  if (!ec.weights().empty()) {
    net = load_network(ec.weights());  // its own architecture, one read
  } else {
    net = make_network(nc, uint64_t(ec.init_seed()));
  }
  return std::make_shared<TorchEvaluator>(net, ec.device(), ec.precision(), ec.threads());
}

}  // namespace xq::nn
