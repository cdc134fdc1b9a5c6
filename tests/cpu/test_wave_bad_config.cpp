// Bad wave configurations: each is refused with a message that names the problem, before
// anything is written (the output directory is never created).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/wave_cases.hpp"
#include "solvers/wave/model.hpp"
#include "strata/npy.hpp"

using namespace strata;

namespace {

wave::Config good(const test::TempDir& dir) {
  wave::Config c = test::wave_config({24, 24, 24}, 4, Precision::f32, "cpu");
  c.sources = {{{12.0, 12.0, 12.0}, 0.05, 1.0, std::nullopt}};
  c.receiver_points = {{6.0, 12.0, 12.0}};
  c.steps = 5;
  c.out_dir = dir / "out";
  return c;
}

void expect_refused(const wave::Config& c, const std::string& needle, const test::TempDir& dir) {
  wave::RunOptions opt;
  try {
    wave::run(c, opt);
    ADD_FAILURE() << "accepted; expected an error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out"))
      << "wrote output for a refused run (" << needle << ")";
}

}  // namespace

TEST(WaveBadConfig, GoodConfigurationRunsAndWrites) {
  test::TempDir dir("wave-good");
  wave::RunOptions opt;
  wave::run(good(dir), opt);
  EXPECT_TRUE(std::filesystem::exists(dir / "out/seismogram.npy"));
  EXPECT_TRUE(std::filesystem::exists(dir / "out/report.json"));
}

TEST(WaveBadConfig, NegativeVelocity) {
  test::TempDir dir("wave-bad");
  EXPECT_THROW(wave::parse_config(R"({"model": {"velocity": -1500}})"), Error);
  wave::Config c = good(dir);
  c.velocity = -1500;  // past the parser: the model check still refuses it
  expect_refused(c, "every velocity must be a finite number > 0", dir);
  // A model file with one negative value names its grid position.
  std::vector<float> v(24 * 24 * 24, 1.0f);
  v[(5 * 24 + 6) * 24 + 7] = -2.0f;
  const std::size_t shape[3] = {24, 24, 24};
  npy_write<float>(dir / "v.npy", v, shape);
  c = good(dir);
  c.model = wave::ModelKind::npy;
  c.model_file = dir / "v.npy";
  expect_refused(c, "(x, y, z) = (7, 6, 5)", dir);
}

// A finite positive velocity the run's precision cannot hold (a float64 file's 1e300 or
// 1e-300 in an f32 run, or the configuration's own number) is refused with the value as given,
// not the inf or 0 it would become, and the precision named; the same values pass the model
// check in an f64 run.
TEST(WaveBadConfig, VelocityOutsideThePrecisionsRangeIsSaidAsGiven) {
  test::TempDir dir("wave-bad");
  const std::size_t shape[3] = {24, 24, 24};
  for (const double bad : {1e300, 1e-300}) {
    std::vector<double> v(24 * 24 * 24, 1.0);
    v[(3 * 24 + 4) * 24 + 5] = bad;
    npy_write<double>(dir / "v64.npy", v, shape);
    wave::Config c = good(dir);
    c.model = wave::ModelKind::npy;
    c.model_file = dir / "v64.npy";
    const std::string said = format_number(bad) + " at grid point (x, y, z) = (5, 4, 3)";
    expect_refused(c, said, dir);
    expect_refused(c, "outside the range of f32", dir);
    c.model = wave::ModelKind::constant;
    c.velocity = bad;
    expect_refused(c, format_number(bad) + " at grid point (x, y, z) = (0, 0, 0)", dir);
    c.precision = Precision::f64;  // held: the model check passes (what follows may refuse)
    EXPECT_NO_THROW(wave::load_velocity<double>(c)) << bad;
  }
  // Not finite or not positive in the file: said as it is, with no word of range.
  std::vector<double> v(24 * 24 * 24, 1.0);
  v[7] = -3.5;
  npy_write<double>(dir / "v64.npy", v, shape);
  wave::Config c = good(dir);
  c.model = wave::ModelKind::npy;
  c.model_file = dir / "v64.npy";
  try {
    wave::load_velocity<float>(c);
    ADD_FAILURE() << "accepted a negative velocity";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("v = -3.5 at grid point (x, y, z) = (7, 0, 0)"), std::string::npos) << m;
    EXPECT_EQ(m.find("range"), std::string::npos) << m;
  }
}

