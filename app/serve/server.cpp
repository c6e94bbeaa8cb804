#include "app/serve/server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>

#include <cctype>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "app/serve/assets.h"
#include "app/serve/http_json.h"
#include "core/errors.h"

namespace xq::app::serve {

bool is_loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  // IPv6 by its value, in brackets or not (::1, 0:0:0:0:0:0:0:1, ::ffff:127.0.0.1)
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  const std::string bare = bracketed ? host.substr(1, host.size() - 2) : host;
  in6_addr a6{};
  if (::inet_pton(AF_INET6, bare.c_str(), &a6) == 1)
    return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
  if (bracketed) return false;
  in_addr a{};  // 127.0.0.0/8, as a numeric address only ("127.example.com" is not one)
  return ::inet_pton(AF_INET, host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

namespace {

// The host name of a Host header: "localhost:8080" -> "localhost", "[::1]:80" -> "[::1]".
std::string host_name(const std::string& header) {
  if (!header.empty() && header[0] == '[') return header.substr(0, header.find(']') + 1);
  return header.substr(0, header.find(':'));
}

// A request's text as the log repeats it: the decoded path may hold any byte, so control
// bytes become '?' (a %0A cannot forge a log line) and a long path is clipped.
std::string printable(const std::string& text) {
  std::string s = clipped(text, 200);
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Refusal {
  int status;
  std::string field, message;
};

// What the server refuses before routing (and before a body is read), or nothing:
//   - a Host that is not a loopback name while bound to loopback (DNS rebinding);
//   - a request that changes something (not GET or HEAD) from another origin: its Origin
//     header (browsers send it with every POST) must name this server's Host, so a page of
//     another site cannot start or stop analyses behind the user's back;
//   - a chunked body, or a compressed one: cpp-httplib checks the 1 MiB limit on Content-Length
//     only, and would inflate a compressed body past it (a POST with neither has no body);
//   - a non-empty body that is not declared JSON (a form or text/plain post, which a page of
//     another site may send without asking the browser first);
//   - a Range of several parts (the answer would be copied once per part).
std::optional<Refusal> refusal(const httplib::Request& req, bool loopback_only) {
  const std::string host = req.get_header_value("Host");
  if (loopback_only && req.has_header("Host") && !is_loopback_host(host_name(host)))
    return Refusal{403, "Host", "this server answers only requests for localhost (it is bound to loopback)"};
  if (req.has_header("Range") && req.get_header_value("Range").find(',') != std::string::npos)
    return Refusal{416, "Range", "a Range of several parts is not served"};
  if (req.method == "GET" || req.method == "HEAD") return std::nullopt;
  if (req.has_header("Origin")) {
    std::string origin = lower(req.get_header_value("Origin"));
    for (const char* scheme : {"http://", "https://"})
      if (origin.rfind(scheme, 0) == 0) origin = origin.substr(std::string(scheme).size());
    if (origin != lower(host))
      return Refusal{403, "Origin", "a request from another origin is refused (" + clipped(origin) + ")"};
  }
  if (req.has_header("Transfer-Encoding"))
    return Refusal{411, "Transfer-Encoding", "a request body must come with a Content-Length, not chunked"};
  if (req.has_header("Content-Encoding"))
    return Refusal{415, "Content-Encoding", "a compressed request body is not accepted"};
  const std::string length = req.get_header_value("Content-Length");
  if (!length.empty() && length != "0" && lower(req.get_header_value("Content-Type")).rfind("application/json", 0) != 0)
    return Refusal{415, "Content-Type", "a request body must be JSON (Content-Type: application/json)"};
  return std::nullopt;
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
    const std::optional<Refusal> r = refusal(req, loopback_only_);
    if (!r) return httplib::Server::HandlerResponse::Unhandled;
    send_error(res, r->status, r->field, r->message);
    return httplib::Server::HandlerResponse::Handled;
  });
  // Routing failures and refused requests without a body of ours (httplib's own 4xx: a body
  // too large, a bad request line) get a JSON error too.
  http_->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const int status = res.status;
        send_error(res, status, "",
                   status == 404 ? "no such route or file: " + clipped(req.method) + " " + clipped(req.path)
                                 : "request refused (HTTP " + std::to_string(status) + ")");
        return httplib::Server::HandlerResponse::Handled;
      }));
  http_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send_error(res, 500, "", "internal error");
  });
  http_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    if (res.status < 400) return;
    std::lock_guard<std::mutex> lock(log_mutex_);
    log_ << "serve: " << res.status << " " << printable(req.method) << " " << printable(req.path) << "\n" << std::flush;
  });
  add_routes();
  add_run_routes();
  // Last: the page's assets, by exact name (nothing else is served from here).
  http_->Get(".*", [](const httplib::Request& req, httplib::Response& res) {
    const Asset* a = find_asset(req.path);
    if (!a) return send_error(res, 404, "", "no such route or file: GET " + clipped(req.path));
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
