// Configuration files: the shipped configs parse, and errors name the line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/config_file.h"

namespace xq::app {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_config(text, "config 't'");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, ShippedConfigsParse) {
  EXPECT_NO_THROW(load_config(""));  // the embedded tiny config
  for (const char* name : {"tiny", "default"})
    EXPECT_NO_THROW(load_config(std::string(XQZERO_SOURCE_DIR) + "/configs/" + name + ".textproto")) << name;
  EXPECT_EQ(load_config("").network().blocks(), 3);
}

// `--set section.field=value`: every type, strings without quotes, errors naming the
// override, and no way to smuggle in another field.
TEST(Config, SetOverridesOneFieldOfAnyType) {
  xqzero::Config c = load_config("", {"search.c_puct_init=2.5", "selfplay.threads=3", "evaluator.device=cuda:1",
                                      "network.global_pool=false", "training.seed=12345678901"});
  EXPECT_FLOAT_EQ(c.search().c_puct_init(), 2.5f);
  EXPECT_EQ(c.selfplay().threads(), 3);
  EXPECT_EQ(c.evaluator().device(), "cuda:1");
  EXPECT_FALSE(c.network().global_pool());
  EXPECT_EQ(c.training().seed(), 12345678901);
  EXPECT_EQ(c.network().blocks(), 3) << "the rest of the config stays";
  EXPECT_EQ(load_config("", {"evaluator.weights=a \"b\" c"}).evaluator().weights(), "a \"b\" c");
  auto error_of_set = [](const std::string& setting) {
    try {
      load_config("", {setting});
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error_of_set("search.cpuct=2").find("no field 'search.cpuct'"), std::string::npos);
  EXPECT_NE(error_of_set("search=2").find("'search' is a section"), std::string::npos);
  EXPECT_NE(error_of_set("selfplay.threads").find("expected section.field=value"), std::string::npos);
  EXPECT_NE(error_of_set("selfplay.threads=many").find("'many' is not a value"), std::string::npos);
  EXPECT_NE(error_of_set("selfplay.threads=1 } training { seed: 2").find("is not a value"), std::string::npos);
  EXPECT_NE(error_of_set("selfplay.threads=999").find("selfplay.threads"), std::string::npos)
      << "ranges are checked after the overrides";
}

TEST(Config, EmptyTextIsTheDefaults) {
  const xqzero::Config c = parse_config("", "empty");
  EXPECT_EQ(c.selfplay().full_visits(), 200);
  EXPECT_EQ(c.search().algorithm(), "puct");
}

TEST(Config, ErrorsNameTheLine) {
  EXPECT_NE(error_of("selfplay {\n  threads: 2\n  bogus: 3\n}\n").find("line 3"), std::string::npos);
  EXPECT_NE(error_of("selfplay {\n  threads: 2\n  bogus: 3\n}\n").find("bogus"), std::string::npos);
  const std::string range = error_of("search {\n  algorithm: \"puct\"\n}\nselfplay {\n\n  threads: 300\n}\n");
  EXPECT_NE(range.find("line 6"), std::string::npos) << range;
  EXPECT_NE(range.find("selfplay.threads = 300 is out of range 0..256"), std::string::npos) << range;
  EXPECT_NE(error_of("search { algorithm: \"alphabeta\" }").find("search.algorithm"), std::string::npos);
  EXPECT_NE(error_of("network { blocks: 0 }").find("network.blocks"), std::string::npos);
  EXPECT_NE(error_of("selfplay { threads: \"two\" }").find("line 1"), std::string::npos);
  try {
    load_config("/nonexistent/x.textproto");
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.textproto"), std::string::npos);
  }
}

std::string load_error(const std::string& path) {
  try {
    load_config(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// A config that is a directory or cannot be read is an error naming it, not an empty config.
TEST(Config, DirectoryOrUnreadableFileIsAnError) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xqzero_config_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  EXPECT_EQ(load_error(dir.string()), "config '" + dir.string() + "': cannot read (Is a directory)");
  const std::string locked = (dir / "locked.textproto").string();
  std::ofstream(locked) << "selfplay { threads: 2 }\n";
  std::filesystem::permissions(locked, std::filesystem::perms::none);
  if (::geteuid() != 0) {  // root reads it regardless
    EXPECT_EQ(load_error(locked), "config '" + locked + "': cannot open (Permission denied)");
  }
  std::filesystem::remove_all(dir);
}

// Reading stops at 16 MiB: /dev/zero is not read until memory runs out.
TEST(Config, SizeIsBounded) {
  EXPECT_EQ(load_error("/dev/zero"), "config '/dev/zero': larger than the limit of 16 MiB");
}

// A 1 MB field name or value comes back clipped.
TEST(Config, ErrorsDoNotEchoHugeInput) {
  const std::string huge(1 << 20, 'x');
  const std::string field = error_of("selfplay { " + huge + ": 3 }");
  EXPECT_LT(field.size(), 300u) << field.substr(0, 300);
  EXPECT_NE(field.find("line 1"), std::string::npos) << field.substr(0, 300);
  EXPECT_NE(field.find("..."), std::string::npos) << field.substr(0, 300);
  const std::string value = error_of("search { algorithm: \"" + huge + "\" }");
  EXPECT_LT(value.size(), 300u) << value.substr(0, 300);
  EXPECT_NE(value.find("search.algorithm = \"" + std::string(80, 'x') + "...\" is not one of puct, gumbel"),
            std::string::npos)
      << value.substr(0, 300);
}

}  // namespace
}  // namespace xq::app
