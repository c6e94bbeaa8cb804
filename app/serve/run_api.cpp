#include "app/serve/run_api.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "app/serve/request_error.h"
#include "records/record_io.h"

namespace xq::app::serve {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct FileInfo {
  bool exists = false;
  long long bytes = 0, mtime = 0;
  std::string id;  // device:inode
};

FileInfo info_of(const struct stat& st) {
  FileInfo f;
  f.exists = true;
  f.bytes = (long long)st.st_size;
  f.mtime = (long long)st.st_mtime;
  f.id = std::to_string((unsigned long long)st.st_dev) + ":" + std::to_string((unsigned long long)st.st_ino);
  return f;
}

FileInfo stat_file(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? info_of(st) : FileInfo();
}

// A regular file's identity and contents through one descriptor, so that both belong to the
// same file even when a rename replaces it meanwhile; a FIFO, a device or a directory reads as
// missing (opened without blocking, never read).
FileInfo read_regular(const fs::path& p, std::string& text) {
  text.clear();
  const int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return FileInfo();
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return FileInfo();
  }
  char buf[1 << 16];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  ::close(fd);
  return info_of(st);
}

// `run`'s entry `name` when it is missing or resolves inside the run directory; empty when
// a symlink takes it outside (it is then treated as missing).
fs::path own_entry(const RunDir& run, const std::string& name) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(run.root / name, ec);
  return !ec && is_inside(run.root, p) ? p : fs::path();
}

// The regular files directly in the run's folder `sub` whose names start with `prefix` and
// end with `suffix`, by name.
std::vector<fs::path> files_named(const RunDir& run, const std::string& sub, const std::string& prefix,
                                  const std::string& suffix) {
  std::vector<fs::path> out;
  const fs::path dir = own_entry(run, sub);
  if (dir.empty()) return out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.size() < prefix.size() + suffix.size() || n.compare(0, prefix.size(), prefix) != 0 ||
        n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::error_code e2;
    // Not a symlink (one out of the run would show the size and time of a file outside).
    if (!it->is_symlink(e2) && it->is_regular_file(e2)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

json read_metrics(const RunDir& run, long long from, size_t max_lines) {
  const fs::path file = own_entry(run, "metrics.jsonl");
  std::string text;
  const FileInfo info = file.empty() ? FileInfo() : read_regular(file, text);
  const size_t complete = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  // Where each complete line starts.
  std::vector<size_t> starts;
  for (size_t b = 0; b < complete;) {
    starts.push_back(b);
    b = text.find('\n', b) + 1;
  }
  const long long total = (long long)starts.size();
  const bool reset = from > total;
  if (reset) from = 0;
  json lines = json::array();
  long long next = from, skipped = 0;
  for (; next < total && lines.size() + size_t(skipped) < max_lines; ++next) {
    const size_t b = starts[size_t(next)], e = text.find('\n', b);
    json j = json::parse(text.begin() + long(b), text.begin() + long(e), nullptr, false);
    if (j.is_object())
      lines.push_back(std::move(j));
    else
      ++skipped;
  }
  return json{{"from", from},   {"next", next},       {"total", total},           {"fileId", info.id},
              {"reset", reset}, {"skipped", skipped}, {"lines", std::move(lines)}};
}

json list_checkpoints(const RunDir& run) {
  json list = json::array();
  for (const fs::path& p : files_named(run, "checkpoints", "ckpt-", ".xqz")) {
    const std::string n = p.filename().string();
    const std::string digits = n.substr(5, n.size() - 9);
    json c{{"file", "checkpoints/" + n}};
    if (!digits.empty() && digits.size() < 18 && std::all_of(digits.begin(), digits.end(), ::isdigit))
      c["step"] = std::stoll(digits);
    else
      c["step"] = nullptr;
    const FileInfo f = stat_file(p);
    c["bytes"] = f.bytes;
    c["mtime"] = f.mtime;
    list.push_back(c);
  }
  const fs::path latest_file = own_entry(run, "latest");
  std::string latest;
  if (!latest_file.empty()) read_regular(latest_file, latest);
  latest.erase(std::find_if(latest.begin(), latest.end(), [](char ch) { return ch == '\n' || ch == '\r'; }),
               latest.end());
  return json{{"latest", latest.empty() ? json(nullptr) : json(latest)}, {"checkpoints", list}};
}

json list_record_files(const RunDir& run, size_t limit) {
  std::vector<fs::path> files = files_named(run, "games", "", ".rec.gz");
  if (files.size() > limit) files.erase(files.begin(), files.end() - long(limit));
  json list = json::array();
  for (const fs::path& p : files) {
    const FileInfo f = stat_file(p);
    list.push_back(json{{"file", "games/" + p.filename().string()}, {"bytes", f.bytes}, {"mtime", f.mtime}});
  }
  return json{{"files", list}};
}

json read_games(const RunDir& run, const std::string& relative, size_t limit) {
  const fs::path p = resolve_inside(run.root, relative, "file");
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) throw RequestError(400, "file", "'" + relative + "' is not a regular file");
  std::vector<xqzero::GameRecord> games;
  try {
    games = records::read_record_file(p.string());
  } catch (const std::exception& e) {
    throw RequestError(422, "file", std::string("not a readable record file: ") + e.what());
  }
  json out = json::array();
  const size_t first = games.size() > limit ? games.size() - limit : 0;
  for (size_t i = first; i < games.size(); ++i) {
    const xqzero::GameRecord& g = games[i];
    json moves = json::array(), values = json::array();
    for (const xqzero::MoveRecord& m : g.moves()) {
      moves.push_back(m.move());
      values.push_back(m.has_root_value() ? json(m.root_value()) : json(nullptr));
    }
    out.push_back(json{{"index", i},
                       {"startFen", g.start_fen()},
                       {"moves", moves},
                       {"values", values},
                       {"result", g.result()},
                       {"termination", g.termination()},
                       {"network", g.network()},
                       {"finishedUnixMs", g.finished_unix_ms()}});
  }
  return json{{"file", relative}, {"total", games.size()}, {"games", out}};
}

}  // namespace xq::app::serve
