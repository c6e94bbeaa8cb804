#include "app/serve/server.h"

#include <arpa/inet.h>
#include <httplib.h>

#include <ostream>
#include <stdexcept>

#include "app/serve/assets.h"
#include "app/serve/http_json.h"

namespace xq::app::serve {

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr a{};  // 127.0.0.0/8, as a numeric address only ("127.example.com" is not one)
  return ::inet_pton(AF_INET, host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

namespace {

// The host name of a Host header: "localhost:8080" -> "localhost", "[::1]:80" -> "[::1]".
std::string host_name(const std::string& header) {
  if (!header.empty() && header[0] == '[') return header.substr(0, header.find(']') + 1);
  return header.substr(0, header.find(':'));
}

}  // namespace

ServeApp::ServeApp(std::shared_ptr<nn::Evaluator> evaluator, analyse::QueryDefaults defaults,
                   analyse::AnalysisEngine::Options options, ServeOptions serve, std::ostream& log)
    : options_(std::move(serve)),
      runs_(options_.run_dirs),
      analysis_(std::move(evaluator), std::move(defaults), options, options_.limits),
      log_(log),
      http_(std::make_unique<httplib::Server>()) {
  const int threads = std::max(2, options_.http_threads);
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  http_->set_payload_max_length(1 << 20);
  http_->set_keep_alive_timeout(2);
  http_->set_read_timeout(5);
  http_->set_write_timeout(5);
  http_->set_default_headers({{"X-Content-Type-Options", "nosniff"}});
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!loopback_only_ || !req.has_header("Host") || is_loopback_host(host_name(req.get_header_value("Host"))))
      return httplib::Server::HandlerResponse::Unhandled;
    send_error(res, 403, "Host", "this server answers only requests for localhost (it is bound to loopback)");
    return httplib::Server::HandlerResponse::Handled;
  });
  // Routing failures and refused requests without a body of ours (httplib's own 4xx: a body
  // too large, a bad request line) get a JSON error too.
  http_->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const int status = res.status;
        send_error(res, status, "",
                   status == 404 ? "no such route or file: " + req.method + " " + req.path
                                 : "request refused (HTTP " + std::to_string(status) + ")");
        return httplib::Server::HandlerResponse::Handled;
      }));
  http_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send_error(res, 500, "", "internal error");
  });
  http_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    if (res.status < 400) return;
    std::lock_guard<std::mutex> lock(log_mutex_);
    log_ << "serve: " << res.status << " " << req.method << " " << req.path << "\n" << std::flush;
  });
  add_routes();
  add_run_routes();
  // Last: the page's assets, by exact name (nothing else is served from here).
  http_->Get(".*", [](const httplib::Request& req, httplib::Response& res) {
    const Asset* a = find_asset(req.path);
    if (!a) return send_error(res, 404, "", "no such route or file: GET " + req.path);
    res.set_header("Cache-Control", "no-cache");
    res.set_content(reinterpret_cast<const char*>(a->data), a->size, a->mime);
  });
}

ServeApp::~ServeApp() { stop(); }

int ServeApp::bind(const std::string& host, int port) {
  loopback_only_ = is_loopback_host(host);
  if (port == 0) {
    const int p = http_->bind_to_any_port(host);
    if (p < 0) throw std::runtime_error("cannot bind to " + host + " (any port)");
    return p;
  }
  if (!http_->bind_to_port(host, port)) throw std::runtime_error("cannot bind to " + host + ":" + std::to_string(port));
  return port;
}

bool ServeApp::listen() { return http_->listen_after_bind(); }

void ServeApp::stop() { http_->stop(); }

}  // namespace xq::app::serve
