// libFuzzer target for the UCI command loop (app/uci/uci_engine.h): the input is a session,
// one command a line, played through UciEngine::loop exactly as `xqzero uci` reads standard
// input, after a preamble that picks the uniform evaluator (WeightsFile uniform: loading the
// bundled net, the default, took most of each run) and a 1 MB Hash (16 MB of cache zeroed per
// session took most of the rest). The session may set both again.
//
// Checks, beyond "no crash, no hang, no sanitizer report":
//   - every `go` that starts a search ends in exactly one `bestmove` by the end of the
//     session (the loop stops an infinite search at the end of input);
//   - the loop returns 0 however the session ends.
// So that each input runs in milliseconds, every unsigned number of more than a digit in the
// session is replaced by 3 (node counts, depths, times, option values, perft depths): the
// parsers still see every token shape, including negative and non-numeric values, but no
// search or perft runs long. And a session ends before its ninth `go`: each `go` starts a
// thread, and sessions of hundreds of them ran at a tenth of the speed (200-300 sessions/s
// against about 1,900) while reaching little that eight do not.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "app/uci/uci_engine.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_uci: %s\n", what.c_str());
  std::abort();
}

bool is_unsigned_number(const std::string& t) {
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

// The session with every unsigned number above 3 written as 3 (see above).
std::string bounded(const std::string& text) {
  std::string out, token;
  auto flush = [&] {
    out += is_unsigned_number(token) && (token.size() > 1 || token[0] > '3') ? "3" : token;
    token.clear();
  };
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {  // as the engine splits words
      flush();
      out += c;
    } else {
      token += c;
    }
  }
  flush();
  return out;
}

// A line's first word, white space separated as the engine splits them ("" if none).
std::string first_word(const std::string& line) {
  std::istringstream words(line);
  std::string first;
  words >> first;
  return first;
}

// The session up to (not including) the line that holds its (max_go + 1)-th `go` command.
std::string with_at_most_gos(const std::string& text, size_t max_go) {
  size_t seen = 0, start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    if (first_word(text.substr(start, end - start)) == "go" && ++seen > max_go) return text.substr(0, start);
    start = end;
  }
  return text;
}

// Lines whose first word (white space separated, as the engine splits them) is `word`.
size_t count_commands(const std::string& text, const std::string& word) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += first_word(line) == word;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // sessions longer than this add nothing but time
  const std::string session =
      with_at_most_gos(bounded(std::string(reinterpret_cast<const char*>(data), size)), 8);
  const std::string preamble = "setoption name WeightsFile value uniform\nsetoption name Hash value 1\n";
  std::istringstream in(preamble + session);
  std::ostringstream out;
  {
    xq::app::uci::UciEngine engine(out);
    if (engine.loop(in) != 0) fail("loop returned non-zero");
  }
  // One bestmove per search at most: never two answers to one go.
  const std::string reply = out.str();
  if (count_commands(reply, "bestmove") > count_commands(session, "go")) fail("more bestmoves than go commands");
  return 0;
}
