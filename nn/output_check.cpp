#include "nn/output_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace xq::nn {

namespace {

size_t argmax(const std::vector<float>& v) { return size_t(std::max_element(v.begin(), v.end()) - v.begin()); }

std::string format(const char* fmt, double a, double b) {
  char buf[96];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

}  // namespace

OutputDifference compare_outputs(Span<const EvalResult> reference, Span<const EvalResult> got) {
  if (reference.size() != got.size()) throw std::invalid_argument("compare_outputs: result counts differ");
  OutputDifference d;
  d.positions = int(got.size());
  int agree = 0, agree_beyond_ties = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const std::vector<float>& e = reference[i].priors;
    const std::vector<float>& g = got[i].priors;
    if (e.size() != g.size()) throw std::invalid_argument("compare_outputs: prior counts differ");
    for (size_t j = 0; j < g.size(); ++j) {
      d.finite = d.finite && std::isfinite(g[j]);
      d.max_prior = std::max(d.max_prior, double(std::fabs(e[j] - g[j])));
    }
    for (size_t j = 0; j < 3; ++j) {
      d.finite = d.finite && std::isfinite(got[i].wdl[j]);
      d.max_wdl = std::max(d.max_wdl, double(std::fabs(reference[i].wdl[j] - got[i].wdl[j])));
    }
    if (g.empty()) {
      ++agree;
      ++agree_beyond_ties;
      continue;
    }
    const size_t te = argmax(e), tg = argmax(g);
    const double loss = double(e[te]) - double(e[tg]);
    agree += te == tg;
    agree_beyond_ties += te == tg || loss <= kTop1Tie;
    d.max_top1_loss = std::max(d.max_top1_loss, loss);
  }
  if (!got.empty()) {
    d.top1_agreement = double(agree) / double(got.size());
    d.top1_agreement_beyond_ties = double(agree_beyond_ties) / double(got.size());
  }
  return d;
}

OutputTolerance output_tolerance(const std::string& precision) {
  // float32: another batch size, summation order or memory format (3e-7 measured on CPU); on
  // CUDA, TF32 convolutions. Half types round every activation to 11 (float16) or 8
  // (bfloat16) significant bits: bfloat16 on CPU measured up to 9e-3 (priors) and 1.6e-2
  // (W/D/L) on nets up to 10x128, with top moves swapped beyond ties on at most 1.6% of
  // positions (README, Benchmarks).
  if (precision == "float32") return {5e-3, 5e-3, 0.99};
  if (precision == "float16") return {2e-2, 2e-2, 0.97};
  if (precision == "bfloat16") return {3e-2, 3e-2, 0.95};
  throw std::invalid_argument("no output tolerance for precision '" + precision + "'");
}

std::string tolerance_excess(const OutputDifference& d, const OutputTolerance& t) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  if (d.positions <= 0) add("no positions compared");
  if (!d.finite) add("non-finite outputs");
  // Negated comparisons so that NaN differences count as exceeding.
  if (!(d.max_prior <= t.max_prior)) add(format("max|dprior| %.3g > %.3g", d.max_prior, t.max_prior));
  if (!(d.max_wdl <= t.max_wdl)) add(format("max|dwdl| %.3g > %.3g", d.max_wdl, t.max_wdl));
  if (!(d.top1_agreement_beyond_ties >= t.min_top1_agreement))
    add(format("top-1 agreement beyond ties %.1f%% < %.1f%%", 100 * d.top1_agreement_beyond_ties,
               100 * t.min_top1_agreement));
  return out;
}

}  // namespace xq::nn