TEST(WaveBadConfig, SourceOrReceiverOutsideTheGrid) {
  test::TempDir dir("wave-bad");
  wave::Config c = good(dir);
  c.sources[0].position.z = 24.0;  // the last point is at 23.5
  expect_refused(c, "sources.0.position", dir);
  c = good(dir);
  c.receiver_points = {{-1.0, 5.0, 5.0}};
  expect_refused(c, "outside the grid", dir);
}

TEST(WaveBadConfig, CflViolationPrintsTheLimit) {
  test::TempDir dir("wave-bad");
  wave::Config c = good(dir);
  const double limit = wave::stability_limit(4, 1.0, 1.0);
  c.dt = limit * 1.01;
  expect_refused(c, "stability (CFL) limit", dir);
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", limit);
  expect_refused(c, text, dir);
  c.dt = limit;  // at the limit: allowed
  wave::RunOptions opt;
  EXPECT_NO_THROW(wave::run(c, opt));
}

TEST(WaveBadConfig, UnknownKeyNamesTheKeyAndTheAllowedOnes) {
  try {
    wave::parse_config(R"({"grid": {"shape": [8, 8, 8], "spcing": 2}})");
    FAIL() << "unknown key accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown key 'grid.spcing'"), std::string::npos) << m;
    EXPECT_NE(m.find("shape, spacing"), std::string::npos) << m;
  }
}

TEST(WaveBadConfig, UnreadableModel) {
  test::TempDir dir("wave-bad");
  wave::Config c = good(dir);
  c.model = wave::ModelKind::npy;
  c.model_file = dir / "missing.npy";
  expect_refused(c, "missing.npy", dir);
  {
    std::ofstream f(dir / "junk.npy");
    f << "not a numpy file";
  }
  c.model_file = dir / "junk.npy";
  expect_refused(c, "junk.npy", dir);
  std::vector<float> v(10 * 24 * 24, 1.0f);
  const std::size_t shape[3] = {10, 24, 24};
  npy_write<float>(dir / "short.npy", v, shape);
  c.model_file = dir / "short.npy";
  expect_refused(c, "has shape (10, 24, 24)", dir);
}

TEST(WaveBadConfig, BoundaryAndLayerChecks) {
  test::TempDir dir("wave-bad");
  wave::Config c = good(dir);
  c.faces[wave::xmin] = wave::FaceKind::periodic;
  expect_refused(c, "must both be periodic", dir);
  c = good(dir);
  for (auto& f : c.faces) f = wave::FaceKind::pml;
  c.pml_width = 12;  // 2 * 12 + radius 2 > 24
  expect_refused(c, "cannot hold 2 absorbing layer(s)", dir);
}

// The whole footprint is estimated before anything is read or allocated, and a run that
// cannot fit is refused with the figure and the memory available (it used to allocate for
// a minute and be killed by the kernel, or end in std::bad_alloc).
TEST(WaveBadConfig, FootprintLargerThanTheMachineIsRefusedUpFront) {
  test::TempDir dir("wave-bad");
  wave::Config c = good(dir);
  c.shape = {1 << 20, 1 << 20, 2};  // 2.2e12 points: more memory than any machine has
  c.sources.clear();
  c.receiver_points.clear();
  expect_refused(c, "of host memory (u and u_prev", dir);
  expect_refused(c, "is available (", dir);
  // 1e7 receivers x 1e8 steps: 4e15 bytes of traces on a small grid.
  c = good(dir);
  c.receiver_points.clear();
  c.receiver_lines = {{{2.0, 2.0, 2.0}, {20.0, 20.0, 20.0}, 10000000}};
  c.steps = 100000000;
  expect_refused(c, "traces 3.64e+03 TiB", dir);
  expect_refused(c, "fewer receivers or steps", dir);
}

