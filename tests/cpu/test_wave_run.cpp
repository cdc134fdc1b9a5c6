// The run driver as a library: it prints nothing (progress and warnings go to callbacks,
// and the report is returned), reports progress at the requested interval and once at the
// end, and writes config.json with the results, not before them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/error_of.hpp"
#include "common/process.hpp"
#include "common/wave_cases.hpp"

using namespace strata;
using test::error_of;
namespace fs = std::filesystem;

namespace {

wave::Config case_for(const std::string& out) {
  wave::Config c = test::wave_config({24, 22, 20}, 4, Precision::f32, "cpu");
  c.sources = {{{12.0, 11.0, 10.0}, 0.4, 1.0, std::nullopt}};  // too few points per wavelength: a warning
  c.receiver_points = {{6.0, 11.0, 10.0}};
  c.steps = 40;
  c.snapshot_every = 20;
  c.snapshot_vti = c.snapshot_png = false;
  c.out_dir = out;
  return c;
}

}  // namespace

TEST(WaveRun, PrintsNothingAndCallsBack) {
  test::TempDir dir("wave-run");
  std::vector<std::string> warnings;
  std::vector<wave::Progress> progress;
  bool config_before_the_end = false;
  wave::RunOptions opt;
  opt.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  opt.progress_interval_s = 1e-9;  // every chunk of steps
  opt.on_progress = [&](const wave::Progress& p) {
    progress.push_back(p);
    if (!p.final) config_before_the_end = config_before_the_end || fs::exists(dir / "out/config.json");
  };
  wave::Report r;
  const std::string printed = test::captured(dir / "printed.txt", [&] { r = wave::run(case_for(dir / "out"), opt); });
  EXPECT_EQ(printed, "") << "the library printed";
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("points per shortest wavelength"), std::string::npos) << warnings[0];
  EXPECT_EQ(r.warnings, warnings);
  ASSERT_GE(progress.size(), 2u);
  EXPECT_TRUE(progress.back().final);
  EXPECT_EQ(progress.back().step, 40);
  EXPECT_EQ(progress.back().last_step, 40);
  EXPECT_FALSE(progress.front().final);
  for (std::size_t i = 1; i < progress.size(); ++i) EXPECT_GE(progress[i].step, progress[i - 1].step);
  EXPECT_FALSE(config_before_the_end) << "config.json was written before the results";
  EXPECT_TRUE(fs::exists(dir / "out/config.json"));
  EXPECT_EQ(r.copy_gb_per_s, 0.0) << "the copy yardstick is the GPU's";
  EXPECT_EQ(r.ratio_to_copy, 0.0);
}

TEST(WaveRun, NoSourcesOrReceiversIsSaid) {
  test::TempDir dir("wave-run");
  wave::Config c = case_for(dir / "out");
  c.sources.clear();
  c.receiver_points.clear();
  const wave::Report r = wave::run(c);
  const std::string all = [&] {
    std::string s;
    for (const auto& w : r.warnings) s += w + "\n";
    return s;
  }();
  EXPECT_NE(all.find("no sources: u stays zero"), std::string::npos) << all;
  EXPECT_NE(all.find("no receivers: no seismogram"), std::string::npos) << all;
  EXPECT_EQ(r.plan.points_per_wavelength, 0.0);
  EXPECT_NE(wave::to_text(r).find("no source"), std::string::npos) << wave::to_text(r);
  EXPECT_NE(wave::to_json(r).find("\"points_per_wavelength\": null"), std::string::npos) << wave::to_json(r);
}

// A cancelled run stops between steps with the step and the last checkpoint, and writes
// none of its results (the snapshots and checkpoints written so far stay: they are valid).
TEST(WaveRun, CancelledRunStopsAndNamesTheLastCheckpoint) {
  test::TempDir dir("wave-run");
  wave::Config c = case_for(dir / "out");
  c.checkpoint_every = 10;
  int calls = 0;
  wave::RunOptions opt;
  opt.cancelled = [&] { return fs::exists(dir / "out/checkpoint.strata") && ++calls > 1; };
  try {
    wave::run(c, opt);
    FAIL() << "the run was not stopped";
  } catch (const wave::Interrupted& e) {
    EXPECT_GE(e.step, 10);
    EXPECT_LT(e.step, 40);
    EXPECT_EQ(e.checkpoint, dir / "out/checkpoint.strata");
    EXPECT_EQ(e.checkpoint_step % 10, 0);
    EXPECT_LE(e.checkpoint_step, e.step);
    EXPECT_NE(std::string(e.what()).find("continue with --restart"), std::string::npos) << e.what();
  }
  for (const char* f : {"config.json", "report.json", "seismogram.npy"})
    EXPECT_FALSE(fs::exists(dir / (std::string("out/") + f))) << f << " written by an interrupted run";
  for (const auto& e : fs::recursive_directory_iterator(dir / "out"))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

// A wavefield that stops being finite stops the run with the step and the place, writes
// nothing of that state (no snapshot, no checkpoint, no results) and names the last valid
// checkpoint. The NaN comes from a restart whose u_prev (not u) holds one: it enters u at
// the first step, between two checks.
TEST(WaveRun, NonFiniteWavefieldStopsTheRunWithStepAndPlace) {
  test::TempDir dir("wave-run");
  wave::Config c = case_for(dir / "out");
  c.checkpoint_every = 5;
  const std::size_t nx = 24, ny = 22, nz = 20;
  std::vector<double> u(nx * ny * nz, 0.0), u_prev(nx * ny * nz, 0.0);
  u_prev[(5 * ny + 4) * nx + 3] = std::nan("");
  {
    wave::Solver s(c);
    s.set_state(u, u_prev);
    s.save_checkpoint(dir / "start.strata");
  }
  wave::RunOptions opt;
  opt.restart = dir / "start.strata";
  std::string m = error_of([&] { wave::run(c, opt); });
  EXPECT_NE(m.find("the wavefield is not finite at step 5"), std::string::npos) << m;
  EXPECT_NE(m.find("it was finite at step 0"), std::string::npos) << m;
  // u gets it at step 1 at (3, 4, 5), then 4 steps of a radius-2 star spread it 8 points
  EXPECT_NE(m.find("within x 0..11, y 0..12, z 0..13"), std::string::npos) << m;
  EXPECT_NE(m.find("the last valid checkpoint is " + dir / "start.strata"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(dir / "out/checkpoint.strata")) << "a non-finite state was checkpointed";
  EXPECT_FALSE(fs::exists(dir / "out/report.json"));
  EXPECT_FALSE(fs::exists(dir / "out/seismogram.npy"));

  // A checkpoint whose u itself is not finite is refused before the first step.
  u[7] = INFINITY;
  {
    wave::Solver s(c);
    s.set_state(u, std::vector<double>(u.size(), 0.0));
    s.save_checkpoint(dir / "inf.strata");
  }
  opt.restart = dir / "inf.strata";
  c.out_dir = dir / "out2";
  m = error_of([&] { wave::run(c, opt); });
  EXPECT_NE(m.find("not finite at step 0"), std::string::npos) << m;
  EXPECT_NE(m.find("(x, y, z) = (7, 0, 0)"), std::string::npos) << m;
  EXPECT_EQ(m.find("last valid checkpoint"), std::string::npos) << m;
}
