// The torch backend: runs a Network on one device (include only from torch translation
// units; search code gets it through make_evaluator, nn/evaluator_factory.h).
//
// evaluate() and the two-stage prepare()/run() path (used by BatchingEvaluator) share the
// work: prepare() writes the batch's compact bytes and, per position, the flat policy-map
// indices of its legal labels into host buffers (pinned on CUDA); run() copies them to the
// device, expands planes, runs the net under c10::InferenceMode, gathers the legal logits,
// applies the mask and softmax in float32, and copies priors and W/D/L back. Forward passes
// are serialised by a mutex (one device, one stream); prepare() runs outside it, so it
// overlaps with another slot's run().
//
// Precision: float32 anywhere; float16 on CUDA only; bfloat16 on CUDA and on CPU; "auto" is
// float16 on CUDA and on CPU whichever of float32 and bfloat16 a short timing on this machine
// found faster (auto_cpu_precision, nn/precision_choice.h; kept in a cache file). On CPU,
// both precisions run by default a BatchNorm-folded copy of the net (nn/folded_network.h) with
// channels-last weights: in bfloat16 oneDNN then uses its bfloat16 kernels (AVX512-BF16 / AMX
// where the CPU has them; emulated and slow where it has not). On CUDA the module itself is cast.
// The masked softmax is always computed in float32.
#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "nn/evaluator.h"
#include "nn/network.h"

namespace xq::nn {

class FoldedNetwork;

// How the backend runs the net; unset fields choose: both on on CPU, both off on CUDA (the
// measured best, README Benchmarks).
struct InferenceForm {
  std::optional<bool> fold_batchnorm;  // run a BatchNorm-folded copy instead of the module
  std::optional<bool> channels_last;   // 4-D weights (and the input planes) in channels-last format
};

// What precision "auto" means on this CPU for nets of `net`'s architecture run with `threads`
// torch threads: "float32" or "bfloat16", as nn/precision_choice.h chooses, timing copies of
// `net` at batch 64 for about 0.25 s in each (on a thread of its own; torch's generator left as
// it was) the first time this machine sees this work. The trainer's "auto" asks the same for
// its net and threads (its bfloat16 runs the same tower convolutions).
std::string auto_cpu_precision(const Network& net, int threads);

// "float32", "float16" or "bfloat16" (any other type reads as float32).
const char* precision_name(torch::ScalarType t);

class TorchEvaluator final : public Evaluator {
 public:
  // Takes `net` (moves it to the device, sets eval mode, and unless the form folds it, casts
  // it to the precision). device: "cpu", "cuda", "cuda:N", "auto"; precision: "auto" (float16
  // on CUDA, measured on CPU: auto_cpu_precision), "float32", "float16" (CUDA only), "bfloat16"; threads: torch
  // intra-op threads for CPU work (0 = torch's default). Throws std::invalid_argument for bad
  // values, and when form.fold_batchnorm is set true and the net cannot be folded. (When the
  // form is left to choose and folding fails, the module is cast instead; describe() tells.)
  TorchEvaluator(Network net, const std::string& device, const std::string& precision = "auto", int threads = 0,
                 const InferenceForm& form = {});
  ~TorchEvaluator() override;

  void evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) override;
  std::string describe() const override;
  std::unique_ptr<BatchSlot> make_slot(int max_batch) override;
  void prepare(BatchSlot& slot, Span<const EvalRequest> requests) override;
  void run(BatchSlot& slot, Span<EvalResult> results) override;

  // The forward pass as run() does it (planes, then the folded copy or the module), for
  // benchmarks and tests; call under c10::InferenceMode with the compact batch on device().
  std::pair<torch::Tensor, torch::Tensor> forward_compact(const torch::Tensor& compact);
  // forward_compact in its stages, for the benchmark's breakdown (bench nn --breakdown); it is
  // {forward_policy(f), forward_value(f)} with f = forward_tower(forward_planes(compact)).
  torch::Tensor forward_planes(const torch::Tensor& compact);
  torch::Tensor forward_tower(const torch::Tensor& planes);
  torch::Tensor forward_policy(const torch::Tensor& features);
  torch::Tensor forward_value(const torch::Tensor& features);

  // The module given to the constructor, on the device; float32 when the folded copy runs.
  Network network() const { return net_; }
  const torch::Device& device() const { return device_; }
  torch::ScalarType dtype() const { return dtype_; }
  bool folded() const { return folded_ != nullptr; }
  bool channels_last() const { return channels_last_; }

 private:
  Network net_;
  std::unique_ptr<FoldedNetwork> folded_;
  torch::Device device_;
  torch::ScalarType dtype_;
  bool channels_last_ = false;
  int threads_;
  std::mutex forward_mutex_;
};

}  // namespace xq::nn
