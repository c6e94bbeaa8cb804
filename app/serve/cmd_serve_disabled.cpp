// `xqzero serve` in a build configured with XQZERO_SERVE=OFF (app/serve/CMakeLists.txt): the
// command exists, says why it cannot run, and fails.
#include <ostream>

#include "app/commands.h"

namespace xq::app {

int cmd_serve(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "xqzero serve: this build has no web server (configured with -DXQZERO_SERVE=OFF; "
         "rebuild with libcpp-httplib-dev installed and XQZERO_SERVE=ON)\n";
  return 2;
}

}  // namespace xq::app
