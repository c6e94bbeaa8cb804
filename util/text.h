// Small string helpers every layer uses (the bottom layer: no other xqzero dependency).
#pragma once

#include <string>
#include <vector>

namespace xq {

// ASCII lower case (bytes above 127 unchanged).
std::string to_lower(std::string s);

// The words of `s`, split at any run of whitespace (no empty words).
std::vector<std::string> split_words(const std::string& s);

// The fields of `s` between `sep` characters (empty fields kept; "" gives none).
std::vector<std::string> split_fields(const std::string& s, char sep);

}  // namespace xq
