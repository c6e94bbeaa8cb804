// `xqzero serve` as a user starts it (the built binary): bound to loopback by default and
// quiet about it; any other --host is said loudly on standard error before the address.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#ifndef XQZERO_BINARY
#error "XQZERO_BINARY must name the built xqzero binary"
#endif

namespace xq::app::serve {
namespace {

struct Started {
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Starts `xqzero serve --model uniform --port 0 EXTRA`, waits (up to 60 s) for its address line,
// stops it, and returns what it printed.
Started start_and_stop(const std::string& extra) {
  const std::string base = (testing::TempDir().empty() ? std::string("/tmp/") : testing::TempDir()) + "xq_serve_cli_" +
                           std::to_string(getpid());
  const std::string out = base + ".out", err = base + ".err";
  const std::string script = "'" + std::string(XQZERO_BINARY) + "' serve --model uniform --port 0 " + extra + " >'" +
                             out + "' 2>'" + err + "' & pid=$!; for i in $(seq 600); do grep -q 'serve: open' '" + out +
                             "' && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done; kill $pid; wait $pid";
  if (std::system(script.c_str()) == -1) ADD_FAILURE() << "cannot run the shell";
  Started s{slurp(out), slurp(err)};
  std::remove(out.c_str());
  std::remove(err.c_str());
  return s;
}

TEST(ServeCli, LoopbackByDefaultWithoutAWarning) {
  const Started s = start_and_stop("");
  EXPECT_EQ(s.out.rfind("serve: open http://127.0.0.1:", 0), 0u) << s.out << s.err;
  EXPECT_EQ(s.err.find("WARNING"), std::string::npos) << s.err;
}

TEST(ServeCli, AnyOtherHostIsSaidLoudly) {
  const Started s = start_and_stop("--host 0.0.0.0");
  EXPECT_EQ(s.out.rfind("serve: open http://127.0.0.1:", 0), 0u) << s.out << s.err;
  EXPECT_NE(s.err.find("serve: WARNING: listening on 0.0.0.0, not loopback"), std::string::npos) << s.err;
}

}  // namespace
}  // namespace xq::app::serve
