// AtomicFile: a committed write appears whole, an abandoned or failed one leaves the
// directory exactly as it was (old file intact, no temporary). Each test works in a fresh
// directory under the system temp dir and removes it afterwards.
#include <fcntl.h>
#include <signal.h>
#include <sys/sysmacros.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/error_of.hpp"
#include "common/scratch_dir.hpp"
#include "common/process.hpp"
#include "io/atomic_file.hpp"
#include "strata/error.hpp"

namespace fs = std::filesystem;
using strata::Error;
using strata::io::AtomicFile;
using strata::test::as_unprivileged;
using strata::test::error_of;

namespace {

class AtomicFileTest : public strata::test::ScratchDirTest {
 protected:
  AtomicFileTest() : ScratchDirTest("strata_atomic") {}
  std::set<std::string> listing() const {
    const std::vector<std::string> names = ScratchDirTest::listing();
    return {names.begin(), names.end()};
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static void put(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
};

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

// One file by any spelling, symlink or hard link; two files, or two paths to nothing, are not.
TEST_F(AtomicFileTest, SameFileSeesEverySpellingAndLink) {
  const std::string a = file("a.bin"), b = file("b.bin");
  std::ofstream(a) << "a";
  std::ofstream(b) << "b";
  fs::create_directory(file("sub"));
  fs::create_symlink(a, file("link.bin"));
  fs::create_hard_link(a, file("hard.bin"));
  EXPECT_TRUE(strata::io::same_file(a, a));
  EXPECT_TRUE(strata::io::same_file(a, file("sub/../a.bin")));
  EXPECT_TRUE(strata::io::same_file(a, (fs::path(dir_) / "." / "a.bin").string()));
  EXPECT_TRUE(strata::io::same_file(file("link.bin"), a));
  EXPECT_TRUE(strata::io::same_file(a, file("hard.bin")));
  EXPECT_FALSE(strata::io::same_file(a, b));
  EXPECT_FALSE(strata::io::same_file(file("link.bin"), b));
  EXPECT_FALSE(strata::io::same_file(file("new1.bin"), file("new2.bin")));
  EXPECT_TRUE(strata::io::same_file(file("new1.bin"), file("sub/../new1.bin")));  // not yet made
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

// One rule for every output (strata apply's --out, --json, strata wave's directory): missing
// parent directories are created, when the file is written; a file never committed takes
// the directories it created with it.
TEST_F(AtomicFileTest, MissingParentDirectoriesAreCreatedWithTheFile) {
  const std::string path = file("no/such/dir/out.bin");
  EXPECT_EQ(strata::io::check_output(path).kind, strata::io::OutputTarget::Kind::create);
  EXPECT_TRUE(listing().empty()) << "check_output creates nothing";
  {
    AtomicFile abandoned(path);
    abandoned.write("x", 1);
  }
  EXPECT_TRUE(listing().empty()) << "an abandoned file leaves no directory behind";
  fs::create_directories(file("no"));
  put(file("no/keep"), "k");
  { AtomicFile abandoned(path); }
  EXPECT_EQ(listing(), std::set<std::string>{"no"}) << "a directory that was there stays";
  EXPECT_FALSE(fs::exists(file("no/such")));
  AtomicFile out(path);
  out.write("new", 3);
  out.commit();
  EXPECT_EQ(slurp(path), "new");
}

TEST_F(AtomicFileTest, AParentThatIsAFileOrUnwritableIsRefused) {
  put(file("plain"), "p");
  const std::string msg = error_of([&] { AtomicFile out(file("plain/sub/out.bin")); });
  EXPECT_NE(msg.find("not a directory"), std::string::npos) << msg;
  fs::create_directories(file("locked"));
  fs::permissions(file("locked"), fs::perms(0555));
  const std::string denied = as_unprivileged(
      [&] { return error_of([&] { AtomicFile out(file("locked/sub/out.bin")); }); });
  EXPECT_NE(denied.find("cannot create directory"), std::string::npos) << denied;
  EXPECT_NE(denied.find("Permission denied"), std::string::npos) << denied;
  EXPECT_FALSE(fs::exists(file("locked/sub")));
}

// Missing directories all the way up to the root: the root is where they would be made, and
// the refusal says so (it once said "'/' is not a directory": the check looked at a stale stat).
TEST_F(AtomicFileTest, MissingDirectoriesUpToTheRootAreJudgedAtTheRoot) {
  const std::string path = "/strata-no-such-" + std::to_string(::getpid()) + "/sub/out.bin";
  ASSERT_FALSE(fs::exists(fs::path(path).parent_path().parent_path()));
  const std::string msg =
      as_unprivileged([&] { return error_of([&] { strata::io::check_output(path); }); });
  EXPECT_EQ(msg.find("is not a directory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot create directory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("in '/'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Permission denied"), std::string::npos) << msg;
  if (::geteuid() == 0) {  // root may make them: the check passes and creates nothing
    EXPECT_EQ(strata::io::check_output(path).kind, strata::io::OutputTarget::Kind::create);
  }
  EXPECT_FALSE(fs::exists(fs::path(path).parent_path().parent_path()));
}

// Root ignores permission bits, so as root the attempt runs as `nobody`, in a child.
TEST_F(AtomicFileTest, UnwritableDirectoryThrows) {
  fs::permissions(dir_, fs::perms(0555));
  const std::string msg =
      as_unprivileged([&] { return error_of([&] { AtomicFile out(file("out.bin")); }); });
  EXPECT_NE(msg.find("out.bin"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Permission denied"), std::string::npos) << msg;
  EXPECT_TRUE(listing().empty());
}

TEST_F(AtomicFileTest, DirectoryTargetIsRefusedUpFront) {
  const std::string path = file("taken");
  fs::create_directory(path);
  const std::string msg = error_of([&] {
    AtomicFile out(path);
    out.write("data", 4);
    out.commit();
  });
  EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { strata::io::check_output(path); }).find("is a directory"),
            std::string::npos);
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

// ---- targets that are not a plain regular file (what `>` would write to) ------------------

namespace {

// Writes `text` to `path` through an AtomicFile.
void write_through(const std::string& path, const std::string& text) {
  AtomicFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode;
}

}  // namespace

// A character device is written through, never replaced by a regular file. As root the old
// behaviour (rename over it) would replace /dev/null itself, so the test makes its own null
// device where it may (mknod needs CAP_MKNOD) and otherwise writes to /dev/null, which an
// unprivileged process could never have renamed over.
TEST_F(AtomicFileTest, CharacterDeviceIsWrittenThrough) {
  std::string dev = file("null");
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) dev = "/dev/null";
  ASSERT_TRUE(S_ISCHR(mode_of(dev))) << dev;
  EXPECT_EQ(strata::io::check_output(dev).kind, strata::io::OutputTarget::Kind::stream);
  EXPECT_NO_THROW(write_through(dev, "discarded"));
  EXPECT_TRUE(S_ISCHR(mode_of(dev))) << dev << " was replaced";
  for (const auto& name : listing()) EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
}

// write_at goes back over bytes written (a digest known only at the end) on a file's
// temporary, also one replacing a hard-linked file in place; a stream is not seekable and
// write_at is refused there; after commit neither is allowed.
TEST_F(AtomicFileTest, WriteAtPatchesWhatWasWrittenExceptOnAStream) {
  {
    AtomicFile out(file("a.bin"));
    EXPECT_TRUE(out.seekable());
    out.write("abcdef", 6);
    out.write_at(2, "XY", 2);
    out.write("gh", 2);  // the write position stayed at the end
    out.commit();
    EXPECT_FALSE(out.seekable());
    EXPECT_NE(error_of([&] { out.write_at(0, "z", 1); }), "");
  }
  EXPECT_EQ(slurp(file("a.bin")), "abXYefgh");

  put(file("linked.bin"), "old");
  fs::create_hard_link(dir_ / "linked.bin", dir_ / "other.bin");
  {
    AtomicFile out(file("linked.bin"));
    out.write("0123", 4);
    out.write_at(0, "9", 1);
    out.commit();
  }
  EXPECT_EQ(slurp(file("other.bin")), "9123");

  const std::string fifo = file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    AtomicFile out(fifo);
    EXPECT_FALSE(out.seekable());
    out.write("ab", 2);
    EXPECT_NE(error_of([&] { out.write_at(0, "z", 1); }).find("out of order"), std::string::npos);
  }
  ::close(reader);
}

// A FIFO receives the data; it stays a FIFO.
TEST_F(AtomicFileTest, FifoIsWrittenThrough) {
  const std::string fifo = file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader =
      ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so the writer's open does not wait
  ASSERT_GE(reader, 0);
  const std::string msg = error_of([&] { write_through(fifo, "through the pipe"); });
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  EXPECT_EQ(msg, "");
  EXPECT_EQ(std::string(buf, n > 0 ? std::size_t(n) : 0), "through the pipe");
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo))) << "the FIFO was replaced";
  EXPECT_EQ(listing(), std::set<std::string>{"pipe"});
}

// A symlink is followed: its target gets the data, the link stays a link (as with `>`), also
// when the target does not exist yet.
TEST_F(AtomicFileTest, SymlinkIsWrittenThrough) {
  fs::create_directory(dir_ / "real");
  put(file("real/target.bin"), "old");
  fs::create_symlink("real/target.bin", dir_ / "link.bin");
  write_through(file("link.bin"), "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.bin")) << "the symlink was replaced by a file";
  EXPECT_EQ(slurp(file("real/target.bin")), "new");
  EXPECT_EQ(strata::io::check_output(file("link.bin")).resolved, file("real/target.bin"));

