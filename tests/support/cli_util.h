// Running xqzero subcommands in-process for the CLI tests.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "app/commands.h"

namespace xq::app::test {

struct CliResult {
  int status;
  std::string out, err;
};

// Runs `xqzero ARGV...` (argv without the program name) and captures both streams.
inline CliResult run_cli(const std::vector<std::string>& argv) {
  std::ostringstream out, err;
  const int status = run_xqzero(argv, out, err);
  return {status, out.str(), err.str()};
}

// The last line of `text`, trailing newlines ignored.
inline std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace xq::app::test
