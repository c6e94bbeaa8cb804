// Validation of configuration fields. The ranges and choices live beside each field in
// proto/config.proto (the `range` and `choices` field options); check_fields() walks a message
// and checks every field against them, so a bound is written once. The modules' validate()
// functions call it for their section and add the checks that relate two fields. Messages
// start with the field's dotted path, which the config loader (app/config_file.h) maps back
// to a line of the file.
#pragma once

#include <google/protobuf/message.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace xq::config {

// Throws std::invalid_argument "NAME = VALUE is out of range LO..HI".
template <typename T>
void check_range(const std::string& name, T value, double lo, double hi) {
  if (!(double(value) >= lo && double(value) <= hi)) {  // NaN fails too
    std::ostringstream s;
    s << name << " = " << value << " is out of range ";
    s.precision(15);  // bounds such as 100000000 in full, not as 1e+08
    s << lo << ".." << hi;
    throw std::invalid_argument(s.str());
  }
}

// Throws std::invalid_argument "NAME = "VALUE" is not one of A, B, C" (a long VALUE clipped).
void check_choice(const std::string& name, const std::string& value, const std::vector<std::string>& choices);

// Every field of `message` (unset ones at their defaults, nested messages included) against
// its `range` and `choices` options; `prefix` is the message's path ("training"). Throws
// std::invalid_argument naming the first field that fails.
void check_fields(const google::protobuf::Message& message, const std::string& prefix);

}  // namespace xq::config
