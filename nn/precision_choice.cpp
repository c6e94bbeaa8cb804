#include "nn/precision_choice.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/output_file.h"
#include "nn/blas.h"

namespace xq::nn {

namespace {

// Tabs and line ends would break the cache's lines.
std::string field(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t e; (e = line.find('\t', b)) != std::string::npos; b = e + 1) out.push_back(line.substr(b, e - b));
  out.push_back(line.substr(b));
  return out;
}

std::mutex g_mutex;
std::map<std::string, std::string> g_known;  // machine + work -> choice, in this process
std::ostream* g_log = nullptr;

}  // namespace

void set_precision_log(std::ostream* log) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_log = log;
}

std::ostream* precision_log() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_log;
}

std::string faster_precision(const PrecisionTiming& t) {
  return t.bfloat16 >= 1.1 * t.float32 && t.bfloat16 > 0 ? "bfloat16" : "float32";
}

std::string precision_cache_path() {
  if (const char* p = std::getenv("XQZERO_PRECISION_CACHE")) {
    const std::string v = p;
    return v == "none" ? std::string() : v;
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/xqzero/precision.tsv";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/xqzero/precision.tsv";
  return "";
}

namespace {

CpuInfo read_cpu_info() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  CpuInfo cpu;
  bool have_model = false, have_flags = false;
  while (std::getline(in, line) && !(have_model && have_flags)) {
    if (!have_model && line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      cpu.model = line.substr(line.find(':') + 1);
      cpu.model.erase(0, cpu.model.find_first_not_of(' '));
      have_model = true;
    } else if (!have_flags && line.rfind("flags", 0) == 0) {
      const std::string flags = line + " ";
      cpu.avx512_bf16 = flags.find(" avx512_bf16 ") != std::string::npos;
      cpu.amx_bf16 = flags.find(" amx_bf16 ") != std::string::npos;
      have_flags = true;
    }
  }
  return cpu;
}

}  // namespace

const CpuInfo& cpu_info() {
  static const CpuInfo cpu = read_cpu_info();
  return cpu;
}

std::string machine_key() {
  const CpuInfo& cpu = cpu_info();
  std::string key = field(cpu.model) + ";";
  if (cpu.avx512_bf16) key += " avx512_bf16";
  if (cpu.amx_bf16) key += " amx_bf16";
  if (!cpu.native_bfloat16()) key += " no native bfloat16";
  key += "; " + field(blas_info().name);  // never empty (nn/blas.cpp names every case)
  return key;
}

std::string choose_cpu_precision(const std::string& machine, const std::string& work, const std::string& cache_path,
                                 const std::function<PrecisionTiming()>& measure, std::ostream* log_to) {
  const std::string m = field(machine), w = field(work);
  std::lock_guard<std::mutex> lock(g_mutex);
  const std::string key = m + "\t" + w;
  if (auto it = g_known.find(key); it != g_known.end()) return it->second;
  // The cache's lines, and this machine's choice for this work when it has one.
  std::string text, choice;
  if (!cache_path.empty()) {
    std::ifstream in(cache_path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      const std::vector<std::string> f = split_tabs(line);
      if (f.size() == 5 && f[0] == m && f[1] == w && (f[4] == "float32" || f[4] == "bfloat16")) choice = f[4];
    }
  }
  if (choice.empty()) {
    const PrecisionTiming t = measure();
    choice = faster_precision(t);
    char figures[160];
    std::snprintf(figures, sizeof figures, "float32 %.0f/s, bfloat16 %.0f/s", t.float32, t.bfloat16);
    std::ostringstream log;
    log << "precision auto: " << w << " on " << m << ": " << figures << " -> " << choice;
    if (!cache_path.empty()) {
      const std::string line =
          m + "\t" + w + "\t" + std::to_string(t.float32) + "\t" + std::to_string(t.bfloat16) + "\t" + choice + "\n";
      if (!text.empty() && text.back() != '\n') text += '\n';
      try {
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(cache_path).parent_path(), ec);
        replace_file(cache_path, {std::string_view(text), std::string_view(line)}, "precision cache");
        log << " (kept in " << cache_path << ")";
      } catch (const std::exception& e) {
        log << " (not kept: " << e.what() << ")";
      }
    }
    if (log_to) *log_to << log.str() << "\n" << std::flush;
  }
  g_known[key] = choice;
  return choice;
}

}  // namespace xq::nn
