#include <iostream>
#include <string>
#include <vector>

#include "app/commands.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  const int status = xq::app::run_xqzero(args, std::cout, std::cerr);
  std::cout.flush();
  return status;
}
