#include "nn/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/input_file.h"
#include "core/output_file.h"
#include "nn/checkpoint_export.h"
#include "nn/net_config.h"
#include "nn/planes.h"
#include "nn/policy_labels.h"

namespace xq::nn {

namespace {

constexpr char kMagic[8] = {'X', 'Q', 'Z', 'C', 'K', 'P', 'T', '1'};
constexpr char kEnd[8] = {'X', 'Q', 'Z', 'E', 'N', 'D', 0, 0};
constexpr uint32_t kVersion = 2;        // written
constexpr uint32_t kOldestVersion = 1;  // read too: version 1 has no crc32 over its metadata

// Bytes before the metadata: magic, version, metadata length and (from version 2) the
// header crc32.
size_t header_size(uint32_t version) { return version >= 2 ? 20 : 16; }

void put_u32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(char((v >> (8 * i)) & 0xFF));
}
uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(p[i])) << (8 * i);
  return v;
}
// zlib crc32 of `size` bytes at `data`, continuing from `c` (0 to start).
uint32_t crc(const char* data, size_t size, uint32_t c = 0) {
  uLong v = c;
  size_t off = 0;
  while (off < size) {
    const size_t chunk = std::min<size_t>(size - off, 1u << 30);
    v = crc32(v, reinterpret_cast<const Bytef*>(data + off), uInt(chunk));
    off += chunk;
  }
  return uint32_t(v);
}
uint32_t crc(const std::string& data) { return crc(data.data(), data.size()); }

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw CheckpointError("checkpoint " + path + ": " + what);
}

}  // namespace

std::string weights_bytes(Network& net) {
  // Weights are always stored as float32 on CPU, whatever device and precision `net` has.
  bool cpu_float = true;
  for (const auto& p : net->parameters()) cpu_float &= p.device().is_cpu() && p.scalar_type() == torch::kFloat;
  Network to_save = cpu_float ? net : clone_network(net);
  std::ostringstream weights_stream;
  torch::save(to_save, weights_stream);
  return weights_stream.str();
}

void load_weights_bytes(const std::string& path, const std::string& section, const std::string& bytes, Network& net) {
  try {
    std::istringstream weights(bytes);
    torch::load(net, weights);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    fail(path, section + " do not load: " + what.substr(0, what.find('\n')));
  }
}

