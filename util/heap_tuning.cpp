#include "util/heap_tuning.h"

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace xq::util {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  constexpr int kMiB = 1 << 20;
  const auto set = [](const char* env, int param, int value) {
    if (!std::getenv(env)) mallopt(param, value);
  };
  set("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, 32 * kMiB);
  set("MALLOC_TRIM_THRESHOLD_", M_TRIM_THRESHOLD, 512 * kMiB);
  set("MALLOC_TOP_PAD_", M_TOP_PAD, 64 * kMiB);
#endif
}

}  // namespace xq::util
