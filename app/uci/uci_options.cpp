#include "app/uci/uci_options.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "app/uci/uci_text.h"
#include "nn/device.h"
#include "nn/eval_cache.h"
#include "util/text.h"

namespace xq::app::uci {

std::string Option::describe() const {
  if (type == "button") return "option name " + name + " type button";
  std::string s = "option name " + name + " type " + type + " default " + (def.empty() ? "<empty>" : def);
  if (type == "spin") s += " min " + std::to_string(min) + " max " + std::to_string(max);
  for (const std::string& v : vars) s += " var " + v;
  return s;
}

std::string Option::set(const std::string& text) {
  std::string v = text;
  if (validate) {
    const std::string why = validate(v);
    if (!why.empty()) return "refused '" + clip(text) + "': " + clip(why, 4 * kEchoChars) + "; keeping '" + value + "'";
  }
  if (type == "button") return "";
  if (type == "spin") {
    int64_t x = 0;
    if (!parse_int(v, x) || x < min || x > max)
      return "needs an integer in " + std::to_string(min) + ".." + std::to_string(max) + ", got '" + clip(v) + "'";
    value = std::to_string(x);
  } else if (type == "check") {
    const std::string l = to_lower(v);
    if (l != "true" && l != "false") return "needs true or false, got '" + clip(v) + "'";
    value = l;
  } else if (type == "combo") {
    for (const std::string& c : vars)
      if (to_lower(c) == to_lower(v)) {
        value = c;
        return "";
      }
    std::string all;
    for (const std::string& c : vars) all += (all.empty() ? "" : ", ") + c;
    return "needs one of " + all + ", got '" + clip(v) + "'";
  } else if (real_max > real_min) {
    double x = 0;
    if (!parse_real(v, x) || x < real_min || x > real_max) {
      std::ostringstream os;
      os << "needs a number in " << real_min << ".." << real_max << ", got '" << clip(v) << "'";
      return os.str();
    }
    value = v;
  } else {
    value = v == "<empty>" ? "" : v;
  }
  return "";
}

bool Option::named(const std::string& n) const {
  const std::string l = to_lower(n);
  if (to_lower(name) == l) return true;
  for (const std::string& a : aliases)
    if (to_lower(a) == l) return true;
  return false;
}

namespace {

Option spin(const char* name, int64_t def, int64_t lo, int64_t hi) {
  Option o;
  o.name = name;
  o.type = "spin";
  o.def = o.value = std::to_string(def);
  o.min = lo;
  o.max = hi;
  return o;
}

Option check(const char* name, bool def) {
  Option o;
  o.name = name;
  o.type = "check";
  o.def = o.value = def ? "true" : "false";
  return o;
}

// The option of configuration field `path` ("section.field"): its UCI type from the field's
// type, range and choices from its options, default from `config`.
Option config_option(const char* name, const std::string& path, const xqzero::Config& config, bool evaluator = false) {
  using FD = google::protobuf::FieldDescriptor;
  const size_t dot = path.find('.');
  const FD* section = xqzero::Config::descriptor()->FindFieldByName(path.substr(0, dot));
  const FD* f =
      section && section->message_type() ? section->message_type()->FindFieldByName(path.substr(dot + 1)) : nullptr;
  if (!f) throw std::logic_error("UCI option " + std::string(name) + ": no configuration field " + path);
  const google::protobuf::Message& m = config.GetReflection()->GetMessage(config, section);
  const google::protobuf::Reflection* r = m.GetReflection();
  Option o;
  o.name = name;
  o.path = path;
  o.evaluator = evaluator;
  const bool ranged = f->options().HasExtension(xqzero::range);
  const xqzero::FieldRange range = f->options().GetExtension(xqzero::range);
  std::ostringstream text;
  switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
    case FD::CPPTYPE_INT64: {
      o.type = "spin";
      const int64_t v = f->cpp_type() == FD::CPPTYPE_INT32 ? r->GetInt32(m, f) : r->GetInt64(m, f);
      text << v;
      o.min = ranged && range.has_min() ? int64_t(range.min()) : INT64_MIN;
      o.max = ranged && range.has_max() ? int64_t(range.max()) : INT64_MAX;
      break;
    }
    case FD::CPPTYPE_FLOAT:
    case FD::CPPTYPE_DOUBLE:
      // UCI has no real type: a string holding a number, checked against the range.
      o.type = "string";
      text << (f->cpp_type() == FD::CPPTYPE_FLOAT ? double(r->GetFloat(m, f)) : r->GetDouble(m, f));
      o.real_min = ranged && range.has_min() ? range.min() : -1e300;
      o.real_max = ranged && range.has_max() ? range.max() : 1e300;
      break;
    case FD::CPPTYPE_BOOL:
      o.type = "check";
      text << (r->GetBool(m, f) ? "true" : "false");
      break;
    case FD::CPPTYPE_STRING:
      text << r->GetString(m, f);
      if (f->options().HasExtension(xqzero::choices)) {
        o.type = "combo";
        o.vars = split_fields(f->options().GetExtension(xqzero::choices), '|');
      } else {
        o.type = "string";
      }
      break;
    default: throw std::logic_error("UCI option " + std::string(name) + ": field " + path + " has no UCI type");
  }
  o.def = o.value = text.str();
  return o;
}

}  // namespace

