// The UCI engine's options (app/uci/uci_engine.h), each declared once. An option backed by a
// configuration field (CPuct is search.c_puct_init) takes its UCI type and its range or
// choices from that field in proto/config.proto, and its default from the engine's
// configuration (`xqzero uci --config F`, else the proto defaults); setting it changes that
// configuration. The others (Threads, MultiPV, UCI_ShowWDL, Ponder, Move Overhead, Hash,
// Clear Hash) belong to the engine. Names match case-insensitively, and a few have a second spelling
// (MoveOverhead, TreeMemoryMB: this engine's names before it took Pikafish's).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config.pb.h"

namespace xq::app::uci {

struct Option {
  std::string name;
  std::vector<std::string> aliases;  // other names setoption accepts
  std::string type;                  // spin, check, string, combo, button (no value)
  std::string def;
  int64_t min = 0, max = 0;           // spin
  double real_min = 0, real_max = 0;  // string options holding a number (real_max > real_min)
  std::vector<std::string> vars;      // combo
  std::string path;                   // the configuration field behind it, or ""
  bool evaluator = false;             // changing it rebuilds the evaluator
  // Beyond the type: why a value is refused ("" when it is fine); may normalise it.
  std::function<std::string(std::string& value)> validate;
  std::string value;

  // The `option name ...` line of the handshake.
  std::string describe() const;
  // "" when `v` is acceptable (and stores it), else why not.
  std::string set(const std::string& v);
  bool named(const std::string& name) const;
  int64_t integer() const { return std::stoll(value); }
  double real() const { return std::stod(value); }
  bool check() const { return value == "true"; }
};

// Every option, in the order the handshake lists them; configuration-backed ones with
// `config`'s values as defaults.
std::vector<Option> make_options(const xqzero::Config& config);

// How Hash (MB) is shared: the evaluator's cache takes at most a quarter of it (and at most
// CacheSize entries; none when `has_cache` is false, as for uniform priors), the search
// trees the rest, so that trees and cache together stay within Hash.
struct HashSplit {
  size_t tree_bytes = 0;      // all search threads' trees together
  int64_t cache_entries = 0;  // of nn::EvalCache::kBytesPerEntry bytes each
};
HashSplit split_hash(int64_t hash_mb, int64_t cache_size, bool has_cache);

}  // namespace xq::app::uci
