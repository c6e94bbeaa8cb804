#include "nn/net_config.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <stdexcept>

#include "proto/config_check.h"
#include "util/text.h"

namespace xq::nn {

namespace {

std::string field_text(const google::protobuf::Message& m, const google::protobuf::FieldDescriptor* f) {
  const auto* r = m.GetReflection();
  using FD = google::protobuf::FieldDescriptor;
  switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32: return std::to_string(r->GetInt32(m, f));
    case FD::CPPTYPE_INT64: return std::to_string(r->GetInt64(m, f));
    case FD::CPPTYPE_UINT32: return std::to_string(r->GetUInt32(m, f));
    case FD::CPPTYPE_UINT64: return std::to_string(r->GetUInt64(m, f));
    case FD::CPPTYPE_BOOL: return r->GetBool(m, f) ? "true" : "false";
    case FD::CPPTYPE_FLOAT: return std::to_string(r->GetFloat(m, f));
    case FD::CPPTYPE_DOUBLE: return std::to_string(r->GetDouble(m, f));
    case FD::CPPTYPE_STRING: return "\"" + r->GetString(m, f) + "\"";
    case FD::CPPTYPE_ENUM: return r->GetEnum(m, f)->name();
    default: return "<message>";
  }
}

}  // namespace

// The ranges and choices are beside each field in proto/config.proto; here only what relates
// two fields.
void validate(const xqzero::NetworkConfig& c) {
  config::check_fields(c, "network");
  if (c.se() && c.channels() / c.se_ratio() < 1)
    throw std::invalid_argument("network.se_ratio = " + std::to_string(c.se_ratio()) + " leaves no SE units for " +
                                std::to_string(c.channels()) + " channels");
}

void validate(const xqzero::EvaluatorConfig& c) {
  config::check_fields(c, "evaluator");
  evaluator_devices(c);  // throws on a malformed list
}

std::vector<std::string> evaluator_devices(const xqzero::EvaluatorConfig& ec) {
  if (ec.devices().empty()) return {ec.device()};
  std::vector<std::string> out;
  for (std::string part : split_fields(ec.devices(), ',')) {
    part.erase(std::remove_if(part.begin(), part.end(), [](char c) { return c == ' ' || c == '\t'; }), part.end());
    if (part.empty()) throw std::invalid_argument("evaluator.devices '" + ec.devices() + "' has an empty entry");
    out.push_back(part);
  }
  if (out.size() > 64) throw std::invalid_argument("evaluator.devices lists more than 64 devices");
  return out;
}

std::string architecture_difference(const xqzero::NetworkConfig& a, const xqzero::NetworkConfig& b) {
  std::string out;
  const auto* d = xqzero::NetworkConfig::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const auto* f = d->field(i);
    const std::string va = field_text(a, f), vb = field_text(b, f);
    if (va == vb) continue;
    if (!out.empty()) out += "; ";
    out += f->name() + ": " + va + " vs " + vb;
  }
  return out;
}

std::string short_name(const xqzero::NetworkConfig& c) {
  std::string s = std::to_string(c.blocks()) + "x" + std::to_string(c.channels());
  if (c.se()) s += " se";
  if (c.global_pool()) s += " gp";
  if (c.material_head()) s += " mat";
  if (c.short_value_head()) s += " stv";
  if (c.soft_policy_head()) s += " soft";
  if (c.reply_policy_head()) s += " reply";
  if (c.attack_planes()) s += " att";
  if (c.history() > 0) s += " h" + std::to_string(c.history());
  return s;
}

}  // namespace xq::nn
