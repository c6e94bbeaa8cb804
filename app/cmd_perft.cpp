// xqzero perft [--fen F] --depth N [--divide]
#include <chrono>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "core/perft.h"

namespace xq::app {

int cmd_perft(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const Args args(argv, {"fen", "depth"}, {"divide"});
  if (args.help()) {
    out << "usage: xqzero perft [--fen F] --depth N [--divide]\n"
           "  --fen F     position (default: the start position); the short form '<board> w' is accepted\n"
           "  --depth N   plies to search, 1..10 (required)\n"
           "  --divide    print 'move: count' for each legal move first\n"
           "Last line: 'Nodes searched: N'.\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  if (!args.has("depth")) throw UsageError("missing --depth");
  const int depth = int(args.get_int("depth", 1, 1, kMaxPerftDepth));
  Position pos = args.has("fen") ? Position::from_fen(args.get("fen")) : Position();

  const auto start = std::chrono::steady_clock::now();
  uint64_t nodes = 0;
  if (args.has("divide")) {
    for (const auto& [move, count] : perft_divide(pos, depth)) {
      out << move_to_iccs(move) << ": " << count << "\n";
      nodes += count;
    }
  } else {
    nodes = perft(pos, depth);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "Time: " << int64_t(seconds * 1000) << " ms\n";
  out << "Nodes/second: " << (seconds > 0 ? uint64_t(double(nodes) / seconds) : 0) << "\n";
  out << "Nodes searched: " << nodes << "\n";
  return 0;
}

}  // namespace xq::app
