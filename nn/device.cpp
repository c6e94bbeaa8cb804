#include "nn/device.h"

#include <fstream>
#include <string>

#include <torch/torch.h>

#include <stdexcept>

#include "core/errors.h"

namespace xq::nn {

std::string DeviceSpec::name() const { return cuda ? "cuda:" + std::to_string(index) : "cpu"; }

int cuda_device_count() { return torch::cuda::is_available() ? int(torch::cuda::device_count()) : 0; }

DeviceSpec resolve_device(const std::string& text) {
  const std::string bad = "bad device '" + clipped(text) + "': ";
  DeviceSpec spec;
  if (text == "cpu") return spec;
  if (text == "auto") {
    spec.cuda = cuda_device_count() > 0;
    return spec;
  }
  if (text.rfind("cuda", 0) != 0) throw std::invalid_argument(bad + "expected cpu, cuda, cuda:N or auto");
  if (text.size() > 4) {
    if (text[4] != ':' || text.size() == 5 || text.size() > 8 ||
        text.find_first_not_of("0123456789", 5) != std::string::npos)
      throw std::invalid_argument(bad + "expected cuda:N with N a device number");
    spec.index = std::stoi(text.substr(5));
  }
  const int n = cuda_device_count();
  if (n == 0) throw std::invalid_argument(bad + "this build or machine has no CUDA device");
  if (spec.index >= n) throw std::invalid_argument(bad + "only " + std::to_string(n) + " CUDA device(s)");
  spec.cuda = true;
  return spec;
}

bool cpu_has_native_bfloat16() {
  static const bool native = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("flags", 0) == 0)
        return line.find(" avx512_bf16") != std::string::npos || line.find(" amx_bf16") != std::string::npos;
    return false;
  }();
  return native;
}

}  // namespace xq::nn
