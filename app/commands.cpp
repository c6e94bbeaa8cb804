#include "app/commands.h"

#include <exception>
#include <ostream>

#include "app/args.h"

namespace xq::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"perft", "count leaf nodes of the legal move tree (the rules' truth test)", cmd_perft},
      {"judge", "play a game's moves and judge it: result and termination reason", cmd_judge},
      {"train", "the main job: self-play and training together, resumable", cmd_train},
      {"selfplay", "play games against itself and write training records", cmd_selfplay},
      {"dump", "print the games of a record file", cmd_dump},
      {"uci", "a UCI engine (as Pikafish speaks it) for GUIs and match tools", cmd_uci},
      {"match", "play games between two players (checkpoints, net, uniform, random, greedy, uci:...)", cmd_match},
      {"analyse", "analyse positions for programs: JSON queries in, JSON lines out", cmd_analyse},
      {"serve", "a local web page: analysis board and live run dashboard", cmd_serve},
      {"evalset", "score a net on a labelled position set (agreement, value sign, calibration)", cmd_evalset},
      {"export", "a checkpoint's weights alone, as the bundled net in nets/ ships", cmd_export},
      {"bench", "benchmarks: movegen, mcts, train, nn", cmd_bench},
  };
  return list;
}

namespace {

void print_help(std::ostream& out) {
  out << "xqzero: AlphaZero-style self-play training for Xiangqi\n\n"
         "usage: xqzero <command> [options]   (xqzero <command> --help for its options)\n\n"
         "commands:\n";
  for (const Command& c : commands())
    out << "  " << c.name << std::string(10 - std::string(c.name).size(), ' ') << c.summary << "\n";
  out << "  help      this list\n";
}

}  // namespace

int run_xqzero(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (argv.empty() || argv[0] == "help" || argv[0] == "--help" || argv[0] == "-h") {
    print_help(out);
    return argv.empty() ? 2 : 0;
  }
  for (const Command& c : commands()) {
    if (argv[0] != c.name) continue;
    try {
      return c.run(std::vector<std::string>(argv.begin() + 1, argv.end()), out, err);
    } catch (const UsageError& e) {
      err << "xqzero " << c.name << ": " << e.what() << " (see xqzero " << c.name << " --help)\n";
      return 2;
    } catch (const std::exception& e) {
      err << "xqzero " << c.name << ": " << e.what() << "\n";
      return 1;
    }
  }
  err << "xqzero: unknown command '" << argv[0] << "' (xqzero help lists the commands)\n";
  return 2;
}

}  // namespace xq::app
