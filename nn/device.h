// Choosing the device the network runs on: "cpu", "cuda", "cuda:N" or "auto".
// This header is torch-free so that the app and the search can name devices cheaply.
#pragma once

#include <string>

namespace xq::nn {

struct DeviceSpec {
  bool cuda = false;
  int index = 0;  // CUDA device ordinal
  std::string name() const;  // "cpu" or "cuda:N"
};

// Parses and resolves a device string against what this build and machine have.
// Throws std::invalid_argument naming the bad value (unknown name, CUDA not available,
// ordinal out of range).
DeviceSpec resolve_device(const std::string& text);

// How many CUDA devices this LibTorch build sees (0 for a CPU-only build).
int cuda_device_count();

}  // namespace xq::nn
