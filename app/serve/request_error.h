// A request the server refuses: an HTTP status (4xx) and a message naming the problem, with
// the request field at fault when there is one. Handlers throw it; the routes turn it into
// {"error": message, "field": field} with that status (docs/serve.md).
#pragma once

#include <stdexcept>
#include <string>

namespace xq::app::serve {

struct RequestError : std::runtime_error {
  RequestError(int status, std::string field, const std::string& message)
      : std::runtime_error(message), status(status), field(std::move(field)) {}
  int status;
  std::string field;  // empty: no single field at fault
};

}  // namespace xq::app::serve
