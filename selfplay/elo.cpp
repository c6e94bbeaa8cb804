#include "selfplay/elo.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace xq::selfplay {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kZ95 = 1.959963984540054;  // two-sided 95% normal quantile
}  // namespace

double elo_from_score(double score) {
  if (!(score > 0)) return -kInf;
  if (!(score < 1)) return kInf;
  return -400.0 * std::log10(1.0 / score - 1.0);
}

double score_from_elo(double elo) { return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0)); }

EloEstimate estimate_elo(int64_t wins, int64_t draws, int64_t losses) {
  EloEstimate e;
  e.wins = wins;
  e.draws = draws;
  e.losses = losses;
  const int64_t n = e.games();
  if (n <= 0) {
    e.lower = -kInf;
    e.upper = kInf;
    e.margin = kInf;
    return e;
  }
  const double N = double(n);
  const double s = (double(wins) + 0.5 * double(draws)) / N;
  e.score = s;
  e.elo = elo_from_score(s);
  // Outcome fractions with one pseudo-game of each outcome, for the variance only.
  const double M = N + 3;
  const double w = double(wins + 1) / M, d = double(draws + 1) / M, l = double(losses + 1) / M;
  const double m = w + 0.5 * d;
  const double var = (w * (1 - m) * (1 - m) + d * (0.5 - m) * (0.5 - m) + l * m * m) / N;
  const double half = kZ95 * std::sqrt(var);
  e.lower = elo_from_score(s - half);
  e.upper = elo_from_score(s + half);
  e.margin = (std::isinf(e.lower) || std::isinf(e.upper)) ? kInf : 0.5 * (e.upper - e.lower);
  return e;
}

namespace {
std::string fixed1(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f", x + 0.0);
  return buf;
}
}  // namespace

std::string format_elo(const EloEstimate& e) {
  char buf[96];
  const double elo = e.elo + 0.0;  // no "-0.0"
  if (std::isinf(elo)) return elo > 0 ? "+inf" : "-inf";
  if (std::isinf(e.margin) && (std::isfinite(e.lower) || std::isfinite(e.upper))) {
    // One bound is finite: say it, since it is what a claim such as "at least +400" needs.
    auto bound = [](double x) { return std::isinf(x) ? std::string(x > 0 ? "+inf" : "-inf") : fixed1(x); };
    std::snprintf(buf, sizeof buf, "%+.1f [%s, %s]", elo, bound(e.lower).c_str(), bound(e.upper).c_str());
  } else if (std::isinf(e.margin)) {
    std::snprintf(buf, sizeof buf, "%+.1f +/- inf", elo);
  } else
    std::snprintf(buf, sizeof buf, "%+.1f +/- %.1f", elo, e.margin);
  return buf;
}

}  // namespace xq::selfplay
