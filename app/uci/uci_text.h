// Reading and echoing the protocol's text, shared by the engine's commands and its options:
// integers and reals as UCI sends them, and input echoed in an info string cut to length.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

namespace xq::app::uci {

// Parses an optionally signed decimal integer. A value beyond int64_t's range saturates at
// its end and sets `*saturated`. False when the text is no integer.
inline bool parse_int(const std::string& text, int64_t& out, bool* saturated = nullptr) {
  const bool negative = !text.empty() && text[0] == '-';
  const size_t first = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (first >= text.size()) return false;
  const uint64_t limit = uint64_t(INT64_MAX) + (negative ? 1 : 0);
  uint64_t magnitude = 0;
  bool over = false;
  for (size_t k = first; k < text.size(); ++k) {
    if (text[k] < '0' || text[k] > '9') return false;
    const uint64_t digit = uint64_t(text[k] - '0');
    if (!over && magnitude > (limit - digit) / 10) over = true;
    if (!over) magnitude = magnitude * 10 + digit;
  }
  if (over) magnitude = limit;
  if (saturated) *saturated = over;
  out = !negative ? int64_t(magnitude) : magnitude > uint64_t(INT64_MAX) ? INT64_MIN : -int64_t(magnitude);
  return true;
}

// Input echoed in an info string is cut to this many characters (then "...").
constexpr size_t kEchoChars = 80;

// A control byte (below 0x20 but tab, or 0x7f): never echoed, and a line holding one is
// refused (UciEngine::command).
inline bool is_control_byte(char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f; }

// `text` cut to `max` characters (then "..."), its control bytes shown as '?'.
inline std::string clip(const std::string& text, size_t max = kEchoChars) {
  std::string out = text.size() <= max ? text : text.substr(0, max) + "...";
  for (char& c : out)
    if (is_control_byte(c)) c = '?';
  return out;
}

// An exception's message with its copy of the rejected `input` clipped.
inline std::string clip_echo(const std::string& message, const std::string& input) {
  std::string out = message;
  const size_t at = input.size() > kEchoChars ? out.find(input) : std::string::npos;
  if (at != std::string::npos) out.replace(at, input.size(), clip(input));
  return clip(out, 4 * kEchoChars);
}

inline bool parse_real(const std::string& text, double& out) {
  if (text.empty()) return false;
  try {
    size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size() && std::isfinite(out);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace xq::app::uci
