// Running a Search against an evaluator: the gather / evaluate / complete rounds that every
// single-search caller needs (Search::run, match players, the UCI engine's threads, the
// analysis engine), with one error policy. (The self-play generator batches many searches
// into one evaluator call and drives its rounds itself.)
//
// Error policy: when the evaluator throws, the round's leaves are cancelled
// (Search::cancel_pending reverts their virtual loss; nothing fake is backed up), so the
// tree stays consistent and usable, and the exception goes to the caller.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "search/search.h"

namespace xq::search {

// Request and answer storage reused from round to round.
struct SearchBuffers {
  std::vector<nn::EvalRequest> requests;
  std::vector<nn::EvalResult> results;
};

// One round: up to `max_leaves` leaves gathered, evaluated and completed. Returns the number
// of leaves evaluated (0 when the round only backed up terminal or proven leaves).
int search_round(Search& search, Game& game, nn::Evaluator& evaluator, int max_leaves, SearchBuffers& buffers);

struct DriveLimits {
  std::optional<std::chrono::steady_clock::time_point> deadline;  // checked after each round
  const std::atomic<bool>* stop = nullptr;                        // checked before each round
  // Called after each round; returning false ends the search.
  std::function<bool()> after_round;
};

// Rounds from start_move() until the search is done() or a limit ends it. Returns true
// when the search finished by itself (done()), false when a limit stopped it.
bool drive_search(Search& search, Game& game, nn::Evaluator& evaluator, int max_leaves,
                  const DriveLimits& limits = DriveLimits());

}  // namespace xq::search
