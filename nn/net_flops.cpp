#include "nn/net_flops.h"

#include "core/types.h"
#include "nn/net_config.h"
#include "nn/planes.h"
#include "nn/policy_labels.h"

namespace xq::nn {

namespace {

// A k x k convolution from `in` to `out` channels over the 90 squares.
double conv(int in, int out, int k) { return 2.0 * SQUARE_NB * double(in) * double(out) * k * k; }

// A fully connected layer (its bias adds are not multiply-adds).
double fc(int in, int out) { return 2.0 * double(in) * double(out); }

}  // namespace

NetFlops net_flops(const xqzero::NetworkConfig& config) {
  validate(config);
  const int c = config.channels();
  NetFlops f;
  f.stem = conv(input_planes(plane_layout(config)), c, 3);
  double block = 2 * conv(c, c, 3);
  if (config.se()) {
    const int hidden = c / config.se_ratio();
    block += fc(c, hidden) + fc(hidden, 2 * c);
  }
  f.blocks = config.blocks() * block;
  f.policy = conv(c, c, 3) + conv(c, kPolicyPlanes, 1);
  const int vc = config.value_channels();
  const int value_in = vc * SQUARE_NB + (config.global_pool() ? 2 * c : 0);
  f.value = conv(c, vc, 1) + fc(value_in, config.value_hidden()) + fc(config.value_hidden(), 3) +
            (config.material_head() ? fc(config.value_hidden(), 1) : 0.0);
  // The other training-only heads (short-term value, soft and reply policy) are left out: inference
  // never runs them.
  return f;
}

}  // namespace xq::nn
