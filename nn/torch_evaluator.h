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
#pragma once

#include <mutex>

#include "nn/evaluator.h"
#include "nn/network.h"

namespace xq::nn {

class TorchEvaluator final : public Evaluator {
 public:
  // Takes `net` (moves it to the device, casts it to the precision, sets eval mode).
  // device: "cpu", "cuda", "cuda:N", "auto"; precision: "auto", "float32", "float16",
  // "bfloat16" (half types need CUDA); threads: torch intra-op threads for CPU work
  // (0 = torch's default). Throws std::invalid_argument for bad values.
  TorchEvaluator(Network net, const std::string& device, const std::string& precision = "auto", int threads = 0);

  void evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) override;
  std::string describe() const override;
  std::unique_ptr<BatchSlot> make_slot(int max_batch) override;
  void prepare(BatchSlot& slot, Span<const EvalRequest> requests) override;
  void run(BatchSlot& slot, Span<EvalResult> results) override;

  Network network() const { return net_; }
  const torch::Device& device() const { return device_; }
  torch::ScalarType dtype() const { return dtype_; }

 private:
  Network net_;
  torch::Device device_;
  torch::ScalarType dtype_;
  int threads_;
  std::mutex forward_mutex_;
};

}  // namespace xq::nn
