// Checkpoint and restart on the CPU: an interrupted run continued from its checkpoint is
// bitwise identical to the uninterrupted run (state, CPML memory and traces), through the
// Solver API and through `strata wave`'s run driver and its files; a checkpoint of another
// configuration is refused before anything is written.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/wave_cases.hpp"

using namespace strata;

namespace {

// f32 (so nothing hides behind double's headroom), CPML on five faces, free top, two
// sources, a line of receivers sampled every 2 steps.
wave::Config restart_case() {
  wave::Config c = test::wave_config({36, 30, 34}, 8, Precision::f32, "cpu");
  for (auto& f : c.faces) f = wave::FaceKind::pml;
  c.faces[wave::zmin] = wave::FaceKind::free;
  c.pml_width = 8;
  c.model = wave::ModelKind::layered;
  c.layers = {{0.0, 1.0}, {15.0, 1.3}};
  c.sources = {{{18.2, 15.1, 10.7}, 0.09, 1.0, std::nullopt}, {{14.0, 12.5, 20.5}, 0.07, -0.5, 5.0}};
  c.receiver_lines = {{{9.5, 15.0, 3.5}, {27.5, 15.0, 3.5}, 10}};
  c.receiver_every = 2;
  c.steps = 60;
  return c;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

template <class V>
bool same_bits(const V& a, const V& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
}

}  // namespace

TEST(WaveRestart, SolverCheckpointContinuesBitIdentically) {
  const wave::Config c = restart_case();
  test::TempDir dir("wave-restart");
  wave::Solver whole(c);
  whole.advance(60);

  wave::Solver first(c);
  first.advance(25);
  first.save_checkpoint(dir / "ck.strata");
  wave::Solver resumed(c);
  resumed.load_checkpoint(dir / "ck.strata");
  EXPECT_EQ(resumed.step(), 25);
  resumed.advance(35);

  EXPECT_TRUE(same_bits(whole.wavefield(), resumed.wavefield())) << "wavefield differs";
  EXPECT_TRUE(same_bits(whole.traces(), resumed.traces())) << "traces differ";
  EXPECT_EQ(whole.trace_rows_recorded(), 31);
}

TEST(WaveRestart, RunDriverRestartWritesIdenticalFiles) {
  test::TempDir dir("wave-restart-run");
  wave::Config c = restart_case();
  c.snapshot_every = 30;
  c.snapshot_vti = c.snapshot_png = false;
  wave::RunOptions quiet;
  quiet.quiet = true;
  quiet.progress = 0;

  c.out_dir = dir / "whole";
  wave::run(c, quiet);

  wave::Config part = c;  // interrupted after its checkpoint at step 20
  part.out_dir = dir / "part";
  part.steps = 20;
  part.checkpoint_every = 20;
  wave::run(part, quiet);
  ASSERT_TRUE(std::filesystem::exists(dir / "part/checkpoint.strata"));

  wave::Config more = c;  // continued to the same end, in the same directory
  more.out_dir = dir / "part";
  wave::RunOptions resume = quiet;
  resume.restart = dir / "part/checkpoint.strata";
  const wave::Report r = wave::run(more, resume);
  EXPECT_EQ(r.first_step, 20);
  EXPECT_EQ(r.steps_run, 40);

  for (const char* f : {"seismogram.npy", "snapshots/u_000060.npy", "snapshots/u_000030.npy", "receivers.npy"}) {
    const std::string a = bytes_of(dir / (std::string("whole/") + f)), b = bytes_of(dir / (std::string("part/") + f));
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_EQ(a, b) << f << " differs after the restart";
  }
}

TEST(WaveRestart, CheckpointOfAnotherConfigurationIsRefused) {
  test::TempDir dir("wave-restart-bad");
  wave::Config c = restart_case();
  {
    wave::Solver s(c);
    s.advance(10);
    s.save_checkpoint(dir / "ck.strata");
  }
  wave::Config other = c;
  other.layers[1].velocity = 1.31;
  other.out_dir = dir / "out";
  wave::RunOptions opt;
  opt.quiet = true;
  opt.restart = dir / "ck.strata";
  try {
    wave::run(other, opt);
    FAIL() << "a checkpoint of another model was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("different configuration"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("model"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "a refused restart wrote output";

  // Steps, outputs and device are not part of the digest: a longer run may continue it.
  wave::Config longer = c;
  longer.steps = 80;
  longer.snapshot_every = 7;
  wave::Solver s(longer);
  EXPECT_NO_THROW(s.load_checkpoint(dir / "ck.strata"));
  EXPECT_EQ(s.step(), 10);

  // A truncated checkpoint is refused with a reason.
  std::filesystem::resize_file(dir / "ck.strata", std::filesystem::file_size(dir / "ck.strata") - 16);
  EXPECT_THROW(s.load_checkpoint(dir / "ck.strata"), Error);
}
