// Choosing the device the network runs on: "cpu", "cuda", "cuda:N" or "auto".
// This header is torch-free so that the app and the search can name devices cheaply.
#pragma once

#include <string>

namespace xq::nn {

struct DeviceSpec {
  bool cuda = false;
  int index = 0;             // CUDA device ordinal
  std::string name() const;  // "cpu" or "cuda:N"
};

// Parses and resolves a device string against what this build and machine have.
// Throws std::invalid_argument naming the bad value (unknown name, CUDA not available,
// ordinal out of range).
DeviceSpec resolve_device(const std::string& text);

// How many CUDA devices this LibTorch build sees (0 for a CPU-only build).
int cuda_device_count();

// Whether this CPU computes bfloat16 natively (avx512_bf16 or amx_bf16 in /proc/cpuinfo).
// Precision "auto" picks bfloat16 on such CPUs; elsewhere bfloat16 is emulated and slower
// than float32.
bool cpu_has_native_bfloat16();

}  // namespace xq::nn
