#include "proto/config_check.h"

#include <limits>

#include "config.pb.h"
#include "core/errors.h"

namespace xq::config {

void check_choice(const std::string& name, const std::string& value, const std::vector<std::string>& choices) {
  std::string list;
  for (const std::string& c : choices) {
    if (value == c) return;
    list += list.empty() ? c : ", " + c;
  }
  throw std::invalid_argument(name + " = \"" + clipped(value) + "\" is not one of " + list);
}

namespace {

std::vector<std::string> split_choices(const std::string& text) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == '|')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

}  // namespace

void check_fields(const google::protobuf::Message& m, const std::string& prefix) {
  using FD = google::protobuf::FieldDescriptor;
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const google::protobuf::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FD* f = d->field(i);
    const std::string name = prefix.empty() ? f->name() : prefix + "." + f->name();
    if (f->is_repeated()) continue;
    if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
      check_fields(r->GetMessage(m, f), name);
      continue;
    }
    const google::protobuf::FieldOptions& o = f->options();
    if (o.HasExtension(xqzero::range)) {
      const xqzero::FieldRange& range = o.GetExtension(xqzero::range);
      const double inf = std::numeric_limits<double>::infinity();
      const double lo = range.has_min() ? range.min() : -inf, hi = range.has_max() ? range.max() : inf;
      switch (f->cpp_type()) {
        case FD::CPPTYPE_INT32: check_range(name, r->GetInt32(m, f), lo, hi); break;
        case FD::CPPTYPE_INT64: check_range(name, r->GetInt64(m, f), lo, hi); break;
        case FD::CPPTYPE_UINT32: check_range(name, r->GetUInt32(m, f), lo, hi); break;
        case FD::CPPTYPE_UINT64: check_range(name, r->GetUInt64(m, f), lo, hi); break;
        case FD::CPPTYPE_FLOAT: check_range(name, r->GetFloat(m, f), lo, hi); break;
        case FD::CPPTYPE_DOUBLE: check_range(name, r->GetDouble(m, f), lo, hi); break;
        default: throw std::logic_error(name + ": a range on a field that is not a number");
      }
    }
    if (o.HasExtension(xqzero::choices)) {
      if (f->cpp_type() != FD::CPPTYPE_STRING)
        throw std::logic_error(name + ": choices on a field that is not a string");
      check_choice(name, r->GetString(m, f), split_choices(o.GetExtension(xqzero::choices)));
    }
  }
}

}  // namespace xq::config
