#include "search/time_manager.h"

#include <algorithm>

namespace xq::search {

TimeBudget compute_time_budget(const GoParams& go, Color us, int64_t move_overhead_ms) {
  TimeBudget b;
  const int64_t overhead = std::max<int64_t>(0, move_overhead_ms);
  const int64_t time = us == RED ? go.wtime : go.btime;
  const int64_t inc = std::max<int64_t>(0, us == RED ? go.winc : go.binc);
  if (time >= 0) {
    const int64_t left = std::max<int64_t>(1, time - overhead);
    const int64_t mtg = go.movestogo > 0 ? std::min(go.movestogo, 100) : 30;
    const int64_t cap = std::max<int64_t>(1, mtg == 1 ? left * 8 / 10 : left * 4 / 10);
    const int64_t soft = std::clamp<int64_t>(left / mtg + inc * 3 / 4, 1, cap);
    b.soft_ms = soft;
    b.hard_ms = std::clamp<int64_t>(2 * soft, soft, cap);
  }
  if (go.movetime > 0) {
    const int64_t m = std::max<int64_t>(1, go.movetime - overhead);
    if (!b.limited() || m < b.soft_ms) b.soft_ms = m;
    if (!b.limited() || m < b.hard_ms) b.hard_ms = m;
    b.soft_ms = std::min(b.soft_ms, b.hard_ms);
  }
  return b;
}

}  // namespace xq::search
