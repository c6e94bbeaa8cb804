#include "app/line_reader.h"

#include <istream>

namespace xq::app {

bool read_line(std::istream& in, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  bool any = false;
  for (char c; in.get(c);) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < kMaxLineBytes)
      line.push_back(c);
    else
      too_long = true;
  }
  return any;
}

}  // namespace xq::app
