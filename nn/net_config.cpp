#include "nn/net_config.h"

#include <google/protobuf/descriptor.h>

#include <stdexcept>

#include "proto/config_check.h"

namespace xq::nn {

using config::check_choice;
using config::check_range;

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

void validate(const xqzero::NetworkConfig& c) {
  check_range("network.blocks", c.blocks(), 1, 64);
  check_range("network.channels", c.channels(), 8, 512);
  check_range("network.se_ratio", c.se_ratio(), 1, 64);
  check_range("network.history", c.history(), 0, 7);
  check_range("network.value_channels", c.value_channels(), 1, 64);
  check_range("network.value_hidden", c.value_hidden(), 8, 1024);
  if (c.se() && c.channels() / c.se_ratio() < 1)
    throw std::invalid_argument("network.se_ratio = " + std::to_string(c.se_ratio()) + " leaves no SE units for " +
                                std::to_string(c.channels()) + " channels");
}

void validate(const xqzero::EvaluatorConfig& c) {
  check_choice("evaluator.name", c.name(), {"torch", "uniform", "test"});
  check_choice("evaluator.precision", c.precision(), {"auto", "float32", "float16", "bfloat16"});
  check_range("evaluator.max_batch", c.max_batch(), 1, 4096);
  check_range("evaluator.deadline_us", c.deadline_us(), 0, 1000000);
  check_range("evaluator.cache_entries", c.cache_entries(), 0, 100000000);
  check_range("evaluator.threads", c.threads(), 0, 256);
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
  if (c.history() > 0) s += " h" + std::to_string(c.history());
  return s;
}

}  // namespace xq::nn
