// xqzero uci: the UCI engine (app/uci/uci_engine.h) on standard input and output.
#include <iostream>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "app/uci/uci_engine.h"

namespace xq::app {

int cmd_uci(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const Args args(argv, {"config", "set"}, {});
  if (args.help()) {
    out << "usage: xqzero uci [--config F] [--set S.F=V ...]\n"
           "Speaks UCI (as Pikafish does) on stdin/stdout; GUIs and match tools drive it.\n"
           "Send 'uci' for the options. WeightsFile is 'bundled' (the net shipped in nets/,\n"
           "named at isready) by default; set it to a checkpoint for another net, or to\n"
           "'uniform' for none (uniform priors, no learned evaluation). See README.md.\n"
           "  --config F   start from this configuration: its search and evaluator sections\n"
           "               give the options' defaults (CPuct, BatchSize, WeightsFile, ...) and\n"
           "               the settings no option names (default: the built-in defaults of\n"
           "               proto/config.proto, not the training config)\n"
           "  --set S.F=V  change one field of it (repeatable)\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  // Without --config, the proto defaults (a plain search), with --set over them.
  xqzero::Config config;
  if (args.has("config")) {
    config = load_config(args.get("config"), args.get_all("set"));
  } else {
    for (const std::string& s : args.get_all("set")) apply_setting(config, s);
    validate_config(config);
  }
  uci::UciEngine engine(out, config);
  return engine.loop(std::cin);
}

}  // namespace xq::app
