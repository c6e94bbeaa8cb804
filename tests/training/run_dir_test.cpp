// The run directory's pieces: checkpoint names, finding checkpoints, the trainer lock,
// whether a path can serve, atomic writes.
#include <gtest/gtest.h>
#include <unistd.h>
#include "tests/support/tmp_leftovers.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "training/run_dir.h"

namespace fs = std::filesystem;

namespace xq::training {
namespace {

class RunDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("xqzero_rundir_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

TEST(CheckpointNames, StepRoundTrip) {
  EXPECT_EQ(checkpoint_name(123), "ckpt-00000123.xqz");
  EXPECT_EQ(checkpoint_step("ckpt-00000123.xqz"), 123);
  EXPECT_EQ(checkpoint_step(checkpoint_name(1234567890)), 1234567890);
  for (const char* bad : {"latest", "ckpt-.xqz", "ckpt-12a.xqz", "ckpt-00000010.xqz.tmp", "xckpt-1.xqz", "ckpt--1.xqz",
                          "ckpt-1234567890123456789012.xqz", ""})
    EXPECT_EQ(checkpoint_step(bad), -1) << bad;
}

TEST_F(RunDirTest, CheckpointsNewestFirstByStep) {
  EXPECT_TRUE(checkpoints_newest_first((dir_ / "missing").string()).empty());
  for (const char* name :
       {"ckpt-00000010.xqz", "ckpt-00000002.xqz", "ckpt-100000000.xqz", "ckpt-00000005.xqz.tmp", "notes.txt"})
    std::ofstream(dir_ / name) << "x";
  fs::create_directories(dir_ / "ckpt-00000099.xqz");  // a directory, not a checkpoint
  const std::vector<std::string> expected = {"ckpt-100000000.xqz", "ckpt-00000010.xqz", "ckpt-00000002.xqz"};
  EXPECT_EQ(checkpoints_newest_first(dir_.string()), expected);
}

TEST_F(RunDirTest, SecondLockIsRefusedNamingTheHolder) {
  const std::string run = (dir_ / "run").string();
  fs::create_directories(run);
  {
    const RunDirLock first(run);
    EXPECT_NE(slurp(fs::path(run) / "lock").find("pid " + std::to_string(::getpid()) + " on host "), std::string::npos);
    // Another open file description, even in this process, does not get it.
    try {
      const RunDirLock second(run);
      ADD_FAILURE() << "second lock granted";
    } catch (const RunDirError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("run directory '" + run + "' is in use by pid " + std::to_string(::getpid())),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("lock file " + run + "/lock"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  // Released with its owner; the file stays (the lock belongs to its inode).
  EXPECT_TRUE(fs::exists(fs::path(run) / "lock"));
  EXPECT_NO_THROW(RunDirLock again(run));
}

TEST_F(RunDirTest, UnusablePathsAreNamed) {
  EXPECT_EQ(prepare_run_dir(""), "the path is empty");
  std::ofstream(dir_ / "file") << "x";
  EXPECT_NE(prepare_run_dir((dir_ / "file").string()).find("is not a directory"), std::string::npos);
  const std::string below_file = prepare_run_dir((dir_ / "file" / "run").string());
  EXPECT_NE(below_file.find("cannot create '" + (dir_ / "file" / "run").string() + "'"), std::string::npos)
      << below_file;
  EXPECT_EQ(prepare_run_dir((dir_ / "a" / "b").string()), "");
  EXPECT_TRUE(fs::is_directory(dir_ / "a" / "b"));
  EXPECT_EQ(prepare_run_dir((dir_ / "a" / "b").string()), "");  // an existing one serves too
}

TEST_F(RunDirTest, AtomicWritesReplaceWholeFiles) {
  const std::string path = (dir_ / "latest").string();
  write_file_atomically(path, "ckpt-00000010.xqz\n");
  write_file_atomically(path, "ckpt-00000020.xqz\n");
  EXPECT_EQ(slurp(path), "ckpt-00000020.xqz\n");
  EXPECT_FALSE(::xq::test::tmp_leftovers(path));
  EXPECT_THROW(write_file_atomically((dir_ / "no" / "such" / "dir").string(), "x"), RunDirError);
}

}  // namespace
}  // namespace xq::training
