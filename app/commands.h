// The subcommands of the single `xqzero` binary. Each lives in its own cmd_*.cpp and is
// listed once in commands.cpp; `run_xqzero` dispatches and turns bad input into a
// one-line error on stderr with a non-zero exit status.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace xq::app {

using CommandFn = int (*)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

struct Command {
  const char* name;
  const char* summary;
  CommandFn run;
};

const std::vector<Command>& commands();

// argv excludes the program name. Returns the process exit status.
int run_xqzero(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// One declaration per subcommand (defined in cmd_<name>.cpp).
int cmd_perft(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_judge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_bench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_selfplay(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_train(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_dump(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_uci(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_match(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_analyse(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_evalset(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_export(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_serve(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace xq::app
