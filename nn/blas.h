// The BLAS library under LibTorch's float32 matrix products (torch-free). Linear layers run on
// it: the value head at inference, and the trainer's float32 heads and their gradients; the
// convolutions do not (oneDNN). Debian's libtorch links libblas.so.3, which on a fresh machine
// is the reference BLAS (package libblas3): a 1024 x 1024 float32 product ran at 5 GFLOP/s on
// one core of an AMD EPYC against 91 with OpenBLAS, and the tiny net's value head took 22% of
// a batch's time instead of 3% (README, Benchmarks). scripts/setup.sh installs OpenBLAS's
// OpenMP flavour (libopenblas0-openmp), which follows the thread count torch sets on each thread.
#pragma once

#include <string>

namespace xq::nn {

struct BlasInfo {
  std::string library;     // the file libblas.so.3 resolved to ("" when no BLAS symbol is found)
  std::string name;        // e.g. "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ... (OpenMP)", "reference BLAS"
  bool reference = false;  // Debian's reference BLAS: correct, and slow
  std::string warning;     // for the reference BLAS: what to install; else ""
};

// Identified once per process. When the library is OpenBLAS's pthread flavour (its own pool of
// threads, which spin after each product: the second core busy for nothing) and none of
// OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS and OMP_NUM_THREADS is set, this also sets it to one
// thread, as torch's threads already parallelise where the work is.
const BlasInfo& blas_info();

}  // namespace xq::nn
