// The network the tests build when they need a real one: one residual block of 8 channels,
// which runs a forward pass in well under a millisecond on one core. Shared by the nn,
// training and app tests.
#pragma once

#include "nn/net_config.h"

namespace xq::test {

inline xqzero::NetworkConfig tiny_net_config() {
  xqzero::NetworkConfig c;
  c.set_blocks(1);
  c.set_channels(8);
  c.set_value_hidden(16);
  return c;
}

}  // namespace xq::test
