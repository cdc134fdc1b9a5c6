// The output directory is a unit: its files always belong to one run. A second run into a
// used directory is refused (or replaces every file of the previous one with overwrite), a
// directory locked by a live run is refused, a restart writes only beside the files of its
// own configuration, and temporaries left by a killed run are cleared.
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "common/error_of.hpp"
#include "common/process.hpp"
#include "common/wave_cases.hpp"
#include "drivers/wave/run_directory.hpp"
#include "io/run_directory.hpp"

using namespace strata;
namespace fs = std::filesystem;

namespace {

wave::Config small(const std::string& out) {
  wave::Config c = test::wave_config({20, 18, 16}, 4, Precision::f32, "cpu");
  c.sources = {{{10.0, 9.0, 8.0}, 0.08, 1.0, std::nullopt}};
  c.receiver_points = {{5.0, 9.0, 8.0}};
  c.steps = 20;
  c.snapshot_every = 5;
  c.snapshot_vti = c.snapshot_png = false;
  c.checkpoint_every = 10;
  c.out_dir = out;
  return c;
}

// Every file under dir, relative, sorted.
std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (!e.is_directory()) out.insert(fs::relative(e.path(), dir).string());
  return out;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST(WaveOutputDir, SecondRunIntoAUsedDirectoryIsRefused) {
  test::TempDir dir("wave-outdir");
  const std::string out = dir / "out";
  wave::run(small(out), wave::RunOptions{});
  const auto before = files_in(out);
  const std::string config = text_of(out + "/config.json");
  wave::Config other = small(out);
  other.sources[0].frequency = 0.05;
  const std::string m = test::error_of([&] { wave::run(other, wave::RunOptions{}); });
  EXPECT_NE(m.find("is not empty"), std::string::npos) << m;
  EXPECT_NE(m.find("--overwrite"), std::string::npos) << m;
  EXPECT_EQ(files_in(out), before);
  EXPECT_EQ(text_of(out + "/config.json"), config) << "the refused run rewrote config.json";
}

TEST(WaveOutputDir, OverwriteReplacesEveryFileOfThePreviousRun) {
  test::TempDir dir("wave-outdir");
  const std::string out = dir / "out";
  wave::run(small(out), wave::RunOptions{});  // snapshots every 5 steps, a checkpoint
  wave::Config next = small(out);
  next.snapshot_every = 10;
  next.checkpoint_every = 0;
  next.steps = 20;
  wave::RunOptions o = wave::RunOptions{};
  o.overwrite = true;
  wave::run(next, o);
  const std::set<std::string> want = {".strata.lock", "config.json", "receivers.npy", "report.json", "seismogram.npy",
                                      "snapshots/u_000010.npy", "snapshots/u_000020.npy"};
  EXPECT_EQ(files_in(out), want) << "files of the previous run were left beside the new ones";

  // Files strata did not write are never removed: overwrite refuses, everything stays.
  std::ofstream(out + "/notes.txt") << "mine";
  const auto before = files_in(out);
  const std::string m = test::error_of([&] { wave::run(next, o); });
  EXPECT_NE(m.find("holds files strata did not write (notes.txt)"), std::string::npos) << m;
  EXPECT_EQ(files_in(out), before);
}

// `python -m strata.plot RUN_DIR` draws into RUN_DIR/plots: a later run with overwrite
// removes those pictures with the run they showed (and the emptied folder), but refuses
// when plots/ holds anything else.
TEST(WaveOutputDir, OverwriteRemovesThePlotsOfThePreviousRun) {
  test::TempDir dir("wave-outdir");
  const std::string out = dir / "out";
  wave::run(small(out), wave::RunOptions{});
  fs::create_directories(out + "/plots");
  for (const std::string name :
       {"model.png", "u_000005.png", "u_000020.png", "seismogram_density.png",
        "seismogram_wiggle.png", ".model.png.tmp.a1b2c3"})
    std::ofstream(out + "/plots/" + name) << "picture";
  wave::Config next = small(out);
  wave::RunOptions o = wave::RunOptions{};
  o.overwrite = true;
  EXPECT_EQ(test::error_of([&] { wave::run(next, o); }), "");
  EXPECT_FALSE(fs::exists(out + "/plots")) << "the previous run's plots were left";
  EXPECT_NE(test::error_of([&] { wave::run(next, wave::RunOptions{}); }).find("is not empty"),
            std::string::npos);

  fs::create_directories(out + "/plots");
  std::ofstream(out + "/plots/model.png") << "picture";
  std::ofstream(out + "/plots/figure1.pdf") << "mine";
  const auto before = files_in(out);
  const std::string m = test::error_of([&] { wave::run(next, o); });
  EXPECT_NE(m.find("holds files strata did not write (plots/figure1.pdf)"), std::string::npos) << m;
  EXPECT_EQ(files_in(out), before);
}

TEST(WaveOutputDir, DirectoryInUseByAnotherRunIsRefused) {
  test::TempDir dir("wave-outdir");
  const std::string out = dir / "out";
  fs::create_directories(out);
  const int fd = ::open((out + "/.strata.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);  // as a live run holds it
  const std::string m = test::error_of([&] { wave::run(small(out), wave::RunOptions{}); });
  EXPECT_NE(m.find("is in use by another strata run"), std::string::npos) << m;
  EXPECT_EQ(files_in(out), std::set<std::string>{".strata.lock"});
  ::close(fd);  // the holder ends: the directory is free again
  EXPECT_EQ(test::error_of([&] { wave::run(small(out), wave::RunOptions{}); }), "");
}

// Every rank of a job checks the same directories at once (wave::check_shots, before the
// job begins): one rank's look at the lock is not another's live run.
TEST(WaveOutputDir, ChecksOfOneJobDoNotSeeEachOther) {
  test::TempDir dir("wave-outdir");
  const std::string out = dir / "out";
  ASSERT_EQ(test::error_of([&] { wave::run(small(out), wave::RunOptions{}); }), "");
  const int look = ::open((out + "/.strata.lock").c_str(), O_RDONLY);
  ASSERT_GE(look, 0);
  ASSERT_EQ(::flock(look, LOCK_SH | LOCK_NB), 0);  // another rank's check, under way
  for (const auto mode : {io::RunDirectory::Mode::overwrite, io::RunDirectory::Mode::resume})
    EXPECT_EQ(test::error_of([&] { io::RunDirectory::preflight(out, wave::run_files(), mode); }), "");
  ::close(look);
  const int live = ::open((out + "/.strata.lock").c_str(), O_RDWR);
  ASSERT_GE(live, 0);
  ASSERT_EQ(::flock(live, LOCK_EX | LOCK_NB), 0);  // a live run's
  const std::string m = test::error_of(
      [&] { io::RunDirectory::preflight(out, wave::run_files(), io::RunDirectory::Mode::overwrite); });
  EXPECT_NE(m.find("is in use by another strata run"), std::string::npos) << m;
  ::close(live);
}

// A missing output directory is judged where it would be made, by the walk every output
// file's check makes (io::require_creatable_directory; the preflight had a copy of its own):
// under a file, under a directory this user cannot write, and under one it cannot search, the
// check refuses with the reason and makes nothing; under a writable one it passes.
TEST(WaveOutputDir, AMissingDirectoryIsJudgedWhereItWouldBeMade) {
  test::TempDir dir("wave-outdir");
  auto check = [&](const std::string& out) {
    return test::as_unprivileged([&] {
      return test::error_of([&] {
        io::RunDirectory::preflight(out, wave::run_files(), io::RunDirectory::Mode::overwrite);
      });
    });
  };
  std::ofstream(dir / "plain") << "p";
  fs::create_directories(dir / "locked");
  fs::create_directories(dir / "closed/inner");
  fs::create_directories(dir / "open");
  fs::permissions(dir / "open", fs::perms::all);  // as writable for `nobody` as for this user
  fs::permissions(dir / "locked", fs::perms(0555));
  fs::permissions(dir / "closed", fs::perms::none);
  const std::string file = check(dir / "plain/out"), locked = check(dir / "locked/a/out"),
                    closed = check(dir / "closed/inner/out"), open = check(dir / "open/a/out");
  fs::permissions(dir / "locked", fs::perms::owner_all);
  fs::permissions(dir / "closed", fs::perms::owner_all);
  EXPECT_NE(file.find(dir / "plain"), std::string::npos) << file;
  EXPECT_NE(file.find("ot a directory"), std::string::npos) << file;  // the OS's "Not a ..."
  EXPECT_NE(locked.find("cannot create directory '" + (dir / "locked/a/out") + "' in '" +
                        (dir / "locked") + "': Permission denied"),
            std::string::npos)
      << locked;
  EXPECT_NE(closed.find("Permission denied"), std::string::npos) << closed;
  EXPECT_NE(closed.find(dir / "closed"), std::string::npos) << closed;
  EXPECT_EQ(open, "");
  for (const char* made : {"locked/a", "closed/inner/out", "open/a"})
    EXPECT_FALSE(fs::exists(dir / made)) << made;
}

TEST(WaveOutputDir, RestartWritesOnlyBesideItsOwnConfiguration) {
  test::TempDir dir("wave-outdir");
  const std::string a = dir / "a", b = dir / "b";
  wave::run(small(a), wave::RunOptions{});
  wave::Config other = small(b);
  other.sources[0].frequency = 0.05;
  other.steps = 10;
  wave::run(other, wave::RunOptions{});
  const auto before = files_in(a);
  other.out_dir = a;
  other.steps = 20;
  wave::RunOptions o = wave::RunOptions{};
  o.restart = b + "/checkpoint.strata";
  const std::string m = test::error_of([&] { wave::run(other, o); });
  EXPECT_NE(m.find("holds the files of a run of another configuration"), std::string::npos) << m;
  EXPECT_EQ(files_in(a), before);

  // Its own directory: continued, and the report says so.
  wave::Config mine = small(a);
  mine.steps = 30;
  o.restart = a + "/checkpoint.strata";
  const wave::Report r = wave::run(mine, o);
  EXPECT_EQ(r.first_step, 20);
  EXPECT_TRUE(fs::exists(a + "/snapshots/u_000030.npy"));

  o.overwrite = true;  // the two exclude each other
  EXPECT_NE(test::error_of([&] { wave::run(mine, o); }).find("exclude each other"), std::string::npos);
}

// A killed run leaves its temporaries; the next run that takes the directory removes them.
TEST(WaveOutputDir, StaleTemporariesAreRemoved) {
  test::TempDir dir("wave-outdir");
  const std::string out = dir / "out";
  wave::run(small(out), wave::RunOptions{});
  std::ofstream(out + "/.checkpoint.strata.tmp.AbC123") << "half a checkpoint";
  std::ofstream(out + "/snapshots/.u_000015.npy.tmp.XyZ789") << "half a snapshot";
  wave::Config more = small(out);
  more.steps = 25;
  wave::RunOptions o = wave::RunOptions{};
  o.restart = out + "/checkpoint.strata";
  wave::run(more, o);
  for (const auto& f : files_in(out)) EXPECT_EQ(f.find(".tmp."), std::string::npos) << f << " was left";
}
