// Range and choice checks for configuration fields (header-only, shared by the modules'
// validate() functions). Messages start with the field's dotted path, which the config
// loader (app/config_file.h) maps back to a line of the file.
#pragma once

#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace xq::config {

// Throws std::invalid_argument "NAME = VALUE is out of range LO..HI".
template <typename T>
void check_range(const char* name, T value, double lo, double hi) {
  if (!(double(value) >= lo && double(value) <= hi)) {  // NaN fails too
    std::ostringstream s;
    s << name << " = " << value << " is out of range ";
    s.precision(15);  // bounds such as 100000000 in full, not as 1e+08
    s << lo << ".." << hi;
    throw std::invalid_argument(s.str());
  }
}

// Throws std::invalid_argument "NAME = "VALUE" is not one of A, B, C" (a long VALUE clipped).
inline void check_choice(const char* name, const std::string& value, std::initializer_list<const char*> choices) {
  std::string list;
  for (const char* c : choices) {
    if (value == c) return;
    list += list.empty() ? c : std::string(", ") + c;
  }
  throw std::invalid_argument(std::string(name) + " = \"" + clipped(value) + "\" is not one of " + list);
}

}  // namespace xq::config
