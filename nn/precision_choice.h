// What precision "auto" runs on a CPU (torch-free): float32 or bfloat16, whichever a short
// timing on this machine found faster, the way KataGo tunes its OpenCL kernels on first use.
// /proc/cpuinfo alone cannot tell: a CPU with AVX512-BF16 and no AMX ran the tiny net about as
// fast in both (issue 25), one with AMX about four times faster in bfloat16. bfloat16 is chosen
// only when it is at least 10% faster, since it is the less precise; on a tie float32 stays.
//
// Each measurement is kept in a cache file, one line per machine and kind of work:
//   <machine>\t<work>\t<float32 per s>\t<bfloat16 per s>\t<choice>
// so each machine measures once; later processes read the choice. The figures are printed
// once, when measured. A cache that cannot be read or written is said and measured around,
// never an error.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace xq::nn {

struct PrecisionTiming {
  double float32 = 0, bfloat16 = 0;  // work per second in each precision
};

// "bfloat16" when t.bfloat16 >= 1.1 * t.float32, else "float32".
std::string faster_precision(const PrecisionTiming& t);

// The cache file: $XQZERO_PRECISION_CACHE when set (empty or "none": no file, a measurement in
// each process), else $XDG_CACHE_HOME/xqzero/precision.tsv, else $HOME/.cache/xqzero/precision.tsv
// ("" when none of them is set).
std::string precision_cache_path();

// The CPU as /proc/cpuinfo names it (its first processor), read once per process.
struct CpuInfo {
  std::string model = "unknown CPU";
  bool avx512_bf16 = false, amx_bf16 = false;
  // bfloat16 kernels in hardware: without either flag oneDNN emulates bfloat16 (an AMD EPYC with
  // AVX2 only ran the tiny net 27x slower in bfloat16 than in float32).
  bool native_bfloat16() const { return avx512_bf16 || amx_bf16; }
};
const CpuInfo& cpu_info();

// This machine as the cache keys it: the CPU model, its bfloat16 flags and the BLAS under
// float32's linear layers (nn/blas.h: a choice timed under the reference BLAS must not outlive
// it), e.g. "Intel(R) Xeon(R) Processor; avx512_bf16 amx_bf16; OpenBLAS 0.3.21 ... (OpenMP)".
std::string machine_key();

// The choice for `work` (e.g. "inference 3x32 gp mat att, batch 64, 1 thread") on `machine`:
// from `cache_path` when it has a line for both, else measure() (its figures and choice printed
// to `log` when not null, and added to the cache). Remembered in the process, so measure() runs
// at most once per process for one machine and work.
std::string choose_cpu_precision(const std::string& machine, const std::string& work, const std::string& cache_path,
                                 const std::function<PrecisionTiming()>& measure, std::ostream* log);

// Where the torch backend's and the trainer's measurements are printed (nn/torch_evaluator.h
// auto_cpu_precision): nowhere by default (a UCI GUI or an analysis client reads only stdout,
// and commands' errors are one line), standard output for `xqzero train` and `xqzero bench`.
void set_precision_log(std::ostream* log);
std::ostream* precision_log();

// Sets the precision log for its lifetime (a command's run), then puts the previous one back.
class PrecisionLogScope {
 public:
  explicit PrecisionLogScope(std::ostream* log) : previous_(precision_log()) { set_precision_log(log); }
  ~PrecisionLogScope() { set_precision_log(previous_); }
  PrecisionLogScope(const PrecisionLogScope&) = delete;
  PrecisionLogScope& operator=(const PrecisionLogScope&) = delete;

 private:
  std::ostream* previous_;
};

}  // namespace xq::nn
