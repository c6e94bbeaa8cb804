// nn/precision_choice.h: the rule, the cache file (read, written, kept when unreadable or
// unwritable) and the in-process memory, with a scripted measurement (no timing here).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nn/blas.h"
#include "nn/precision_choice.h"

namespace xq::nn {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("xqzero_precision_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PrecisionChoice, Bfloat16OnlyWhenClearlyFaster) {
  EXPECT_EQ(faster_precision({100, 109}), "float32");
  EXPECT_EQ(faster_precision({100, 111}), "bfloat16");
  EXPECT_EQ(faster_precision({100, 50}), "float32");
  EXPECT_EQ(faster_precision({0, 0}), "float32");
}

TEST(PrecisionChoice, MeasuresOnceKeepsItAndReadsItBack) {
  const std::string dir = temp_dir("keep"), cache = dir + "/sub/precision.tsv";
  int measured = 0;
  std::ostringstream log;
  const auto measure = [&] {
    ++measured;
    return PrecisionTiming{1000, 3000};
  };
  EXPECT_EQ(choose_cpu_precision("cpu A", "work 1", cache, measure, &log), "bfloat16");
  EXPECT_EQ(measured, 1);
  EXPECT_NE(log.str().find("precision auto: work 1 on cpu A: float32 1000/s, bfloat16 3000/s -> bfloat16"),
            std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find("kept in " + cache), std::string::npos) << log.str();
  EXPECT_EQ(slurp(cache), "cpu A\twork 1\t1000.000000\t3000.000000\tbfloat16\n");
  // The same process asks again: remembered, nothing measured, nothing printed.
  log.str("");
  EXPECT_EQ(choose_cpu_precision("cpu A", "work 1", cache, measure, &log), "bfloat16");
  EXPECT_EQ(measured, 1);
  EXPECT_EQ(log.str(), "");
  // Another process (here: a machine and work this one has not asked about) finds the line.
  std::ofstream(cache, std::ios::app) << "cpu B\twork 2\t5000\t5100\tfloat32\n";
  const auto must_not_measure = [&]() -> PrecisionTiming {
    ADD_FAILURE() << "measured although the cache has the choice";
    return {};
  };
  EXPECT_EQ(choose_cpu_precision("cpu B", "work 2", cache, must_not_measure, &log), "float32");
  // A new work on the same machine is measured and added; the other lines stay.
  EXPECT_EQ(choose_cpu_precision(
                "cpu B", "work 3", cache,
                [] {
                  return PrecisionTiming{2000, 2100};
                },
                nullptr),
            "float32");
  const std::string text = slurp(cache);
  EXPECT_NE(text.find("cpu A\twork 1\t"), std::string::npos) << text;
  EXPECT_NE(text.find("cpu B\twork 2\t"), std::string::npos) << text;
  EXPECT_NE(text.find("cpu B\twork 3\t2000.000000\t2100.000000\tfloat32\n"), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(PrecisionChoice, ABadOrUnwritableCacheIsMeasuredAround) {
  const std::string dir = temp_dir("bad");
  // Lines that are not the cache's are ignored (and kept).
  const std::string garbage = dir + "/garbage.tsv";
  std::ofstream(garbage) << "not a cache line\ncpu C\twork 4\t1\t2\tfloat64\n\x01\x02\n";
  int measured = 0;
  EXPECT_EQ(choose_cpu_precision(
                "cpu C", "work 4", garbage,
                [&] {
                  ++measured;
                  return PrecisionTiming{10, 5};
                },
                nullptr),
            "float32");
  EXPECT_EQ(measured, 1);
  EXPECT_EQ(slurp(garbage).rfind("not a cache line\n", 0), 0u);
  // A cache path that is a directory: measured, said, no error.
  std::ostringstream log;
  EXPECT_EQ(choose_cpu_precision(
                "cpu D", "work 5", dir,
                [] {
                  return PrecisionTiming{10, 50};
                },
                &log),
            "bfloat16");
  EXPECT_NE(log.str().find("not kept"), std::string::npos) << log.str();
  // No cache at all.
  EXPECT_EQ(choose_cpu_precision(
                "cpu E", "work 6", "",
                [] {
                  return PrecisionTiming{10, 50};
                },
                nullptr),
            "bfloat16");
  // Tabs and line ends in a name cannot break the file's lines.
  const std::string tabs = dir + "/tabs.tsv";
  choose_cpu_precision(
      "cpu\tF", "work\n7", tabs,
      [] {
        return PrecisionTiming{1, 1};
      },
      nullptr);
  EXPECT_EQ(slurp(tabs), "cpu F\twork 7\t1.000000\t1.000000\tfloat32\n");
  fs::remove_all(dir);
}

TEST(PrecisionChoice, CachePathFromTheEnvironment) {
  const char* names[] = {"XQZERO_PRECISION_CACHE", "XDG_CACHE_HOME", "HOME"};
  std::string saved[3];
  bool had[3];
  for (int i = 0; i < 3; ++i) {
    const char* v = std::getenv(names[i]);
    had[i] = v != nullptr;
    saved[i] = v ? v : "";
  }
  ::setenv("XQZERO_PRECISION_CACHE", "/some/file.tsv", 1);
  EXPECT_EQ(precision_cache_path(), "/some/file.tsv");
  ::setenv("XQZERO_PRECISION_CACHE", "none", 1);
  EXPECT_EQ(precision_cache_path(), "");
  ::unsetenv("XQZERO_PRECISION_CACHE");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(precision_cache_path(), "/xdg/xqzero/precision.tsv");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(precision_cache_path(), "/home/u/.cache/xqzero/precision.tsv");
  for (int i = 0; i < 3; ++i) {
    if (had[i])
      ::setenv(names[i], saved[i].c_str(), 1);
    else
      ::unsetenv(names[i]);
  }
}

TEST(PrecisionChoice, MachineKeyNamesTheCpuItsBfloat16AndTheBlas) {
  // A choice measured under one BLAS is not reused under another: a cached bfloat16 picked
  // beside the slow reference BLAS could be wrong once OpenBLAS is installed.
  const std::string key = machine_key();
  EXPECT_EQ(key.rfind(cpu_info().model + ";", 0), 0u) << key;
  EXPECT_NE(key.find("; " + blas_info().name), std::string::npos) << key;
  EXPECT_EQ(key.find("no native bfloat16") != std::string::npos, !cpu_info().native_bfloat16()) << key;
  EXPECT_EQ(key.find('\t'), std::string::npos) << key;
  CpuInfo cpu;
  EXPECT_FALSE(cpu.native_bfloat16());
  cpu.amx_bf16 = true;
  EXPECT_TRUE(cpu.native_bfloat16());
  cpu.amx_bf16 = false;
  cpu.avx512_bf16 = true;
  EXPECT_TRUE(cpu.native_bfloat16());
}

}  // namespace
}  // namespace xq::nn
