#include "nn/evaluator.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "nn/policy_labels.h"

namespace xq::nn {

namespace {

struct DefaultSlot final : BatchSlot {
  Span<const EvalRequest> requests;
};

}  // namespace

std::unique_ptr<BatchSlot> Evaluator::make_slot(int) { return std::make_unique<DefaultSlot>(); }

void Evaluator::prepare(BatchSlot& slot, Span<const EvalRequest> requests) {
  static_cast<DefaultSlot&>(slot).requests = requests;
}

void Evaluator::run(BatchSlot& slot, Span<EvalResult> results) {
  evaluate(static_cast<DefaultSlot&>(slot).requests, results);
}

EvalRequest EvalInput::request() const {
  EvalRequest r;
  r.encoding = encoding;
  r.history = history.empty() ? nullptr : history.data();
  r.n_history = int(history.size());
  r.labels = labels.data();
  r.n_labels = n_labels;
  r.key = key;
  return r;
}

EvalInput make_eval_input(const Position& pos, int repetition, const Position* const* history, int n_history) {
  EvalInput in;
  in.encoding = encode(pos, repetition);
  in.n_labels = legal_labels(pos, in.labels.data(), in.moves.data());
  uint64_t keys[64];
  if (n_history > 64) throw std::invalid_argument("make_eval_input: at most 64 history positions");
  for (int i = 0; i < n_history; ++i) {
    in.history.push_back(encode(*history[i], pos.side_to_move(), 0));
    keys[i] = history[i]->key();
  }
  in.key = eval_key(pos, repetition, keys, n_history);
  return in;
}

void UniformEvaluator::evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) {
  for (size_t i = 0; i < requests.size(); ++i) {
    const int n = requests[i].n_labels;
    results[i].priors.assign(size_t(n), n > 0 ? 1.0f / float(n) : 0.0f);
    results[i].wdl = {1.0f / 3, 1.0f / 3, 1.0f / 3};
  }
  positions_ += requests.size();
}

namespace {

uint64_t fnv(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ULL;
  return h;
}

uint64_t finish(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

void TestEvaluator::answer(const EvalRequest& r, EvalResult& out) const {
  uint64_t h = fnv(0xCBF29CE484222325ULL ^ seed_, &r.encoding, sizeof r.encoding);
  for (int i = 0; i < r.n_history; ++i) h = fnv(h, &r.history[i], sizeof(Encoding));
  h = fnv(h, r.labels, sizeof(uint16_t) * size_t(r.n_labels));
  h = fnv(h, &r.key, sizeof r.key);
  out.priors.resize(size_t(r.n_labels));
  double sum = 0;
  for (int i = 0; i < r.n_labels; ++i) {
    const float p = 1.0f + float(finish(h + uint64_t(i) * 0x9E3779B97F4A7C15ULL) % 1000);
    out.priors[size_t(i)] = p;
    sum += p;
  }
  for (float& p : out.priors) p = float(p / sum);
  const uint64_t v = finish(h ^ 0x5DEECE66DULL);
  const float w = 1.0f + float(v % 97), d = 1.0f + float((v >> 20) % 89), l = 1.0f + float((v >> 40) % 83);
  const float s = w + d + l;
  out.wdl = {w / s, d / s, l / s};
}

void TestEvaluator::evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) {
  for (size_t i = 0; i < requests.size(); ++i) answer(requests[i], results[i]);
  calls_ += 1;
  positions_ += requests.size();
  uint64_t seen = max_batch_.load();
  while (seen < requests.size() && !max_batch_.compare_exchange_weak(seen, requests.size())) {
  }
}

}  // namespace xq::nn
