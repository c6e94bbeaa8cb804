// Configuration files: the shipped configs parse, and errors name the line.
#include <gtest/gtest.h>

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

TEST(Config, EmptyTextIsTheDefaults) {
  const xqzero::Config c = parse_config("", "empty");
  EXPECT_EQ(c.selfplay().full_visits(), 200);
  EXPECT_EQ(c.search().algorithm(), "puct");
}

TEST(Config, ErrorsNameTheLine) {
  EXPECT_NE(error_of("selfplay {\n  threads: 2\n  bogus: 3\n}\n").find("line 3"), std::string::npos);
  EXPECT_NE(error_of("selfplay {\n  threads: 2\n  bogus: 3\n}\n").find("bogus"), std::string::npos);
  const std::string range = error_of("search {\n  algorithm: \"puct\"\n}\nselfplay {\n\n  threads: 0\n}\n");
  EXPECT_NE(range.find("line 6"), std::string::npos) << range;
  EXPECT_NE(range.find("selfplay.threads = 0 is out of range 1..256"), std::string::npos) << range;
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

}  // namespace
}  // namespace xq::app
