#include "core/errors.h"

namespace xq {

std::string clipped(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars) return text;
  size_t cut = max_chars;
  // Back up over UTF-8 continuation bytes (10xxxxxx) so a character is never split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

}  // namespace xq
