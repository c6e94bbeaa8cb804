// `xqzero serve`: one HTTP server (Debian's cpp-httplib) for the analysis board and the run
// dashboard (docs/serve.md): the page's assets, compiled into the binary (assets.h), and the
// JSON API over the rules core (position_api.h), the analysis engine (analysis_service.h) and
// the served run directories (run_api.h). Every bad request is answered with a 4xx JSON error
// and the server goes on.
//
// When bound to a loopback address, requests must name a loopback host (Host: localhost,
// 127.0.0.1 or [::1]), so a web page elsewhere cannot reach the server through DNS rebinding.
#pragma once

#include <atomic>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/serve/analysis_service.h"
#include "app/serve/run_files.h"

namespace httplib {
class Server;
}

namespace xq::app::serve {

struct ServeOptions {
  std::vector<std::string> run_dirs;
  AnalysisService::Limits limits;
  std::string evaluator;  // what /api/info names as the net
  int http_threads = 24;  // connections served at once (browsers keep several open)
};

class ServeApp {
 public:
  // Throws std::invalid_argument for a run directory that does not exist. `log` receives one
  // line per refused request (4xx, 5xx).
  ServeApp(std::shared_ptr<nn::Evaluator> evaluator, analyse::QueryDefaults defaults,
           analyse::AnalysisEngine::Options options, ServeOptions serve, std::ostream& log);
  ~ServeApp();

  // Binds host:port (port 0: a free one) and returns the port; throws std::runtime_error.
  int bind(const std::string& host, int port);
  // Serves until stop(); returns false when serving failed.
  bool listen();
  void stop();

  const RunDirs& runs() const { return runs_; }

 private:
  void add_routes();
  void add_run_routes();

  ServeOptions options_;
  RunDirs runs_;
  AnalysisService analysis_;
  std::ostream& log_;
  std::mutex log_mutex_;
  std::atomic<bool> loopback_only_{true};
  std::unique_ptr<httplib::Server> http_;
};

// Whether `host` (a bind address or a Host header's name) is a loopback one.
bool is_loopback_host(const std::string& host);

}  // namespace xq::app::serve
