#include "app/args.h"

#include <algorithm>

#include "core/errors.h"

namespace xq::app {

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& value_options,
           const std::vector<std::string>& flags, const std::vector<std::string>& repeatable) {
  auto known = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-h" || a == "--help") {
      values_["help"] = "";
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    const size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (known(flags, name)) {
      if (inline_value) throw UsageError("option --" + name + " takes no value");
      values_[name] = "";
    } else if (known(value_options, name)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
        value = argv[++i];
      }
      auto seen = values_.find(name);
      if (seen != values_.end() && !known(repeatable, name))
        throw UsageError("option --" + name + " given twice ('" + clipped(seen->second) + "' and '" + clipped(value) +
                         "'); give it once");
      values_[name] = value;
      all_[name].push_back(value);
    } else {
      throw UsageError("unknown option --" + clipped(name));
    }
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::vector<std::string> Args::get_all(const std::string& name) const {
  auto it = all_.find(name);
  return it == all_.end() ? std::vector<std::string>() : it->second;
}

long long Args::get_int(const std::string& name, long long fallback, long long lo, long long hi) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& v = it->second;
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (v.empty() || used != v.size()) throw UsageError("option --" + name + ": '" + clipped(v) + "' is not an integer");
  if (n < lo || n > hi)
    throw UsageError("option --" + name + ": " + v + " is out of range " + std::to_string(lo) + ".." +
                     std::to_string(hi));
  return n;
}

}  // namespace xq::app
