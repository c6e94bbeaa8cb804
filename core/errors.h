// Exceptions for bad input. Each message names what was wrong and why.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace xq {

struct FenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MoveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How much of a piece of input an error message repeats.
constexpr size_t kEchoChars = 80;

// `text` as an error message may repeat it: whole when it has at most `max_chars` bytes,
// else its first `max_chars` bytes (never cutting a UTF-8 character) followed by "...".
// A 100 KB FEN or a 1 MB option name must not come back in full.
std::string clipped(const std::string& text, size_t max_chars = kEchoChars);

}  // namespace xq
