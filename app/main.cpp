#include <iostream>
#include <string>
#include <vector>

#include "app/commands.h"
#include "util/heap_tuning.h"

int main(int argc, char** argv) {
  xq::util::keep_freed_memory_for_reuse();
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  const int status = xq::app::run_xqzero(args, std::cout, std::cerr);
  std::cout.flush();
  return status;
}
