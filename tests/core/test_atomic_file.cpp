// AtomicFile: a committed write appears whole, an abandoned or failed one leaves the
// directory exactly as it was (old file intact, no temporary). Each test works in a fresh
// directory under the system temp dir and removes it afterwards.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "core/atomic_file.hpp"
#include "strata/error.hpp"

namespace fs = std::filesystem;
using strata::Error;
using strata::io::AtomicFile;

namespace {

class AtomicFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("strata_atomic_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static void put(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }

  fs::path dir_;
};

// Catches the Error a callable throws and returns its message ("" when none was thrown).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_F(AtomicFileTest, CommitCreatesTheFile) {
  const std::string path = file("out.bin");
  {
    AtomicFile out(path);
    EXPECT_EQ(fs::path(out.temp_path()).parent_path(), dir_);
    EXPECT_EQ(fs::path(out.temp_path()).filename().string().rfind(".out.bin.tmp.", 0), 0u);
    EXPECT_FALSE(fs::exists(path));  // nothing visible before the commit
    out.write("hello ", 6);
    std::fputs("world", out.get());
    out.commit();
  }
  EXPECT_EQ(slurp(path), "hello world");
  EXPECT_EQ(listing(), std::set<std::string>{"out.bin"});
}

TEST_F(AtomicFileTest, ThrowBeforeCommitLeavesNothing) {
  const std::string path = file("out.bin");
  EXPECT_THROW(
      {
        AtomicFile out(path);
        out.write("partial", 7);
        throw std::runtime_error("writer failed");
      },
      std::runtime_error);
  EXPECT_TRUE(listing().empty());
}

TEST_F(AtomicFileTest, AbandonedReplacementLeavesOldFile) {
  const std::string path = file("out.bin");
  put(path, "old contents");
  {
    AtomicFile out(path);
    out.write("new", 3);
  }  // no commit
  EXPECT_EQ(slurp(path), "old contents");
  EXPECT_EQ(listing(), std::set<std::string>{"out.bin"});
}

TEST_F(AtomicFileTest, CommitReplacesExistingFile) {
  const std::string path = file("out.bin");
  put(path, "old contents that are longer");
  AtomicFile out(path);
  out.write("new", 3);
  out.commit();
  EXPECT_EQ(slurp(path), "new");
  EXPECT_EQ(listing(), std::set<std::string>{"out.bin"});
  EXPECT_NE(error_of([&] { out.write("x", 1); }).find("already committed"), std::string::npos);
}

TEST_F(AtomicFileTest, MissingDirectoryThrows) {
  const std::string path = file("no/such/dir/out.bin");
  const std::string msg = error_of([&] { AtomicFile out(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
  EXPECT_TRUE(listing().empty());
}

TEST_F(AtomicFileTest, UnwritableDirectoryThrows) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string msg = error_of([&] { AtomicFile out(file("out.bin")); });
  EXPECT_NE(msg.find("out.bin"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Permission denied"), std::string::npos) << msg;
}

TEST_F(AtomicFileTest, RenameOntoDirectoryFailsCleanly) {
  const std::string path = file("taken");
  fs::create_directory(path);
  const std::string msg = error_of([&] {
    AtomicFile out(path);
    out.write("data", 4);
    out.commit();
  });
  EXPECT_NE(msg.find("rename"), std::string::npos) << msg;
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(listing(), std::set<std::string>{"taken"});
}

// A full disk, imitated with the file-size limit: the write error (EFBIG) must surface as an
// Error and the old file must survive. Nothing is asserted while the limit is in force, so
// gtest's own output cannot hit it.
TEST_F(AtomicFileTest, WriteErrorKeepsOldFileAndRemovesTemporary) {
  const std::string path = file("out.bin");
  put(path, "old contents");
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of a signal
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string msg = error_of([&] {
    AtomicFile out(path);
    const std::string block(1 << 16, 'x');
    out.write(block.data(), block.size());
    out.commit();
  });
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, old_handler);

  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("File too large"), std::string::npos) << msg;
  EXPECT_EQ(slurp(path), "old contents");
  EXPECT_EQ(listing(), std::set<std::string>{"out.bin"});
}

TEST_F(AtomicFileTest, NewFileHonoursUmaskAndReplacementKeepsMode) {
  const mode_t saved = ::umask(027);
  const std::string fresh = file("fresh.bin"), kept = file("kept.bin");
  {
    AtomicFile out(fresh);
    out.commit();
  }
  put(kept, "old");
  fs::permissions(kept, fs::perms(0604));
  {
    AtomicFile out(kept);
    out.commit();
  }
  ::umask(saved);
  struct stat st {};
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  ASSERT_EQ(::stat(kept.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0604u);
}