void save_checkpoint(const std::string& path, Network& net, int64_t step, const std::string& note,
                     const CheckpointSections& extra) {
  if (extra.count("weights")) fail(path, "extra section named 'weights' is reserved");
  std::vector<std::pair<std::string, const std::string*>> sections;
  const std::string weights = weights_bytes(net);
  sections.emplace_back("weights", &weights);
  for (const auto& [name, data] : extra) sections.emplace_back(name, &data);

  xqzero::CheckpointMeta meta;
  *meta.mutable_network() = net->config();
  meta.set_step(step);
  meta.set_created_unix_ms(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  meta.set_num_labels(kNumLabels);
  meta.set_input_planes(input_planes(plane_layout(net->config())));
  meta.set_note(note);
  for (const auto& [name, data] : sections) {
    auto* s = meta.add_sections();
    s->set_name(name);
    s->set_size(data->size());
    s->set_crc32(crc(*data));
  }
  std::string head(kMagic, sizeof kMagic);
  put_u32(head, kVersion);
  const std::string meta_bytes = meta.SerializeAsString();
  put_u32(head, uint32_t(meta_bytes.size()));
  put_u32(head, crc(meta_bytes.data(), meta_bytes.size(), crc(head)));
  head += meta_bytes;

  std::vector<std::string_view> parts{head};
  for (const auto& s : sections) parts.emplace_back(*s.second);
  parts.emplace_back(kEnd, sizeof kEnd);
  try {
    replace_file(path, parts, "checkpoint");
  } catch (const FileError& e) {
    throw CheckpointError(e.what());
  }
}

xqzero::CheckpointMeta read_checkpoint(const std::string& path, CheckpointSections* sections) {
  try {
    expect_regular_file(path, "checkpoint");  // a directory or a device gives a clear error
  } catch (const FileError& e) {
    throw CheckpointError(e.what());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "read error");
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    fail(path, "not an xqzero checkpoint (bad magic bytes)");
  if (data.size() < 12) fail(path, "truncated: file ends inside the header");
  const uint32_t version = get_u32(data.data() + 8);
  if (version < kOldestVersion || version > kVersion)
    fail(path, "container version " + std::to_string(version) + ", this build reads versions " +
                   std::to_string(kOldestVersion) + " to " + std::to_string(kVersion));
  const size_t header = header_size(version);
  if (data.size() < header) fail(path, "truncated: file ends inside the header");
  const uint64_t meta_len = get_u32(data.data() + 12);
  if (data.size() < header + meta_len)
    fail(path, "truncated: file has " + std::to_string(data.size()) + " bytes, metadata alone needs " +
                   std::to_string(header + meta_len));
  // The header and metadata crc32 covers the 16 bytes before it and the metadata.
  if (version >= 2 && crc(data.data() + header, meta_len, crc(data.data(), 16)) != get_u32(data.data() + 16))
    fail(path, "header or metadata is corrupt (crc32 mismatch)");
  xqzero::CheckpointMeta meta;
  if (!meta.ParseFromArray(data.data() + header, int(meta_len))) fail(path, "metadata does not parse");
  uint64_t expected = header + meta_len + sizeof kEnd;
  for (const auto& s : meta.sections()) expected += s.size();
  if (data.size() < expected)
    fail(path, "truncated: file has " + std::to_string(data.size()) + " bytes, its metadata describes " +
                   std::to_string(expected));
  if (data.size() > expected)
    fail(path, "file has " + std::to_string(data.size() - expected) + " unexpected bytes after its data");
  if (std::memcmp(data.data() + expected - sizeof kEnd, kEnd, sizeof kEnd) != 0) fail(path, "end marker missing");
  size_t off = header + meta_len;
  bool has_weights = false;
  for (const auto& s : meta.sections()) {
    std::string bytes = data.substr(off, s.size());
    off += s.size();
    if (crc(bytes) != s.crc32()) fail(path, "section '" + s.name() + "' is corrupt (crc32 mismatch)");
    has_weights |= s.name() == "weights";
    if (sections) (*sections)[s.name()] = std::move(bytes);
  }
  if (!has_weights) fail(path, "no weights section");
  if (meta.num_labels() != kNumLabels)
    fail(path, "written for " + std::to_string(meta.num_labels()) + " policy labels, this build has " +
                   std::to_string(kNumLabels));
  if (meta.input_planes() != input_planes(plane_layout(meta.network())))
    fail(path, "written for " + std::to_string(meta.input_planes()) + " input planes, this build makes " +
                   std::to_string(input_planes(plane_layout(meta.network()))));
  return meta;
}

namespace {

// Weights from a read container into `net`, whose architecture must equal the checkpoint's.
void load_weights(const std::string& path, const xqzero::CheckpointMeta& meta, CheckpointSections& sections,
                  Network& net) {
  const std::string diff = architecture_difference(meta.network(), net->config());
  if (!diff.empty()) fail(path, "architecture differs (checkpoint vs network): " + diff);
  load_weights_bytes(path, "weights", sections["weights"], net);
}

}  // namespace

xqzero::CheckpointMeta load_checkpoint(const std::string& path, Network& net, CheckpointSections* extra) {
  CheckpointSections sections;
  xqzero::CheckpointMeta meta = read_checkpoint(path, &sections);
  load_weights(path, meta, sections, net);
  if (extra) {
    sections.erase("weights");
    *extra = std::move(sections);
  }
  return meta;
}

Network load_network(const std::string& path, xqzero::CheckpointMeta* meta_out) {
  CheckpointSections sections;
  const xqzero::CheckpointMeta meta = read_checkpoint(path, &sections);  // the one read
  try {
    validate(meta.network());
  } catch (const std::invalid_argument& e) {
    fail(path, std::string("bad architecture: ") + e.what());
  }
  Network net(meta.network());
  load_weights(path, meta, sections, net);
  if (meta_out) *meta_out = meta;
  return net;
}

xqzero::CheckpointMeta export_weights(const std::string& from, const std::string& to, const std::string& note) {
  xqzero::CheckpointMeta meta;
  Network net = load_network(from, &meta);
  std::error_code ec;
  if (std::filesystem::exists(to, ec)) throw std::runtime_error("'" + to + "' exists; not overwritten");
  save_checkpoint(to, net, meta.step(), note.empty() ? meta.note() : note);
  return read_checkpoint(to);
}

}  // namespace xq::nn
