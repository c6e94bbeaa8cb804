// Elo difference and its 95% interval from a match's wins, draws and losses.
//
// The score is s = (W + D/2) / N. The Elo difference is the logistic model's
// -400 log10(1/s - 1). The interval comes from the standard error of the mean score per
// game under a trinomial (win 1, draw 1/2, loss 0):
//   var = (w (1 - m)^2 + d (1/2 - m)^2 + l m^2) / N,   m = w + d/2,
// where w, d, l are the outcome fractions with one pseudo-game of each outcome added
// (w = (W + 1) / (N + 3), ...; Laplace's rule). The pseudo-games only widen the variance
// estimate: a match of nothing but draws (or wins) is not proof of zero uncertainty, and
// with the raw fractions it would print a margin of 0. s +- 1.96 sqrt(var) is mapped through
// the same logistic (the interval is asymmetric in Elo; `margin` is half its width). A score
// of 0 or 1 has an infinite Elo difference; interval bounds at or beyond 0 and 1 are
// infinite too.
#pragma once

#include <cstdint>
#include <string>

namespace xq::selfplay {

struct EloEstimate {
  int64_t wins = 0, draws = 0, losses = 0;
  double score = 0.5;  // (W + D/2) / N; 0.5 with no games
  double elo = 0;      // may be +-infinity
  double lower = 0;    // 95% interval bounds (may be infinite)
  double upper = 0;
  double margin = 0;  // (upper - lower) / 2; infinite when either bound is
  int64_t games() const { return wins + draws + losses; }
};

// Elo difference for a score in [0, 1] (+-infinity at the ends).
double elo_from_score(double score);
// The score that an Elo difference predicts: 1 / (1 + 10^(-elo/400)).
double score_from_elo(double elo);

EloEstimate estimate_elo(int64_t wins, int64_t draws, int64_t losses);

// "+35.2 +/- 40.1"; with one bound infinite the bounds, "+759.1 [+609.2, +inf]"; "+inf", "-inf";
// no games: "+0.0 +/- inf".
std::string format_elo(const EloEstimate& e);

}  // namespace xq::selfplay
