// Reading protocol input (UCI commands, analysis queries) one line at a time with bounded
// memory: at most kMaxLineBytes of a line are kept; a longer line is read to its end (so the
// next one starts on a line of its own) and flagged.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

namespace xq::app {

constexpr size_t kMaxLineBytes = size_t(1) << 20;

// False at the end of input with nothing read. `too_long`: the line had more than
// kMaxLineBytes bytes (its first kMaxLineBytes are in `line`).
bool read_line(std::istream& in, std::string& line, bool& too_long);

}  // namespace xq::app
