// Checkpoint files: round trip, metadata, extra sections, and clear failures for another
// architecture, truncation, corruption (any flipped bit) and files of the wrong kind.
#include <gtest/gtest.h>
#include "tests/support/tmp_leftovers.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "nn/checkpoint.h"
#include "nn/net_config.h"
#include "nn/torch_evaluator.h"
#include "tests/support/nn_test_util.h"

namespace xq::nn {
namespace {

xqzero::NetworkConfig tiny(int blocks = 2) {
  xqzero::NetworkConfig c;
  c.set_blocks(blocks);
  c.set_channels(16);
  c.set_value_hidden(32);
  return c;
}

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "xqzero_ckpt_" + std::to_string(::getpid());
    std::string cmd = "mkdir -p " + dir_;
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static void write(const std::string& p, const std::string& data) {
    std::ofstream out(p, std::ios::binary);
    out << data;
  }
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const CheckpointError& e) {
      return e.what();
    }
    return "(no error)";
  }
  std::string dir_;
};

TEST_F(CheckpointTest, RoundTripKeepsWeightsAndMetadata) {
  Network net = make_network(tiny(), 7);
  {
    torch::NoGradGuard g;
    for (auto& b : net->named_buffers())
      if (b.key().find("running_var") != std::string::npos) b.value().uniform_(0.5, 1.5);
  }
  save_checkpoint(path("a.ckpt"), net, 1234, "unit test", {{"optimizer", std::string("\0\1\2", 3)}});
  EXPECT_FALSE(::xq::test::tmp_leftovers(path("a.ckpt")));
  xqzero::CheckpointMeta meta;
  Network loaded = load_network(path("a.ckpt"), &meta);
  EXPECT_EQ(meta.step(), 1234);
  EXPECT_EQ(meta.note(), "unit test");
  EXPECT_GT(meta.created_unix_ms(), 1600000000000LL);
  EXPECT_EQ(architecture_difference(meta.network(), tiny()), "");
  EXPECT_EQ(meta.num_labels(), 2062);
  ASSERT_EQ(meta.sections_size(), 2);
  EXPECT_EQ(meta.sections(0).name(), "weights");

  Network into(tiny());
  CheckpointSections extra;
  load_checkpoint(path("a.ckpt"), into, &extra);
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra["optimizer"], std::string("\0\1\2", 3));

  TorchEvaluator a(net, "cpu"), b(loaded, "cpu"), c(into, "cpu");
  for (const Position& pos : test::random_positions(5, 1)) {
    const EvalInput in = make_eval_input(pos);
    EvalResult x, y, z;
    a.evaluate_one(in.request(), x);
    b.evaluate_one(in.request(), y);
    c.evaluate_one(in.request(), z);
    EXPECT_EQ(x.priors, y.priors);
    EXPECT_EQ(x.wdl, y.wdl);
    EXPECT_EQ(x.priors, z.priors);
  }
}

TEST_F(CheckpointTest, AnotherArchitectureIsNamed) {
  Network net = make_network(tiny(2), 1);
  save_checkpoint(path("b.ckpt"), net, 0);
  Network other(tiny(3));
  const std::string e = error_of([&] { load_checkpoint(path("b.ckpt"), other); });
  EXPECT_NE(e.find("architecture differs"), std::string::npos) << e;
  EXPECT_NE(e.find("blocks: 2 vs 3"), std::string::npos) << e;
  xqzero::NetworkConfig se = tiny(2);
  se.set_se(true);
  Network with_se(se);
  EXPECT_NE(error_of([&] { load_checkpoint(path("b.ckpt"), with_se); }).find("se: false vs true"), std::string::npos);
}

TEST_F(CheckpointTest, TruncatedCorruptAndForeignFilesFailClearly) {
  Network net = make_network(tiny(), 2);
  save_checkpoint(path("c.ckpt"), net, 5);
  const std::string good = read(path("c.ckpt"));
  for (size_t cut : {size_t(4), size_t(12), size_t(40), good.size() / 2, good.size() - 1}) {
    write(path("cut.ckpt"), good.substr(0, cut));
    const std::string e = error_of([&] { load_network(path("cut.ckpt")); });
    EXPECT_TRUE(e.find("truncated") != std::string::npos || (cut < 8 && e.find("bad magic") != std::string::npos))
        << cut << ": " << e;
  }
  std::string corrupt = good;
  corrupt[good.size() - 100] ^= 0x55;
  write(path("bad.ckpt"), corrupt);
  EXPECT_NE(error_of([&] { load_network(path("bad.ckpt")); }).find("'weights' is corrupt"), std::string::npos);
  write(path("text.ckpt"), "blocks: 6\nchannels: 64\n");
  EXPECT_NE(error_of([&] { load_network(path("text.ckpt")); }).find("not an xqzero checkpoint"), std::string::npos);
  EXPECT_NE(error_of([&] { load_network(path("missing.ckpt")); }).find("cannot open"), std::string::npos);
  write(path("long.ckpt"), good + "x");
  EXPECT_NE(error_of([&] { load_network(path("long.ckpt")); }).find("unexpected bytes"), std::string::npos);
  // A torch archive without our container is a file of the wrong kind too.
  torch::save(net, path("raw.pt"));
  EXPECT_NE(error_of([&] { load_network(path("raw.pt")); }).find("bad magic"), std::string::npos);
}

