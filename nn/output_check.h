// Comparing an evaluator's answers with a reference evaluator's (torch-free): the measured
// differences and the stated tolerances of `xqzero bench nncheck` (bench/nn_bench.h).
#pragma once

#include <string>

#include "nn/evaluator.h"

namespace xq::nn {

// Reference priors closer than this count as a tie for top1_agreement_beyond_ties.
constexpr double kTop1Tie = 1e-3;

// Differences of `got` from `reference` over a set of positions.
struct OutputDifference {
  int positions = 0;
  double max_prior = 0;       // largest |prior - reference prior| over every legal move
  double max_wdl = 0;         // largest |W, D or L - reference's|
  double top1_agreement = 1;  // fraction of positions whose most likely move is the reference's
  // The same, counting as agreeing a different top move whose reference prior is within
  // kTop1Tie of the reference's top prior (near-ties, which any rounding can swap).
  double top1_agreement_beyond_ties = 1;
  // Largest reference prior given up where the top moves differ: reference prior of the
  // reference's top move minus that of got's top move.
  double max_top1_loss = 0;
  bool finite = true;  // every prior and W/D/L of `got` is finite
};

// Throws std::invalid_argument when the spans differ in size or a position's prior counts differ.
OutputDifference compare_outputs(Span<const EvalResult> reference, Span<const EvalResult> got);

// Bounds on an OutputDifference: max_prior and max_wdl at most, top1_agreement_beyond_ties
// at least.
struct OutputTolerance {
  double max_prior = 0;
  double max_wdl = 0;
  double min_top1_agreement = 1;
};

// The stated tolerance of `precision` ("float32", "float16", "bfloat16") against a float32
// reference on CPU; throws std::invalid_argument for another name.
OutputTolerance output_tolerance(const std::string& precision);

// "" when `d` is within `t` (and finite, over at least one position); otherwise every bound
// exceeded, e.g. "max|dprior| 0.031 > 0.02; top-1 agreement beyond ties 90.2% < 95%".
std::string tolerance_excess(const OutputDifference& d, const OutputTolerance& t);

}  // namespace xq::nn
