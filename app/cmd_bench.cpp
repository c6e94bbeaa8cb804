// xqzero bench <name> [options]: measured figures, never pass/fail thresholds.
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "bench/movegen_bench.h"

namespace xq::app {

int cmd_bench(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const Args args(argv, {"depth", "repeats"}, {});
  if (args.help()) {
    out << "usage: xqzero bench <name> [options]\n"
           "  movegen [--depth N] [--repeats R]   single-thread perft on three reference positions\n"
           "                                      (default depth 5, best of R=3 runs)\n";
    return 0;
  }
  if (args.positional().empty()) throw UsageError("missing benchmark name (movegen)");
  const std::string& name = args.positional()[0];
  if (args.positional().size() > 1) throw UsageError("unexpected argument '" + args.positional()[1] + "'");
  if (name == "movegen") {
    bench::run_movegen_bench(out, int(args.get_int("depth", 5, 1, 6)), int(args.get_int("repeats", 3, 1, 100)));
    return 0;
  }
  throw UsageError("unknown benchmark '" + name + "'");
}

}  // namespace xq::app
