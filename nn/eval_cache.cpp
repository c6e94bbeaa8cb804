#include "nn/eval_cache.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace xq::nn {

namespace {

uint32_t labels_hash(const EvalRequest& r) {
  uint32_t h = 2166136261u ^ uint32_t(r.n_labels);
  for (int i = 0; i < r.n_labels; ++i) {
    h = (h ^ (r.labels[i] & 0xFF)) * 16777619u;
    h = (h ^ (r.labels[i] >> 8)) * 16777619u;
  }
  return h;
}

uint16_t quantise(float p) { return uint16_t(std::lround(std::clamp(p, 0.0f, 1.0f) * 65535.0f)); }

size_t bucket_of(uint64_t key, size_t buckets) {
  const uint64_t h = (key ^ (key >> 29)) * 0xBF58476D1CE4E5B9ULL;
  return size_t((h >> 32) % buckets);
}

}  // namespace

EvalCache::EvalCache(size_t entries) {
  ways_ = std::min<size_t>(kWays, entries);
  buckets_ = ways_ ? entries / ways_ : 0;
  table_.assign(buckets_ * ways_, Entry{});
  stripes_.reset(new std::mutex[kStripes]);
  clocks_.reset(new uint32_t[kStripes]());
}

bool EvalCache::lookup(const EvalRequest& r, EvalResult& out) {
  if (buckets_ == 0 || r.n_labels > kMaxMoves || r.n_labels <= 0) {
    ++misses_;
    return false;
  }
  const uint32_t check = labels_hash(r);
  const size_t b = bucket_of(r.key, buckets_);
  std::lock_guard<std::mutex> lock(stripe(b));
  Entry* e = &table_[b * ways_];
  for (size_t w = 0; w < ways_; ++w, ++e) {
    if (e->n == 0 || e->key != r.key || e->check != check || e->n != r.n_labels) continue;
    e->stamp = ++clocks_[b % kStripes];
    out.priors.resize(e->n);
    uint32_t sum = 0;
    for (int i = 0; i < e->n; ++i) sum += e->priors[i];
    const float ps = sum ? 1.0f / float(sum) : 0.0f;
    for (int i = 0; i < e->n; ++i) out.priors[size_t(i)] = float(e->priors[i]) * ps;
    const uint32_t ws = uint32_t(e->wdl[0]) + e->wdl[1] + e->wdl[2];
    const float wf = ws ? 1.0f / float(ws) : 0.0f;
    for (int i = 0; i < 3; ++i) out.wdl[size_t(i)] = float(e->wdl[i]) * wf;
    ++hits_;
    return true;
  }
  ++misses_;
  return false;
}

void EvalCache::store(const EvalRequest& r, const EvalResult& result) {
  if (buckets_ == 0 || r.n_labels > kMaxMoves || r.n_labels <= 0) return;
  if (result.priors.size() != size_t(r.n_labels)) throw std::invalid_argument("EvalCache::store: wrong prior count");
  const uint32_t check = labels_hash(r);
  const size_t b = bucket_of(r.key, buckets_);
  std::lock_guard<std::mutex> lock(stripe(b));
  Entry* bucket = &table_[b * ways_];
  Entry* victim = nullptr;
  for (size_t w = 0; w < ways_; ++w) {
    Entry* e = bucket + w;
    if (e->n != 0 && e->key == r.key) {
      victim = e;
      break;
    }
    if (!victim || (victim->n != 0 && (e->n == 0 || e->stamp < victim->stamp))) victim = e;
  }
  victim->key = r.key;
  victim->check = check;
  victim->stamp = ++clocks_[b % kStripes];
  victim->n = uint16_t(r.n_labels);
  for (int i = 0; i < 3; ++i) victim->wdl[i] = quantise(result.wdl[size_t(i)]);
  for (int i = 0; i < r.n_labels; ++i) victim->priors[i] = quantise(result.priors[size_t(i)]);
}

void EvalCache::clear() {
  for (size_t b = 0; b < buckets_; ++b) {
    std::lock_guard<std::mutex> lock(stripe(b));
    for (size_t w = 0; w < ways_; ++w) table_[b * ways_ + w].n = 0;
  }
}

size_t EvalCache::size() const {
  size_t n = 0;
  for (size_t b = 0; b < buckets_; ++b) {
    std::lock_guard<std::mutex> lock(stripe(b));
    for (size_t w = 0; w < ways_; ++w) n += table_[b * ways_ + w].n != 0;
  }
  return n;
}

CachingEvaluator::CachingEvaluator(std::shared_ptr<Evaluator> inner, size_t entries)
    : inner_(std::move(inner)), cache_(entries) {
  if (!inner_) throw std::invalid_argument("CachingEvaluator: no inner evaluator");
}

std::string CachingEvaluator::describe() const {
  return "cache(" + std::to_string(cache_.capacity()) + " entries, " + std::to_string(cache_.memory_bytes() >> 20) +
         " MiB) <- " + inner_->describe();
}

void CachingEvaluator::clear_cache() {
  cache_.clear();
  inner_->clear_cache();
}

void CachingEvaluator::evaluate(Span<const EvalRequest> requests, Span<EvalResult> results) {
  if (requests.size() != results.size())
    throw std::invalid_argument("CachingEvaluator: requests and results differ in size");
  if (requests.size() == 1) {
    if (cache_.lookup(requests[0], results[0])) return;
    inner_->evaluate(requests, results);
    cache_.store(requests[0], results[0]);
    return;
  }
  std::vector<size_t> miss;
  for (size_t i = 0; i < requests.size(); ++i)
    if (!cache_.lookup(requests[i], results[i])) miss.push_back(i);
  if (miss.empty()) return;
  std::vector<EvalRequest> miss_requests;
  std::vector<EvalResult> miss_results(miss.size());
  miss_requests.reserve(miss.size());
  for (size_t i : miss) miss_requests.push_back(requests[i]);
  inner_->evaluate(Span<const EvalRequest>(miss_requests.data(), miss.size()),
                   Span<EvalResult>(miss_results.data(), miss.size()));
  for (size_t j = 0; j < miss.size(); ++j) {
    cache_.store(miss_requests[j], miss_results[j]);
    results[miss[j]].priors.swap(miss_results[j].priors);
    results[miss[j]].wdl = miss_results[j].wdl;
  }
}

}  // namespace xq::nn
