#include "util/heap_tuning.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace xq::util {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  constexpr int kMiB = 1 << 20;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const auto set = [&](const char* env, const char* tunable, int param, int value) {
    if (std::getenv(env) || (tunables && std::strstr(tunables, tunable))) return;
    mallopt(param, value);  // a value glibc refuses leaves its default: slower, not wrong
  };
  set("MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold", M_MMAP_THRESHOLD, 32 * kMiB);
  set("MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold", M_TRIM_THRESHOLD, 512 * kMiB);
  set("MALLOC_TOP_PAD_", "glibc.malloc.top_pad", M_TOP_PAD, 64 * kMiB);
#endif
}

}  // namespace xq::util