// Every part of the container is checked: a flipped bit in the header or the metadata (where
// an unchecked step 123 once read as 59), a section or the end marker fails, naming the file.
TEST_F(CheckpointTest, AnyFlippedBitFailsNamingTheFile) {
  Network net = make_network(tiny(1), 3);
  save_checkpoint(path("f.ckpt"), net, 123, "flip", {{"trainer", std::string("samples 7\n")}});
  const std::string good = read(path("f.ckpt"));
  ASSERT_EQ(read_checkpoint(path("f.ckpt")).step(), 123);
  const size_t meta_end = 20 + size_t(uint8_t(good[12])) + (size_t(uint8_t(good[13])) << 8);
  ASSERT_LT(meta_end, good.size());
  // Every bit of the header and metadata, then one bit in each of about a thousand places
  // spread over the sections, and the end marker.
  std::vector<size_t> bits;
  for (size_t b = 0; b < meta_end * 8; ++b) bits.push_back(b);
  const size_t stride = std::max<size_t>(61, (good.size() - meta_end) / 1000);
  for (size_t byte = meta_end; byte < good.size(); byte += stride) bits.push_back(byte * 8 + byte % 8);
  for (size_t byte = good.size() - 8; byte < good.size(); ++byte) bits.push_back(byte * 8 + 7);
  const std::string flipped = path("flipped.ckpt");
  int failures = 0;
  for (const size_t bit : bits) {
    std::string bad = good;
    bad[bit / 8] = char(bad[bit / 8] ^ (1 << (bit % 8)));
    write(flipped, bad);
    const std::string e = error_of([&] { read_checkpoint(flipped); });
    if (e.find("checkpoint " + flipped + ": ") != 0 && ++failures <= 5)
      ADD_FAILURE() << "bit " << bit << " (byte " << bit / 8 << "): " << e;
  }
  EXPECT_EQ(failures, 0) << "of " << bits.size() << " flipped bits";
  // The header: what a flipped bit in the metadata reports.
  std::string bad = good;
  bad[meta_end - 1] = char(bad[meta_end - 1] ^ 0x10);
  write(flipped, bad);
  EXPECT_NE(error_of([&] { read_checkpoint(flipped); }).find("header or metadata is corrupt"), std::string::npos);
}

// Files written before the header crc32 (container version 1) still load.
TEST_F(CheckpointTest, VersionOneFilesStillLoad) {
  Network net = make_network(tiny(1), 4);
  save_checkpoint(path("v2.ckpt"), net, 77, "old");
  std::string v1 = read(path("v2.ckpt"));
  ASSERT_EQ(v1[8], 2);
  v1[8] = 1;
  v1.erase(16, 4);  // version 1 has no header crc32
  write(path("v1.ckpt"), v1);
  xqzero::CheckpointMeta meta;
  EXPECT_NO_THROW(load_network(path("v1.ckpt"), &meta));
  EXPECT_EQ(meta.step(), 77);
  v1[8] = 3;  // a version this build does not know
  write(path("v3.ckpt"), v1);
  EXPECT_NE(
      error_of([&] { read_checkpoint(path("v3.ckpt")); }).find("container version 3, this build reads versions 1 to 2"),
      std::string::npos);
}

TEST_F(CheckpointTest, SavingReplacesAtomically) {
  Network a = make_network(tiny(), 1), b = make_network(tiny(), 2);
  save_checkpoint(path("d.ckpt"), a, 1);
  save_checkpoint(path("d.ckpt"), b, 2);
  EXPECT_EQ(read_checkpoint(path("d.ckpt")).step(), 2);
  EXPECT_FALSE(::xq::test::tmp_leftovers(path("d.ckpt")));
  EXPECT_NE(error_of([&] { save_checkpoint(path("no/such/dir/e.ckpt"), a, 1); }).find("cannot create"),
            std::string::npos);
}

}  // namespace
}  // namespace xq::nn
