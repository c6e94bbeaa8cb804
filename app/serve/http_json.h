// Small helpers of the routes (server.cpp, routes.cpp): JSON answers and errors, request
// bodies and query parameters, each bad one a RequestError naming it.
#pragma once

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace xq::app::serve {

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
// {"error": message, "field": field (omitted when empty), "status": status}
void send_error(httplib::Response& res, int status, const std::string& field, const std::string& message);

// How deep a request body may nest arrays and objects (the API needs three levels).
constexpr int kMaxJsonDepth = 32;

// The body as a JSON object: RequestError 400 for malformed JSON, another JSON value, or one
// nested deeper than kMaxJsonDepth.
nlohmann::json json_body(const httplib::Request& req);
// Query parameter `name` as an integer in lo..hi, `fallback` when absent.
long long int_param(const httplib::Request& req, const std::string& name, long long fallback, long long lo,
                    long long hi);

// A handler that answers f(req) as JSON 200, a RequestError as its status, anything else
// thrown as 500; never lets an exception out.
httplib::Server::Handler json_handler(std::function<nlohmann::json(const httplib::Request&)> f);

}  // namespace xq::app::serve
