#include "search/search_driver.h"

#include <algorithm>

namespace xq::search {

int search_round(Search& search, Game& game, nn::Evaluator& evaluator, int max_leaves, SearchBuffers& b) {
  b.requests.clear();
  const int n = search.gather(game, std::max(1, max_leaves), b.requests);
  b.results.resize(size_t(n));
  if (n > 0) {
    try {
      evaluator.evaluate(nn::Span<const nn::EvalRequest>(b.requests.data(), b.requests.size()),
                         nn::Span<nn::EvalResult>(b.results.data(), b.results.size()));
    } catch (...) {
      search.cancel_pending();
      throw;
    }
  }
  search.complete(b.results.data(), n);
  return n;
}

bool drive_search(Search& search, Game& game, nn::Evaluator& evaluator, int max_leaves, const DriveLimits& limits) {
  SearchBuffers buffers;
  for (;;) {
    if (search.done()) return true;
    if (limits.stop && limits.stop->load()) return false;
    search_round(search, game, evaluator, max_leaves, buffers);
    if (limits.after_round && !limits.after_round()) return search.done();
    // The deadline is checked after a round, so a search always gets at least one.
    if (limits.deadline && std::chrono::steady_clock::now() >= *limits.deadline) return search.done();
  }
}

}  // namespace xq::search
