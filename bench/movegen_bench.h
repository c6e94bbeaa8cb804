// `xqzero bench movegen`: single-threaded perft timings on reference positions (tests/support/perft_cases.h).
#pragma once

#include <iosfwd>

namespace xq::bench {

// Runs start-position perft(depth) and two other table positions; prints time and
// millions of leaves per second per position. `repeats` takes the best of that many runs.
void run_movegen_bench(std::ostream& out, int depth, int repeats);

}  // namespace xq::bench
