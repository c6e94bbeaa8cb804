// A small command-line parser for the subcommands: --name value, --name=value and
// boolean --flag. Unknown options, missing values, malformed numbers and a value option given
// twice (other than the `repeatable` ones, such as --set) are errors (UsageError) whose message
// names the option.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace xq::app {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `value_options` take a value, `flags` do not. "--help"/"-h" is always a flag. A value
  // option in `repeatable` may be given several times (get_all() has every value); any other
  // given twice is refused rather than silently taking the last value. A flag given twice is
  // the same flag.
  Args(const std::vector<std::string>& argv, const std::vector<std::string>& value_options,
       const std::vector<std::string>& flags, const std::vector<std::string>& repeatable = {"set"});

  bool help() const { return has("help"); }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // Every value of a repeatable option, in order (get() returns the last).
  std::vector<std::string> get_all(const std::string& name) const;
  // Integer option within [lo, hi]; `fallback` when absent.
  long long get_int(const std::string& name, long long fallback, long long lo, long long hi) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> all_;
  std::vector<std::string> positional_;
};

}  // namespace xq::app
