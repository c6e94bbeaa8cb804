#include "selfplay/record_io.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace xq::selfplay {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw RecordFileError("record file '" + path + "': " + why);
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

std::string gunzip(const std::string& data, const std::string& path) {
  if (data.size() < 2 || uint8_t(data[0]) != 0x1f || uint8_t(data[1]) != 0x8b) fail(path, "not a gzip file");
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) fail(path, "zlib inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = uInt(data.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  inflateEnd(&z);
  if (rc == Z_BUF_ERROR || (rc == Z_OK && z.avail_in == 0)) fail(path, "truncated (the gzip stream ends early)");
  if (rc != Z_STREAM_END) fail(path, std::string("corrupt gzip data (") + (z.msg ? z.msg : "zlib error") + ")");
  return out;
}

}  // namespace

void write_record_file(const std::string& path, const std::vector<xqzero::GameRecord>& games) {
  std::string raw;
  {
    google::protobuf::io::StringOutputStream sos(&raw);
    google::protobuf::io::CodedOutputStream out(&sos);
    for (const auto& g : games) {
      out.WriteVarint64(g.ByteSizeLong());
      if (!g.SerializeToCodedStream(&out)) fail(path, "could not serialise a game record");
    }
  }
  const std::string data = gzip(raw, path);
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail(tmp, std::strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      fail(tmp, why);
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) fail(tmp, std::strerror(errno));
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(path, std::string("rename failed: ") + std::strerror(errno));
}

GameSettings record_settings(const xqzero::GameRecord& record) {
  GameSettings s;
  s.repetitions = std::max(1, record.repetitions());
  s.length_cap = std::max(0, record.length_cap());
  s.natural_limit = std::max(0, record.natural_limit());
  return s;
}

std::vector<xqzero::GameRecord> read_record_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open (" + std::string(std::strerror(errno)) + ")");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string raw = gunzip(ss.str(), path);
  std::vector<xqzero::GameRecord> games;
  google::protobuf::io::ArrayInputStream ais(raw.data(), int(raw.size()));
  google::protobuf::io::CodedInputStream cin(&ais);
  cin.SetTotalBytesLimit(INT32_MAX);
  while (cin.CurrentPosition() < int(raw.size())) {
    uint64_t size = 0;
    if (!cin.ReadVarint64(&size) || size > raw.size()) fail(path, "corrupt record length at game " + std::to_string(games.size() + 1));
    const auto limit = cin.PushLimit(int(size));
    xqzero::GameRecord g;
    if (!g.ParseFromCodedStream(&cin) || !cin.ConsumedEntireMessage())
      fail(path, "corrupt game record " + std::to_string(games.size() + 1));
    cin.PopLimit(limit);
    games.push_back(std::move(g));
  }
  return games;
}

}  // namespace xq::selfplay
