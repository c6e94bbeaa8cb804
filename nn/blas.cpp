#include "nn/blas.h"

#include <dlfcn.h>

#include <cstdlib>

namespace xq::nn {

namespace {

template <typename F>
F symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

BlasInfo identify() {
  BlasInfo info;
  if (void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_")) {
    Dl_info where{};
    if (dladdr(sgemm, &where) && where.dli_fname) info.library = where.dli_fname;
  }
  using Config = char* (*)();
  using Parallel = int (*)();
  using SetThreads = void (*)(int);
  if (const auto config = symbol<Config>("openblas_get_config")) {
    info.name = config();
    const auto parallel = symbol<Parallel>("openblas_get_parallel");
    const int mode = parallel ? parallel() : -1;
    info.name += mode == 0 ? " (sequential)" : mode == 1 ? " (pthreads)" : mode == 2 ? " (OpenMP)" : "";
    const bool told =
        std::getenv("OPENBLAS_NUM_THREADS") || std::getenv("GOTO_NUM_THREADS") || std::getenv("OMP_NUM_THREADS");
    if (mode == 1 && !told)
      if (const auto set_threads = symbol<SetThreads>("openblas_set_num_threads")) {
        set_threads(1);
        info.name += ", set to 1 thread";
      }
  } else if (symbol<void*>("mkl_get_max_threads")) {
    info.name = "Intel MKL";
  } else if (symbol<void*>("bli_info_get_version_str")) {
    info.name = "BLIS";
  } else if (info.library.empty()) {
    info.name = "no BLAS found (LibTorch's own kernels)";
  } else {
    // Debian installs the reference BLAS as .../blas/libblas.so.3; anything else unnamed is
    // some other implementation.
    info.reference = info.library.find("/blas/libblas.so") != std::string::npos;
    info.name = info.reference ? "reference BLAS" : "unidentified BLAS";
  }
  if (info.reference)
    info.warning = "float32 linear layers run on the reference BLAS (" + info.library +
                   "), several times slower than OpenBLAS: apt-get install libopenblas0-openmp (scripts/setup.sh does)";
  return info;
}

}  // namespace

const BlasInfo& blas_info() {
  static const BlasInfo info = identify();
  return info;
}

}  // namespace xq::nn
