// Exceptions for bad input. Each message names what was wrong and why.
#pragma once

#include <stdexcept>
#include <string>

namespace xq {

struct FenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MoveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace xq
