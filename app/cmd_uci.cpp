// xqzero uci: the UCI engine (app/uci/uci_engine.h) on standard input and output.
#include <iostream>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "app/uci/uci_engine.h"

namespace xq::app {

int cmd_uci(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const Args args(argv, {}, {});
  if (args.help()) {
    out << "usage: xqzero uci\n"
           "Speaks UCI (as Pikafish does) on stdin/stdout; GUIs and match tools drive it.\n"
           "Send 'uci' for the options. WeightsFile is 'uniform' (no network) by default;\n"
           "set it to a checkpoint to search with a learned evaluation. See README.md.\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  uci::UciEngine engine(out);
  return engine.loop(std::cin);
}

}  // namespace xq::app
