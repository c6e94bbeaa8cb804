#include "app/serve/http_json.h"

#include <cerrno>
#include <cstdlib>

#include "app/serve/request_error.h"
#include "core/errors.h"

namespace xq::app::serve {

using json = nlohmann::json;

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  // Invalid UTF-8 (from a request echoed in a message) is replaced, never a throw.
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& field, const std::string& message) {
  json j{{"error", message}, {"status", status}};
  if (!field.empty()) j["field"] = field;
  send_json(res, status, j);
}

namespace {

// Whether `text` nests arrays and objects deeper than `max` (brackets inside strings do not
// count). Copying and writing a JSON value recurse once per level: a body of 300,000 '['
// would overflow a handler thread's stack, so such a body is refused before it is parsed.
bool nested_deeper_than(const std::string& text, int max) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

json json_body(const httplib::Request& req) {
  if (nested_deeper_than(req.body, kMaxJsonDepth))
    throw RequestError(400, "", "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  json j = json::parse(req.body, nullptr, false);
  if (j.is_discarded()) throw RequestError(400, "", "malformed JSON in the request body");
  if (!j.is_object()) throw RequestError(400, "", "the request body must be a JSON object");
  return j;
}

long long int_param(const httplib::Request& req, const std::string& name, long long fallback, long long lo,
                    long long hi) {
  if (!req.has_param(name.c_str())) return fallback;
  const std::string v = req.get_param_value(name.c_str());
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE || x < lo || x > hi)
    throw RequestError(
        400, name,
        "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got '" + clipped(v) + "'");
  return x;
}

httplib::Server::Handler json_handler(std::function<json(const httplib::Request&)> f) {
  return [f = std::move(f)](const httplib::Request& req, httplib::Response& res) {
    try {
      send_json(res, 200, f(req));
    } catch (const RequestError& e) {
      send_error(res, e.status, e.field, e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, "", std::string("internal error: ") + e.what());
    }
  };
}

}  // namespace xq::app::serve
