// libFuzzer target for the configuration parser (training/config_text.h): the text-format
// file every command reads with --config, and the `--set section.field=value` overrides.
// Input: a configuration text, then optionally a line "%%" followed by one override per line.
//
// Checks, beyond "no crash, no sanitizer report":
//   - bad input fails only with ConfigError (parse_config, apply_setting) or
//     std::invalid_argument (validate_config), each with a message, never another exception;
//   - a ConfigError is one line, and names its source ("fuzz: " or "--set '...'");
//   - an accepted configuration, written back in text format, parses and validates to the
//     same message (the file a run directory keeps reads back as it was written);
//   - after the overrides, a configuration that validates round-trips the same way.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include <google/protobuf/text_format.h>

#include "training/config_text.h"

namespace {

using xq::training::ConfigError;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_config: %s\n", what.c_str());
  std::abort();
}

void check_message(const std::string& msg, const std::string& source) {
  if (msg.empty()) fail("an error without a message");
  if (msg.find('\n') != std::string::npos) fail("an error of more than one line: " + msg);
  if (msg.rfind(source, 0) != 0) fail("an error that does not name '" + source + "': " + msg);
}

// Writes `config` as the run directory would keep it and reads it back.
void check_round_trip(const xqzero::Config& config, const char* when) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(config, &text)) fail(std::string("cannot print ") + when);
  xqzero::Config again;
  try {
    again = xq::training::parse_config(text, "written");
  } catch (const std::exception& e) {
    fail(std::string("a configuration accepted ") + when + " does not read back: " + e.what() + "\n" + text);
  }
  if (again.SerializeAsString() != config.SerializeAsString())
    fail(std::string("a configuration accepted ") + when + " reads back different:\n" + text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find("\n%%\n");
  const std::string text = input.substr(0, split);
  const std::string overrides = split == std::string::npos ? "" : input.substr(split + 4);

  xqzero::Config config;
  try {
    config = xq::training::parse_config(text, "fuzz");
  } catch (const ConfigError& e) {
    check_message(e.what(), "fuzz: ");
    return 0;
  } catch (const std::exception& e) {
    fail(std::string("parse_config threw something other than ConfigError: ") + e.what());
  }
  check_round_trip(config, "from the file");

  std::istringstream lines(overrides);
  int applied = 0;
  for (std::string line; applied < 16 && std::getline(lines, line);) {
    try {
      xq::training::apply_setting(config, line);
      ++applied;
    } catch (const ConfigError& e) {
      check_message(e.what(), "--set '");
    } catch (const std::exception& e) {
      fail(std::string("apply_setting threw something other than ConfigError: ") + e.what());
    }
  }
  if (applied == 0) return 0;
  try {
    xq::training::validate_config(config);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) fail("a validation error without a message");
    return 0;
  } catch (const std::exception& e) {
    fail(std::string("validate_config threw something other than invalid_argument: ") + e.what());
  }
  check_round_trip(config, "after --set");
  return 0;
}