// Source parameters that pass the schema's type and sign checks but cannot be represented
// (NaN or Inf in the seismogram with exit 0) are refused with the range that works.
TEST(WaveBadConfig, ImplausibleSourceParametersAreRefusedWithTheRange) {
  test::TempDir dir("wave-bad");
  wave::Config c = good(dir);  // h = 1, v = 1, order 4: dt = 0.4 s, 5 steps = 2 s, Nyquist 1.25 Hz
  c.sources[0].delay = 1e200;
  expect_refused(c, "sources.0.delay = 1e+200 s puts the wavelet's peak after the end of the run",
                 dir);
  expect_refused(c, "allowed [0, 2] s", dir);
  c = good(dir);
  c.sources[0].frequency = 1e300;
  expect_refused(
      c, "sources.0.frequency = 1e+300 Hz is above the time step's Nyquist frequency 1.25 Hz", dir);
  c = good(dir);
  c.sources[0].amplitude = 1e300;  // f32
  expect_refused(c, "sources.0.amplitude = 1e+300 would overflow f32", dir);
  expect_refused(c, "allowed |amplitude| <=", dir);
  c.precision = Precision::f64;  // representable there
  EXPECT_NO_THROW(wave::Solver{c});
  // Extreme spacings reach the same checks through dt: a coarse grid's dt is too long for
  // the source, a fine grid's injection dt^2 / h^3 overflows.
  c = good(dir);
  c.spacing = 1e200;
  c.sources[0].position = {12e200, 12e200, 12e200};
  c.receiver_points = {{6e200, 12e200, 12e200}};
  expect_refused(c, "above the time step's Nyquist frequency", dir);
  c = good(dir);
  c.spacing = 1e-120;
  c.sources[0].position = {12e-120, 12e-120, 12e-120};
  c.receiver_points = {{6e-120, 12e-120, 12e-120}};
  expect_refused(c, "makes the sources' injection factor dt^2 / h^3 = ", dir);
  expect_refused(c, "outside the range of f32", dir);
  // In f64 too: h^3 = 1e-360 is 0 in a double, the factor inf on every device.
  c.precision = Precision::f64;
  expect_refused(c, "outside the range of f64", dir);
  // A coarse grid injects little a step (dt^2 / h^3 = 1.6e-7 at h = 1e6), but the wavelet's
  // samples must still fit the precision: an f32 amplitude of 1e39 ran on the CPU, in double,
  // and a GPU, which keeps them in f32, would convert it to inf.
  const auto coarse = [&](double amplitude, Precision p) {
    wave::Config k = good(dir);
    k.spacing = 1e6;
    k.sources = {{{12e6, 12e6, 12e6}, 0.05e-6, amplitude, std::nullopt}};
    k.receiver_points = {{6e6, 12e6, 12e6}};
    k.precision = p;
    return k;
  };
  expect_refused(coarse(1e39, Precision::f32), "sources.0.amplitude = 1e+39 would overflow f32",
                 dir);
  expect_refused(coarse(-1e39, Precision::f32), "the wavelet's samples are kept in f32", dir);
  expect_refused(coarse(1e39, Precision::f32), "allowed |amplitude| <= 3.40282e+38", dir);
  EXPECT_NO_THROW(wave::Solver{coarse(1e38, Precision::f32)});
  EXPECT_NO_THROW(wave::Solver{coarse(1e39, Precision::f64)});
  // In range: runs.
  c = good(dir);
  c.sources[0].delay = 1.0;
  EXPECT_NO_THROW(wave::Solver{c});
}
