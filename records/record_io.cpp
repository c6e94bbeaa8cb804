#include "records/record_io.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "core/input_file.h"
#include "core/output_file.h"

namespace xq::records {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw RecordFileError(file_message("record file", path, why));
}

std::string gzip(const std::string& data, const std::string& path) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    fail(path, "zlib deflateInit2 failed");
  std::string out(deflateBound(&z, uLong(data.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = uInt(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) fail(path, "zlib deflate failed");
  return out;
}

// A game record longer than this is not one (self-play records are a few hundred KB at most).
constexpr uint64_t kMaxRecordBytes = uint64_t(64) << 20;

// The decompressed bytes of a gzip file of one or more members (what `cat a.gz b.gz` and
// appending writers make), a buffer at a time. Bytes after the last member that do not start
// another one are an error naming their offset; the file is never read whole.
class GzipFileReader {
 public:
  explicit GzipFileReader(const std::string& path) : file_(path, "record file") {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) fail(path, "zlib inflateInit2 failed");
  }
  ~GzipFileReader() { inflateEnd(&z_); }
  GzipFileReader(const GzipFileReader&) = delete;
  GzipFileReader& operator=(const GzipFileReader&) = delete;

  // Up to `n` decompressed bytes into `out`; 0 once the last member has ended.
  size_t read(char* out, size_t n);

 private:
  bool refill();
  bool next_member();
  void inflate_some();
  uint64_t offset() const { return file_bytes_ - z_.avail_in; }  // of the next unread byte

  InputFile file_;
  z_stream z_{};
  std::vector<unsigned char> in_ = std::vector<unsigned char>(size_t(1) << 16);
  uint64_t file_bytes_ = 0;  // read from the file so far
  int members_ = 0;
  bool in_member_ = false, done_ = false;
};

// Moves the unread input to the front of the buffer and reads more of the file after it;
// false at the end of the file.
bool GzipFileReader::refill() {
  if (z_.avail_in > 0) std::memmove(in_.data(), z_.next_in, z_.avail_in);
  const size_t got = file_.read_some(reinterpret_cast<char*>(in_.data()) + z_.avail_in, in_.size() - z_.avail_in);
  file_bytes_ += got;
  z_.next_in = in_.data();
  z_.avail_in += uInt(got);
  return got > 0;
}

// Whether another gzip member starts at the next unread byte (false at the end of the file).
bool GzipFileReader::next_member() {
  while (z_.avail_in < 2 && refill()) {
  }
  const bool magic = z_.avail_in >= 2 && z_.next_in[0] == 0x1f && z_.next_in[1] == 0x8b;
  if (members_ == 0 && !magic)
    fail(file_.path(), z_.avail_in == 0 ? "not a gzip file (it is empty)" : "not a gzip file");
  if (z_.avail_in == 0) return false;
  if (!magic)
    fail(file_.path(), "junk after gzip member " + std::to_string(members_) + " at byte offset " +
                           std::to_string(offset()) + " (not another gzip member)");
  if (inflateReset(&z_) != Z_OK) fail(file_.path(), "zlib inflateReset failed");
  ++members_;
  return true;
}

// One inflate step of the current member, reading more of the file when it needs input.
void GzipFileReader::inflate_some() {
  if (z_.avail_in == 0 && !refill()) fail(file_.path(), "truncated (the gzip stream ends early)");
  const int rc = inflate(&z_, Z_NO_FLUSH);
  if (rc == Z_STREAM_END)
    in_member_ = false;
  else if (rc != Z_OK && rc != Z_BUF_ERROR)
    fail(file_.path(), std::string("corrupt gzip data near byte offset ") + std::to_string(offset()) + " (" +
                           (z_.msg ? z_.msg : "zlib error") + ")");
}

size_t GzipFileReader::read(char* out, size_t n) {
  z_.next_out = reinterpret_cast<Bytef*>(out);
  z_.avail_out = uInt(n);
  while (z_.avail_out == n && n > 0 && !done_) {
    if (!in_member_) {
      in_member_ = next_member();
      done_ = !in_member_;
    } else {
      inflate_some();
    }
  }
  return n - z_.avail_out;
}

// Buffered bytes of the decompressed stream, for reading length-prefixed records.
class RecordBytes {
 public:
  explicit RecordBytes(GzipFileReader& gz) : gz_(gz) {}
  // Whether the data has ended (before the next record).
  bool at_end() { return !available(); }
  // The next byte; false at the end of the data.
  bool get(uint8_t& byte) {
    if (!available()) return false;
    byte = uint8_t(buf_[pos_++]);
    return true;
  }
  // The next `n` bytes into `out`; false when the data ends first.
  bool get(std::string& out, size_t n) {
    out.clear();
    out.reserve(n);
    while (out.size() < n) {
      if (!available()) return false;
      const size_t take = std::min(n - out.size(), end_ - pos_);
      out.append(buf_.data() + pos_, take);
      pos_ += take;
    }
    return true;
  }

 private:
  bool available() {
    if (pos_ == end_) {
      pos_ = 0;
      end_ = gz_.read(buf_.data(), buf_.size());
    }
    return pos_ < end_;
  }
  GzipFileReader& gz_;
  std::vector<char> buf_ = std::vector<char>(size_t(1) << 16);
  size_t pos_ = 0, end_ = 0;
};

// The varint length before record `number`.
uint64_t read_length(RecordBytes& in, const std::string& path, size_t number) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    uint8_t byte = 0;
    if (!in.get(byte)) fail(path, "game record " + std::to_string(number) + " is cut short (inside its length)");
    value |= uint64_t(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return value;
  }
  fail(path, "corrupt record length at game " + std::to_string(number));
}

