#include "training/config_text.h"

#include <sstream>
#include <vector>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "core/errors.h"
#include "nn/net_config.h"
#include "selfplay/selfplay_config.h"
#include "training/training_config.h"

namespace xq::training {

namespace {

// The parser's messages repeat the input (a field name, a value): at most this much of them.
// (Validation messages clip the values they repeat themselves: proto/config_check.h.)
constexpr size_t kMaxMessageChars = 2 * kEchoChars;

// Keeps the first error (libprotobuf would otherwise log every one to stderr itself).
class Collector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (first.empty())
      first = "line " + std::to_string(line + 1) + " column " + std::to_string(column + 1) + ": " +
              clipped(message, kMaxMessageChars);
  }
  std::string first;
};

// The line of a dotted field path such as "selfplay.threads", or -1.
int line_of(const google::protobuf::TextFormat::ParseInfoTree& tree, const google::protobuf::Descriptor* d,
            const std::string& path) {
  const google::protobuf::TextFormat::ParseInfoTree* t = &tree;
  std::istringstream parts(path);
  std::string part;
  std::vector<std::string> names;
  while (std::getline(parts, part, '.')) names.push_back(part);
  for (size_t i = 0; i < names.size(); ++i) {
    const google::protobuf::FieldDescriptor* f = d ? d->FindFieldByName(names[i]) : nullptr;
    if (!f) return -1;
    if (i + 1 == names.size()) return t->GetLocation(f, -1).line;
    t = t->GetTreeForNested(f, -1);
    if (!t) return -1;
    d = f->message_type();
  }
  return -1;
}

}  // namespace

void apply_setting(xqzero::Config& config, const std::string& setting) {
  auto fail = [&](const std::string& why) { throw ConfigError("--set '" + clipped(setting) + "': " + why); };
  const size_t eq = setting.find('=');
  if (eq == std::string::npos || eq == 0) fail("expected section.field=value");
  const std::string path = setting.substr(0, eq), value = setting.substr(eq + 1);
  std::vector<std::string> names;
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) names.push_back(part);
  // The text-format form of the setting, "a { b: v }", checked against the descriptors first
  // so that the error names the path rather than a column.
  const google::protobuf::Descriptor* d = xqzero::Config::descriptor();
  std::string open, close;
  for (size_t i = 0; i < names.size(); ++i) {
    const google::protobuf::FieldDescriptor* f = d ? d->FindFieldByName(names[i]) : nullptr;
    if (!f || f->is_repeated()) fail("no field '" + clipped(path) + "' in the configuration (proto/config.proto)");
    const bool last = i + 1 == names.size();
    const bool message = f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE;
    if (last == message) fail("'" + clipped(path) + "' is " + (message ? "a section, not a field" : "not a section"));
    if (!last) {
      open += names[i] + " { ";
      close += " }";
      d = f->message_type();
      continue;
    }
    const bool text = f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_STRING;
    // A number or a bool is one token: nothing that could open another field.
    if (!text && (value.empty() || value.find_first_not_of("0123456789+-.eEinfatrulsINFAN_") != std::string::npos))
      fail("'" + clipped(value) + "' is not a value of this field");
    std::string quoted;
    for (char c : value) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    open += names[i] + ": " + (text ? "\"" + quoted + "\"" : value);
  }
  google::protobuf::TextFormat::Parser parser;
  Collector errors;
  parser.RecordErrorsTo(&errors);
  xqzero::Config change;
  if (!parser.ParseFromString(open + close, &change)) fail("'" + clipped(value) + "' is not a value of this field");
  config.MergeFrom(change);
}

void validate_config(const xqzero::Config& c) {
  nn::validate(c.network());
  nn::validate(c.evaluator());
  selfplay::validate(c.search());
  selfplay::validate(c.selfplay());
  training::validate(c.training());
}

xqzero::Config parse_config(const std::string& text, const std::string& name) {
  xqzero::Config config;
  google::protobuf::TextFormat::Parser parser;
  Collector errors;
  google::protobuf::TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(text, &config)) throw ConfigError(name + ": " + errors.first);
  try {
    validate_config(config);
  } catch (const std::invalid_argument& e) {
    // Messages start with the field path ("selfplay.threads = 0 is out of range 1..256").
    const std::string msg = e.what();
    const std::string path = msg.substr(0, msg.find(' '));
    const int line = line_of(tree, xqzero::Config::descriptor(), path);
    throw ConfigError(name + ": " + (line >= 0 ? "line " + std::to_string(line + 1) + ": " : "") + msg);
  }
  return config;
}

}  // namespace xq::training
