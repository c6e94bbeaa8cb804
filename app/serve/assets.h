// The page's files (app/serve/web/), compiled into the binary at build time by
// embed_assets.cmake, so the page works with no internet and no files beside the binary.
#pragma once

#include <cstddef>
#include <string>

namespace xq::app::serve {

struct Asset {
  const char* path;  // "/index.html", "/board.js", ...
  const unsigned char* data;
  size_t size;
  const char* mime;
};

// The asset served at `path` ("/" is /index.html); null when there is none.
const Asset* find_asset(const std::string& path);

}  // namespace xq::app::serve
