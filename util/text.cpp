#include "util/text.h"

#include <cctype>
#include <sstream>

namespace xq {

std::string to_lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> split_fields(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string field; std::getline(in, field, sep);) out.push_back(field);
  return out;
}

}  // namespace xq