std::vector<Option> make_options(const xqzero::Config& config) {
  Option overhead = spin("Move Overhead", 100, 0, 10000);
  overhead.aliases = {"MoveOverhead"};
  // The memory in MB of the search trees and the evaluator's cache together (split_hash),
  // with Pikafish's default (its Hash sizes a transposition table; this engine has trees and
  // a cache instead). A search whose trees reach their share stops growing them and answers;
  // `hashfull` reports the share of Hash in use.
  Option hash = spin("Hash", 16, 1, 1 << 20);
  hash.aliases = {"TreeMemoryMB"};
  Option clear_hash;  // forgets the kept trees and the evaluator's cache
  clear_hash.name = "Clear Hash";
  clear_hash.type = "button";
  Option device = config_option("Device", "evaluator.device", config, true);
  device.validate = [](std::string& v) -> std::string {
    v = to_lower(v);
    try {
      nn::resolve_device(v);  // the forms cpu, cuda, cuda:N and auto, and what this machine has
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  return {
      config_option("WeightsFile", "evaluator.weights", config, true),  // "uniform": no network
      // Up to what the machine has (at least 64, so a setting does not depend on the machine).
      spin("Threads", 1, 1, std::max<int64_t>(64, int64_t(std::thread::hardware_concurrency()))),
      spin("MultiPV", 1, 1, 256),
      check("UCI_ShowWDL", false),
      check("Ponder", false),
      overhead,
      config_option("SearchAlgorithm", "search.algorithm", config),
      config_option("CPuct", "search.c_puct_init", config),
      config_option("CPuctBase", "search.c_puct_base", config),
      config_option("FPUReduction", "search.fpu_reduction", config),
      config_option("LeavesPerBatch", "search.leaves_per_batch", config),
      config_option("BatchSize", "evaluator.max_batch", config, true),
      config_option("CacheSize", "evaluator.cache_entries", config, true),
      device,
      config_option("EvalThreads", "evaluator.threads", config, true),
      hash,
      clear_hash,
  };
}

HashSplit split_hash(int64_t hash_mb, int64_t cache_size, bool has_cache) {
  const size_t bytes = size_t(hash_mb) << 20;
  HashSplit s;
  if (has_cache)
    s.cache_entries =
        std::min<int64_t>(std::max<int64_t>(cache_size, 0), int64_t(bytes / 4 / nn::EvalCache::kBytesPerEntry));
  s.tree_bytes = bytes - size_t(s.cache_entries) * nn::EvalCache::kBytesPerEntry;
  return s;
}

}  // namespace xq::app::uci
