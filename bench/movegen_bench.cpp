#include "bench/movegen_bench.h"

#include <chrono>
#include <cstdio>
#include <ostream>
#include <stdexcept>

#include "core/perft.h"

namespace xq::bench {

namespace {

struct Case {
  const char* name;
  const char* fen;
  uint64_t expected[6];  // leaf counts at depths 1..5 (tests/support/perft_cases.h), index 0 unused
};

const Case kCases[] = {
    {"start", Position::kStartFen, {0, 44, 1920, 79666, 3290240, 133312995}},
    {"middlegame",
     "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
     {0, 38, 1128, 43929, 1339047, 53112976}},
    {"cannons", "1C2ka3/9/C1Nab1n2/p3p3p/6p2/9/P3P3P/3AB4/3p2c2/c1BAK4 w", {0, 30, 830, 22787, 649866, 17920736}},
};

}  // namespace

void run_movegen_bench(std::ostream& out, int depth, int repeats) {
  char line[200];
  std::snprintf(line, sizeof line, "%-11s %5s %12s %10s %10s\n", "position", "depth", "leaves", "ms", "Mleaves/s");
  out << line;
  uint64_t total_nodes = 0;
  double total_seconds = 0;
  for (const Case& c : kCases) {
    Position pos = Position::from_fen(c.fen);
    double best = 1e30;
    uint64_t nodes = 0;
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      nodes = perft(pos, depth);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    if (depth <= 5 && nodes != c.expected[depth])
      throw std::runtime_error(std::string("perft mismatch on ") + c.name + ": got " + std::to_string(nodes) +
                               ", expected " + std::to_string(c.expected[depth]));
    total_nodes += nodes;
    total_seconds += best;
    std::snprintf(line, sizeof line, "%-11s %5d %12llu %10.1f %10.1f\n", c.name, depth, (unsigned long long)nodes,
                  best * 1000, double(nodes) / best / 1e6);
    out << line;
  }
  std::snprintf(line, sizeof line, "%-11s %5s %12llu %10.1f %10.1f\n", "total", "", (unsigned long long)total_nodes,
                total_seconds * 1000, double(total_nodes) / total_seconds / 1e6);
  out << line;
}

}  // namespace xq::bench
