// Scoring a net on a labelled position set (`xqzero evalset`, docs/analysis.md): how often
// its policy and its search agree with a reference engine's best move, how often its value
// has the sign of the reference score, and how its W/D/L is calibrated against that score.
//
// The file: one position per line, tab-separated: FEN, the reference best move in ICCS, and
// optionally the reference score in centipawns from the side to move's view (a mate is
// written as +-20000). Empty lines and lines starting with '#' are skipped.
#pragma once

#include <string>
#include <vector>

#include "core/position.h"
#include "nn/evaluator.h"
#include "search/search.h"

namespace xq::app::analyse {

struct LabelledPosition {
  std::string fen;
  Move best;
  bool has_score = false;
  int score_cp = 0;
  int line = 0;  // in the file, from 1
};

// Throws std::invalid_argument naming `name`, the line and what is wrong there.
std::vector<LabelledPosition> parse_evalset(const std::string& text, const std::string& name);

struct EvalsetOptions {
  int visits = 0;   // 0: the raw network (policy and value); else a search of that many visits
  int threads = 2;  // positions scored at once
  int leaves_per_round = 8;
  search::SearchParams search;
  int sign_threshold_cp = 100;  // value-sign agreement counts positions with |score| >= this
};

struct EvalsetReport {
  struct Bucket {
    int lo = 0, hi = 0;  // score range [lo, hi) in centipawns
    int count = 0;
    double win = 0, draw = 0, loss = 0;  // mean W/D/L of the net (or the search)
  };
  int positions = 0;
  int visits = 0;
  int policy_top1 = 0, policy_top3 = 0;  // the reference move among the policy's best 1 / 3
  int search_top1 = 0, search_top3 = 0;  // among the search's (visits > 0)
  int scored = 0;                        // positions with a score
  int sign_positions = 0, sign_agree = 0;
  std::vector<Bucket> calibration;  // over the scored positions
};

EvalsetReport score_evalset(const std::vector<LabelledPosition>& set, nn::Evaluator& evaluator,
                            const EvalsetOptions& options);

// A few lines for people: agreements as shares with counts, and the calibration table.
std::string format_report(const EvalsetReport& report);

}  // namespace xq::app::analyse
