// The net that ships with xqzero (nets/, nets/README.md): what the engines play with
// when no weights are named.
//
// The build copies nets/xqzero-default.xqz next to the binary (BUILD/app/nets/), `cmake
// --install` puts it in PREFIX/share/xqzero/nets/; the binary looks in those two places
// beside itself, then in the source tree's nets/ it was built from, so it finds the net
// without a path wherever it was built or installed. Torch-free.
#pragma once

#include <string>
#include <vector>

namespace xq::nn {

// The file name of the bundled net in nets/.
constexpr const char* kBundledNetFile = "xqzero-default.xqz";

// "bundled", "<bundled>" or "net" (any case), or empty: the weights setting that names the
// bundled net (the default of WeightsFile, --model and a match player "net").
bool is_bundled_weights(const std::string& weights);

// The places looked at, in order (for messages and tests).
std::vector<std::string> bundled_net_candidates();

// The bundled net's path: the first candidate that exists. Throws std::runtime_error naming
// every place looked at when none does.
std::string bundled_net_path();

// `weights` with the bundled net's name replaced by its path; anything else unchanged.
std::string resolve_weights(const std::string& weights);

}  // namespace xq::nn