  fs::create_symlink("real/fresh.bin", dir_ / "dangling.bin");
  write_through(file("dangling.bin"), "created");
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.bin"));
  EXPECT_EQ(slurp(file("real/fresh.bin")), "created");
  EXPECT_EQ(listing(), (std::set<std::string>{"dangling.bin", "link.bin", "real"}));

  fs::create_symlink("loop.bin", dir_ / "loop.bin");
  EXPECT_NE(error_of([&] { write_through(file("loop.bin"), "x"); }).find("symbolic links"),
            std::string::npos);
}

// Hard links keep sharing the data: every name sees the new contents.
TEST_F(AtomicFileTest, HardLinksSeeTheNewContents) {
  put(file("a.bin"), "old contents");
  fs::create_hard_link(dir_ / "a.bin", dir_ / "b.bin");
  write_through(file("a.bin"), "new");
  EXPECT_EQ(slurp(file("a.bin")), "new");
  EXPECT_EQ(slurp(file("b.bin")), "new") << "the hard link was broken";
  EXPECT_EQ(fs::hard_link_count(dir_ / "a.bin"), 2u);
  EXPECT_EQ(listing(), (std::set<std::string>{"a.bin", "b.bin"}));
}

// A file whose bits grant nobody write access is refused for every user, root included
// (root's `>` would override the bits; strata does not replace a file marked read-only).
TEST_F(AtomicFileTest, ReadOnlyTargetIsRefused) {
  const std::string path = file("frozen.bin");
  put(path, "keep");
  fs::permissions(path, fs::perms(0444));
  const std::string msg = error_of([&] { write_through(path, "new"); });
  EXPECT_NE(msg.find("read-only"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0444"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { strata::io::check_output(path); }).find("read-only"), std::string::npos);
  EXPECT_EQ(slurp(path), "keep");
  EXPECT_EQ(listing(), std::set<std::string>{"frozen.bin"});
}

// A file this process may not write (owned by someone else, or without the owner's write
// bit) is refused with the OS's reason, even though its directory would let a rename
// replace it. Unprivileged: our own file with only the group write bit. As root (whom
// permission bits do not stop) the check runs in a child that has become `nobody`, on a
// root-owned 0644 file in a directory anyone may write.
TEST_F(AtomicFileTest, TargetThisUserMayNotWriteIsRefused) {
  const std::string path = file("theirs.bin");
  put(path, "keep");
  if (::geteuid() != 0) {
    fs::permissions(path, fs::perms(0460));
  } else {
    fs::permissions(path, fs::perms(0644));
    fs::permissions(dir_, fs::perms(0777));
  }
  const std::string msg =
      as_unprivileged([&] { return error_of([&] { write_through(path, "new"); }); });
  EXPECT_NE(msg.find("Permission denied"), std::string::npos) << msg;
  EXPECT_EQ(slurp(path), "keep");
  EXPECT_EQ(listing(), std::set<std::string>{"theirs.bin"});
}

// Block devices and sockets are refused, named as such; nothing is created.
TEST_F(AtomicFileTest, BlockDeviceAndSocketAreRefused) {
  std::string blk = file("disk");
  if (::mknod(blk.c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0) {
    blk.clear();
    for (const auto& e : fs::directory_iterator("/dev"))
      if (fs::is_block_file(e.status())) {
        blk = e.path().string();
        break;
      }
  }
  if (blk.empty()) GTEST_SKIP() << "no block device can be made or found to check against";
  EXPECT_NE(error_of([&] { strata::io::check_output(blk); }).find("block device"),
            std::string::npos);
  EXPECT_TRUE(S_ISBLK(mode_of(blk)));
  for (const auto& name : listing()) EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
}

// The data lands where this process's standard output goes when the target is it
// (/dev/stdout, /proc/self/fd/1), in order after what was already printed.
TEST_F(AtomicFileTest, StandardOutputIsWrittenThrough) {
  std::string msg;
  const std::string out = strata::test::captured(
      file("stdout.txt"),
      [&] {
        std::printf("before ");
        msg = error_of([&] { write_through("/proc/self/fd/1", "json"); });
        std::printf(" after");
      },
      false);
  EXPECT_EQ(msg, "");
  EXPECT_EQ(out, "before json after");
  EXPECT_EQ(listing(), std::set<std::string>{"stdout.txt"});
}

// The registry a signal handler empties: an open temporary is removed by it; a committed or
// abandoned file is no longer in it.
TEST_F(AtomicFileTest, OpenTemporariesCanBeRemovedFromASignalHandler) {
  const std::string path = file("out.bin");
  put(path, "old");
  {
    AtomicFile open(path);
    open.write("partial", 7);
    ASSERT_TRUE(fs::exists(open.temp_path()));
    EXPECT_EQ(strata::io::remove_temporaries(), 1);
    EXPECT_FALSE(fs::exists(open.temp_path()));
  }
  EXPECT_EQ(slurp(path), "old");
  {
    AtomicFile done(path);
    done.write("new", 3);
    done.commit();
  }
  { AtomicFile abandoned(file("other.bin")); }
  EXPECT_EQ(strata::io::remove_temporaries(), 0);
  EXPECT_EQ(slurp(path), "new");
  EXPECT_EQ(listing(), std::set<std::string>{"out.bin"});
}