// Record `number`: its length, its bytes, parsed and checked to be a game at all.
xqzero::GameRecord read_record(RecordBytes& in, const std::string& path, size_t number) {
  const std::string which = "game record " + std::to_string(number);
  const uint64_t size = read_length(in, path, number);
  if (size > kMaxRecordBytes)
    fail(path, which + " says it has " + std::to_string(size) + " bytes, more than the limit of " +
                   byte_size_text(kMaxRecordBytes) + " (a corrupt length?)");
  std::string bytes;
  if (!in.get(bytes, size_t(size))) fail(path, which + " is cut short (the data ends inside it)");
  xqzero::GameRecord g;
  if (!g.ParseFromString(bytes)) fail(path, "corrupt " + which);
  if (g.start_fen().empty()) fail(path, which + (size == 0 ? " is empty" : " has no start position"));
  return g;
}

}  // namespace

namespace {

// The gzip'ed, length-delimited bytes of a record file of `games`.
std::string record_file_bytes(const std::string& path, const std::vector<xqzero::GameRecord>& games) {
  std::string raw;
  {
    google::protobuf::io::StringOutputStream sos(&raw);
    google::protobuf::io::CodedOutputStream out(&sos);
    for (const auto& g : games) {
      out.WriteVarint64(g.ByteSizeLong());
      if (!g.SerializeToCodedStream(&out)) fail(path, "could not serialise a game record");
    }
  }
  return gzip(raw, path);
}

}  // namespace

void write_record_file(const std::string& path, const std::vector<xqzero::GameRecord>& games) {
  const std::string data = record_file_bytes(path, games);
  try {
    replace_file(path, {data}, "record file");
  } catch (const FileError& e) {
    throw RecordFileError(e.what());
  }
}

bool create_record_file(const std::string& path, const std::vector<xqzero::GameRecord>& games) {
  const std::string data = record_file_bytes(path, games);
  try {
    return create_file(path, {data}, "record file");
  } catch (const FileError& e) {
    throw RecordFileError(e.what());
  }
}

GameSettings record_settings(const xqzero::GameRecord& record) {
  GameSettings s;
  s.repetitions = std::max(1, record.repetitions());
  s.length_cap = std::max(0, record.length_cap());
  s.natural_limit = std::max(0, record.natural_limit());
  return s;
}

std::vector<xqzero::GameRecord> read_record_file(const std::string& path) {
  try {
    GzipFileReader gz(path);
    RecordBytes in(gz);
    std::vector<xqzero::GameRecord> games;
    while (!in.at_end()) games.push_back(read_record(in, path, games.size() + 1));
    return games;
  } catch (const FileError& e) {
    throw RecordFileError(e.what());
  }
}

}  // namespace xq::records
