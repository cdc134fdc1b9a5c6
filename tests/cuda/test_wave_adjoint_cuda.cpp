// The GPU's wave adjoint (src/cuda/wave/adjoint.cu) against the CPU's (the oracle, itself
// checked by the dot-product test in tests/cpu/test_wave_adjoint.cpp), the dot-product test
// of the GPU's forward step against the GPU's adjoint, and the misfit gradient on either
// device, and the Born operator on either. CPML on five faces with a free top, and
// periodic/rigid/free/CPML faces, f64 and f32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backend/wave.hpp"
#include "backend/wave_adjoint.hpp"
#include "common/imaging_cases.hpp"
#include "common/require_gpu.hpp"
#include "dispatch/backend.hpp"
#include "solvers/imaging/born.hpp"
#include "solvers/imaging/checkpointing.hpp"
#include "solvers/imaging/gradient.hpp"

using namespace strata;
using wave::FaceKind;

namespace {

const std::array<FaceKind, 6> kFiveLayers = {FaceKind::pml, FaceKind::pml,  FaceKind::pml,
                                             FaceKind::pml, FaceKind::free, FaceKind::pml};
const std::array<FaceKind, 6> kAllLayers = {FaceKind::pml, FaceKind::pml, FaceKind::pml,
                                            FaceKind::pml, FaceKind::pml, FaceKind::pml};
const std::array<FaceKind, 6> kMixed = {FaceKind::periodic, FaceKind::periodic, FaceKind::rigid,
                                        FaceKind::rigid,    FaceKind::free,     FaceKind::pml};

template <class T>
std::unique_ptr<wave::Backend<T>> forward(Memory m, const wave::Setup& s) {
  return on_backend(m, [&](auto tag) { return make_wave_backend<T>(tag, s); });
}
template <class T>
std::unique_ptr<wave::AdjointBackend<T>> adjoint(Memory m, const wave::Setup& s) {
  return on_backend(m, [&](auto tag) { return make_wave_adjoint<T>(tag, s); });
}

// max |got - want| / max |want| (0 / 0 for an all-zero want: the caller checks the scale).
double relative_error(const std::vector<double>& want, const std::vector<double>& got) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
    err = std::max(err, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return err / scale;
}

std::vector<wave::NamedArray<double>> random_state(const wave::Setup& s, unsigned seed) {
  std::mt19937_64 g(seed);
  return test::random_state(s, g);
}

// max |gpu - cpu| / max |cpu| over every array of the adjoint state after `steps` steps back,
// with receivers' values injected before each.
template <class T>
double gpu_against_cpu(const std::array<FaceKind, 6>& faces, int order, int steps,
                       Extent extent = {19, 17, 23}, int pml_width = 4) {
  const test::AdjointProblem p = test::adjoint_problem(order, faces, steps, extent, pml_width);
  const std::vector<T> v(p.velocity.begin(), p.velocity.end());
  auto cpu = adjoint<T>(Memory::host, p.setup), gpu = adjoint<T>(Memory::device, p.setup);
  cpu->set_velocity(v, p.dt_over_h);
  gpu->set_velocity(v, p.dt_over_h);
  const auto y = random_state(p.setup, 41);
  cpu->load(y);
  gpu->load(y);
  std::vector<double> rec(p.setup.receivers.size());
  for (int n = 0; n < steps; ++n) {
    for (std::size_t r = 0; r < rec.size(); ++r) rec[r] = std::sin(0.3 * n + double(r));
    cpu->inject_at_receivers(rec);
    gpu->inject_at_receivers(rec);
    cpu->step_back();
    gpu->step_back();
  }
  std::vector<double> sc(p.setup.sources.size()), sg(sc.size());
  cpu->sample_at_sources(sc);
  gpu->sample_at_sources(sg);
  double err = 0, scale = 0;
  for (std::size_t j = 0; j < sc.size(); ++j)
    err = std::max(err, std::fabs(sg[j] - sc[j]) / std::max(1.0, std::fabs(sc[j])));
  const auto a = cpu->save(), b = gpu->save();
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].name, b[k].name);
    for (std::size_t i = 0; i < a[k].data.size(); ++i) {
      err = std::max(err, std::fabs(a[k].data[i] - b[k].data[i]));
      scale = std::max(scale, std::fabs(a[k].data[i]));
    }
  }
  EXPECT_GT(scale, 0.0);
  return err / scale;
}

// <M x, y> against <x, M^T y> with the GPU's forward and the GPU's adjoint.
template <class T>
double gpu_dot_product(const std::array<FaceKind, 6>& faces, int order, int steps) {
  test::AdjointProblem p = test::adjoint_problem(order, faces, steps);
  p.setup.sources.clear();
  const std::vector<T> v(p.velocity.begin(), p.velocity.end());
  const auto x = random_state(p.setup, 5), y = random_state(p.setup, 6);
  auto fwd = forward<T>(Memory::device, p.setup);
  fwd->set_velocity(v, p.dt_over_h);
  fwd->load(test::narrow<T>(x));
  for (int n = 0; n < steps; ++n) fwd->step(n);
  const double lhs = test::state_dot(fwd->save(), y);
  auto adj = adjoint<T>(Memory::device, p.setup);
  adj->set_velocity(v, p.dt_over_h);
  adj->load(y);
  for (int n = 0; n < steps; ++n) adj->step_back();
  const double rhs = test::state_dot(test::narrow<T>(x), adj->save());
  return std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
}

}  // namespace

TEST(WaveAdjointCuda, AgreesWithTheCpuAdjoint) {
  REQUIRE_GPU();
  for (const auto& [faces, order] : {std::pair{kFiveLayers, 8}, std::pair{kMixed, 4}}) {
    const double e64 = gpu_against_cpu<double>(faces, order, 30),
                 e32 = gpu_against_cpu<float>(faces, order, 30);
    std::printf("order %d: GPU against CPU adjoint, f64 %.2e, f32 %.2e\n", order, e64, e32);
    EXPECT_LT(e64, 1e-12) << order;
    EXPECT_LT(e32, 1e-4) << order;
  }
}

// The layers' passes: kernels::adjoint_layer_tiles takes a layer a tile of lines at a time, a
// thread a point; kernels::adjoint_layer walks a line, a thread a line, where one line's reach
// is longer than a tile holds. On the first grid the z layers have more tiles than the GPU
// holds blocks at once (a block takes several), the reach is clipped at the grid's faces, and
// the radii are 1 and 3 (the test above takes 4 and 2); on the second, x layers 600 points deep
// (one line a tile); on the third, x layers 1100 deep, longer than a tile: the walk.
// (tests/emulated/adjoint_layers.cpp holds the two kernels to the same bits on a CPU.)
TEST(WaveAdjointCuda, LayersOfManyLinesAgreeWithTheCpu) {
  REQUIRE_GPU();
  const std::array<FaceKind, 6> deep_x = {FaceKind::pml,   FaceKind::pml,  FaceKind::rigid,
                                          FaceKind::rigid, FaceKind::free, FaceKind::rigid};
  struct Case {
    std::array<FaceKind, 6> faces;
    int order;
    Extent n;
    int width;
  };
  for (const Case& c :
       {Case{kAllLayers, 2, {600, 480, 30}, 8}, Case{kFiveLayers, 6, {600, 480, 30}, 8},
        Case{deep_x, 8, {1210, 14, 20}, 600}, Case{deep_x, 4, {2210, 6, 8}, 1100}}) {
    // STRATA_TEST_QUICK=1 (the sanitizer runs, which are slow): one precision a case.
    const bool quick = std::getenv("STRATA_TEST_QUICK") != nullptr, deep = c.width > 32;
    const double e64 = quick && !deep ? 0.0
                                      : gpu_against_cpu<double>(c.faces, c.order, 2, c.n, c.width),
                 e32 = quick && deep ? 0.0
                                     : gpu_against_cpu<float>(c.faces, c.order, 2, c.n, c.width);
    std::printf("order %d, %s, layers %d deep: GPU against CPU adjoint, f64 %.2e, f32 %.2e%s\n",
                c.order, c.n.str().c_str(), c.width, e64, e32,
                quick ? " (quick: one precision)" : "");
    EXPECT_LT(e64, 1e-12) << c.order;
    EXPECT_LT(e32, 1e-4) << c.order;
  }
}

TEST(WaveAdjointCuda, DotProductTestOfTheGpuStep) {
  REQUIRE_GPU();
  for (const auto& [faces, order] : {std::pair{kFiveLayers, 8}, std::pair{kMixed, 4}}) {
    const double m64 = gpu_dot_product<double>(faces, order, 25),
                 m32 = gpu_dot_product<float>(faces, order, 25);
    std::printf("order %d: GPU dot-product test, f64 %.2e, f32 %.2e\n", order, m64, m32);
    EXPECT_LT(m64, 1e-12) << order;
    EXPECT_LT(m32, 1e-5) << order;
  }
}

TEST(WaveAdjointCuda, GradientAgreesWithTheCpu) {
  REQUIRE_GPU();
  const int steps = 80;
  const test::AdjointProblem p = test::adjoint_problem(8, kFiveLayers, steps);
  imaging::Shot shot;
  shot.steps = steps;
  for (int n = 0; n < steps; ++n)
    for (std::size_t j = 0; j < p.setup.sources.size(); ++j)
      shot.wavelets.push_back(std::sin(0.2 * n) * (1.0 + j));
  shot.observed.assign(std::size_t(steps) * p.setup.receivers.size(), 0.01);
  const auto cpu =
      imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot);
  const auto gpu =
      imaging::misfit_gradient<double>(p.setup, Device::cuda, p.velocity, p.dt_over_h, shot);
  EXPECT_NEAR(gpu.misfit, cpu.misfit, 1e-12 * cpu.misfit);
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < cpu.gradient.size(); ++i) {
    err = std::max(err, std::fabs(gpu.gradient[i] - cpu.gradient[i]));
    scale = std::max(scale, std::fabs(cpu.gradient[i]));
  }
  std::printf("gradient, GPU against CPU: %.2e of its largest value\n", err / scale);
  EXPECT_GT(scale, 0.0);
  EXPECT_LT(err / scale, 1e-10);
}

// The imaging condition summed on the device (begin_imaging .. correlate) against the CPU's
// sums, in both precisions: the gradient and the illumination, with a second source on the
// first one's points (their injections are subtracted source by source) and with the states
// recomputed from a few checkpoints (the sums see every state once, in the schedule's order).
TEST(WaveAdjointCuda, ImagingConditionOnTheDeviceAgreesWithTheCpu) {
  REQUIRE_GPU();
  const int steps = 70;
  test::AdjointProblem p = test::adjoint_problem(8, kFiveLayers, steps);
  ASSERT_FALSE(p.setup.sources.empty());
  p.setup.sources.push_back(p.setup.sources.front());  // the same points again
  imaging::Shot shot;
  shot.steps = steps;
  for (int n = 0; n < steps; ++n)
    for (std::size_t j = 0; j < p.setup.sources.size(); ++j)
      shot.wavelets.push_back(std::sin(0.23 * n + double(j)) * (1.0 + 0.5 * double(j)));
  shot.observed.assign(std::size_t(steps) * p.setup.receivers.size(), 0.02);
  auto worst = [](const std::vector<double>& a, const std::vector<double>& b) {
    double err = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      err = std::max(err, std::fabs(a[i] - b[i]));
      scale = std::max(scale, std::fabs(a[i]));
    }
    EXPECT_GT(scale, 0.0);
    return err / scale;
  };
  for (const int checkpoints : {0, 5}) {
    imaging::GradientOptions o;
    o.checkpoints = checkpoints;
    const auto cpu =
        imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, o);
    const auto gpu =
        imaging::misfit_gradient<double>(p.setup, Device::cuda, p.velocity, p.dt_over_h, shot, o);
    ASSERT_EQ(gpu.gradient.size(), cpu.gradient.size());
    ASSERT_EQ(gpu.illumination.size(), cpu.illumination.size());
    EXPECT_LT(worst(cpu.gradient, gpu.gradient), 1e-10) << checkpoints << " checkpoints, f64";
    EXPECT_LT(worst(cpu.illumination, gpu.illumination), 1e-12)
        << checkpoints << " checkpoints, f64";
    std::vector<float> v32(p.velocity.begin(), p.velocity.end());
    const auto c32 =
        imaging::misfit_gradient<float>(p.setup, Device::cpu, v32, p.dt_over_h, shot, o);
    const auto g32 =
        imaging::misfit_gradient<float>(p.setup, Device::cuda, v32, p.dt_over_h, shot, o);
    EXPECT_LT(worst(c32.gradient, g32.gradient), 1e-3) << checkpoints << " checkpoints, f32";
    EXPECT_LT(worst(c32.illumination, g32.illumination), 1e-4)
        << checkpoints << " checkpoints, f32";
  }
}

// Checkpointing on the GPU changes the work, not the bits: a restore that is its slot's last
// use trades the slot's buffers with the live state's instead of copying them, and the
// gradient, misfit and illumination are those of the run that kept every state, in f64 and
// f32, CPML on five faces. Each count's schedule restores both ways (checked), and a slot
// handed back by a trade is stored into again before it is read.
TEST(WaveAdjointCuda, CheckpointingChangesTheWorkNotTheBits) {
  REQUIRE_GPU();
  const int steps = 60;
  const test::AdjointProblem p = test::adjoint_problem(8, kFiveLayers, steps);
  const imaging::Shot shot = test::make_shot(
      p, steps, [](int n, std::size_t j) { return std::sin(0.19 * n + double(j)); }, 0.015);
  auto both = [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> v(p.velocity.begin(), p.velocity.end());
    imaging::GradientOptions kept;
    kept.memory_budget = 1e12;
    kept.illumination = true;
    const auto all = imaging::misfit_gradient<T>(p.setup, Device::cuda, v, p.dt_over_h, shot, kept);
    ASSERT_EQ(all.forward_steps, steps);  // every state kept: nothing restored
    for (const int c : {2, 5, 11}) {
      int released = 0, copied = 0;
      for (imaging::CheckpointSchedule plan(steps + 1, c); const auto a = plan.next();)
        if (a->kind == imaging::CheckpointAction::restore) ++(a->release ? released : copied);
      EXPECT_GT(released, 0) << c;
      EXPECT_GT(copied, 0) << c;
      imaging::GradientOptions o;
      o.checkpoints = c;
      o.illumination = true;
      const auto g = imaging::misfit_gradient<T>(p.setup, Device::cuda, v, p.dt_over_h, shot, o);
      EXPECT_GT(g.forward_steps, steps) << c;
      EXPECT_EQ(g.misfit, all.misfit) << c;
      EXPECT_EQ(g.gradient, all.gradient) << c << " states kept, " << sizeof(T) * 8 << " bits";
      EXPECT_EQ(g.illumination, all.illumination) << c;
    }
  };
  both(double{});
  both(float{});
}

// The imaging passes launch rows (y, z) over blockIdx.y, at most 65535 of them: a grid of more
// rows than that (20 x 260 x 260: 67600) has blocks that take a second row; its sums must
// still be the CPU's.
TEST(WaveAdjointCuda, ImagingPassesCoverMoreRowsThanOneLaunchHas) {
  REQUIRE_GPU();
  const int steps = 12;
  const test::AdjointProblem p = test::adjoint_problem(4, kFiveLayers, steps, {20, 260, 260}, 4);
  imaging::Shot shot;
  shot.steps = steps;
  for (int n = 0; n < steps; ++n)
    for (std::size_t j = 0; j < p.setup.sources.size(); ++j)
      shot.wavelets.push_back(std::cos(0.4 * n + double(j)));
  shot.observed.assign(std::size_t(steps) * p.setup.receivers.size(), 0.01);
  const auto cpu =
      imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, {});
  const auto gpu =
      imaging::misfit_gradient<double>(p.setup, Device::cuda, p.velocity, p.dt_over_h, shot, {});
  ASSERT_EQ(gpu.gradient.size(), cpu.gradient.size());
  double err = 0, scale = 0, lerr = 0, lscale = 0;
  for (std::size_t i = 0; i < cpu.gradient.size(); ++i) {
    err = std::max(err, std::fabs(cpu.gradient[i] - gpu.gradient[i]));
    scale = std::max(scale, std::fabs(cpu.gradient[i]));
    lerr = std::max(lerr, std::fabs(cpu.illumination[i] - gpu.illumination[i]));
    lscale = std::max(lscale, std::fabs(cpu.illumination[i]));
  }
  ASSERT_GT(scale, 0.0);
  ASSERT_GT(lscale, 0.0);
  EXPECT_LT(err / scale, 1e-10);
  EXPECT_LT(lerr / lscale, 1e-12);
}

// Boundary saving on the GPU (its rings in device memory, the field run backward there)
// against the CPU's, and against checkpointing on the GPU in the interior.
TEST(WaveAdjointCuda, BoundarySavingOnTheGpuAgreesWithTheCpu) {
  REQUIRE_GPU();
  const int steps = 90;
  const test::AdjointProblem p = test::adjoint_problem(
      8,
      {FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::free, FaceKind::pml},
      steps, {30, 26, 28}, 7);
  const imaging::Shot shot = test::make_shot(
      p, steps, [](int n, std::size_t j) { return std::sin(0.21 * n) * (1.0 + double(j)); });
  const imaging::GradientOptions bs{.boundary_saving = true};
  const auto cpu =
      imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, bs);
  const auto gpu =
      imaging::misfit_gradient<double>(p.setup, Device::cuda, p.velocity, p.dt_over_h, shot, bs);
  const auto kept =
      imaging::misfit_gradient<double>(p.setup, Device::cuda, p.velocity, p.dt_over_h, shot, {});
  EXPECT_TRUE(gpu.boundary_saving);
  EXPECT_EQ(gpu.forward_steps, 2 * steps);
  ASSERT_EQ(gpu.gradient.size(), cpu.gradient.size());
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < cpu.gradient.size(); ++i) {
    err = std::max(err, std::fabs(gpu.gradient[i] - cpu.gradient[i]));
    scale = std::max(scale, std::fabs(cpu.gradient[i]));
  }
  EXPECT_GT(scale, 0.0);
  EXPECT_LT(err / scale, 1e-10) << "boundary saving, GPU against CPU";
  // Where boundary saving gives a value (not zeroed in the layers), checkpointing's agrees.
  double worst = 0;
  for (std::size_t i = 0; i < gpu.gradient.size(); ++i)
    if (gpu.gradient[i] != 0.0)
      worst = std::max(worst, std::fabs(gpu.gradient[i] - kept.gradient[i]));
  EXPECT_LT(worst / scale, 1e-10) << "boundary saving against kept states, both on the GPU";
  EXPECT_TRUE(gpu.fused_imaging);  // the correlation inside the reversed step
  EXPECT_FALSE(cpu.fused_imaging);
  // The reversed steps ran beside the adjoint's: only the first sweep's are timed as forward.
  EXPECT_EQ(gpu.forward_timed_steps, steps);
  EXPECT_EQ(cpu.forward_timed_steps, 2 * steps);
  // f32: the GPU sums each block of 32 steps in f32 (over 90 steps: two blocks and a part,
  // each added into a double total), the CPU in double; as the f32 checkpointing runs agree.
  const std::vector<float> v32(p.velocity.begin(), p.velocity.end());
  const auto c32 =
      imaging::misfit_gradient<float>(p.setup, Device::cpu, v32, p.dt_over_h, shot, bs);
  const auto g32 =
      imaging::misfit_gradient<float>(p.setup, Device::cuda, v32, p.dt_over_h, shot, bs);
  ASSERT_EQ(g32.gradient.size(), c32.gradient.size());
  EXPECT_LT(relative_error(c32.gradient, g32.gradient), 1e-3)  // NaN (an all-zero CPU's) fails
      << "boundary saving, GPU against CPU, f32";
  EXPECT_TRUE(g32.fused_imaging);
}

// The run with `fused` and again with its correlation as a pass of its own
// (GradientOptions::fused_imaging false): the first fused it, the second did not, with the same
// bits (the gradient, not all zero, the misfit, the samples and the illumination). Returns
// the fused run.
template <class T>
imaging::Gradient expect_fused_is_the_pass(const test::AdjointProblem& p, const imaging::Shot& shot,
                                           const imaging::GradientOptions& fused,
                                           const std::string& what) {
  imaging::GradientOptions pass = fused;
  pass.fused_imaging = false;
  const std::vector<T> v(p.velocity.begin(), p.velocity.end());
  imaging::Gradient a =
      imaging::misfit_gradient<T>(p.setup, Device::cuda, v, p.dt_over_h, shot, fused);
  const auto b = imaging::misfit_gradient<T>(p.setup, Device::cuda, v, p.dt_over_h, shot, pass);
  EXPECT_TRUE(a.fused_imaging) << what;
  EXPECT_FALSE(b.fused_imaging) << what;
  EXPECT_EQ(a.boundary_saving, fused.boundary_saving) << what;
  EXPECT_EQ(a.gradient.size(), b.gradient.size()) << what;
  std::size_t differ = 0, nonzero = 0;
  for (std::size_t i = 0; i < std::min(a.gradient.size(), b.gradient.size()); ++i) {
    differ += std::memcmp(&a.gradient[i], &b.gradient[i], sizeof(double)) != 0;
    nonzero += a.gradient[i] != 0.0;
  }
  EXPECT_EQ(differ, 0u) << what;
  EXPECT_GT(nonzero, 100u) << what;  // the interior is not all zero
  EXPECT_EQ(a.misfit, b.misfit) << what;
  EXPECT_EQ(a.predicted, b.predicted) << what;
  EXPECT_EQ(a.illumination, b.illumination) << what;
  return a;
}

namespace {
// A fused-imaging case as its messages name it: "f32 order 8 free top gradient".
template <class T>
std::string case_name(int order, const std::array<FaceKind, 6>& faces, bool migrate) {
  return std::string(sizeof(T) == 4 ? "f32" : "f64") + " order " + std::to_string(order) +
         (faces[4] == FaceKind::free ? " free top" : "") + (migrate ? " migrate" : " gradient");
}
}  // namespace

// Boundary saving's correlation fused into the reversed step (LeapfrogCorrelate, the rest's
// points after it) gives the bits of the correlation's own pass, for the gradient and the
// image, f32 and f64, radius 1 and 4, with and without a free top, the sources inside the
// step's interior update and in the x band the shell keeps (the interior's x start is
// rounded up to a 32-byte sector), with random data, on 30x26x28 and odd 31x23x27 grids whose
// interiors are not whole numbers of tiles, and on 80x14x24 with x layers 30 deep.
TEST(WaveAdjointCuda, FusedImagingConditionIsThePassBitForBit) {
  REQUIRE_GPU();
  std::mt19937_64 rng(2026);
  auto check = [&](auto tag, int order, const std::array<FaceKind, 6>& faces, bool migrate,
                   Extent shape = {30, 26, 28}, int pml_width = 7, const std::string& more = "") {
    using T = decltype(tag);
    const int steps = 50;
    const test::AdjointProblem p = test::adjoint_problem(order, faces, steps, shape, pml_width);
    const imaging::Shot shot = test::noisy_shot(p, steps, rng);
    expect_fused_is_the_pass<T>(p, shot, {.migrate = migrate, .boundary_saving = true},
                                case_name<T>(order, faces, migrate) + more);
  };
  // STRATA_TEST_QUICK=1 (the sanitizer runs, which are slow): the migrate case and the odd grid.
  if (!std::getenv("STRATA_TEST_QUICK"))
    for (int order : {2, 8})
      for (const auto& faces : {kFiveLayers, kAllLayers}) {
        check(float{}, order, faces, false);
        check(double{}, order, faces, false);
      }
  check(float{}, 8, kFiveLayers, true);
  check(double{}, 8, kFiveLayers, false, {31, 23, 27});  // odd sizes: a partial tile everywhere
  // x layers 30 deep (fewer lines a tile of the step back's layer pass), beside the reversed
  // step.
  const std::array<FaceKind, 6> deep_x = {FaceKind::pml,   FaceKind::pml,  FaceKind::rigid,
                                          FaceKind::rigid, FaceKind::free, FaceKind::rigid};
  check(float{}, 8, deep_x, false, {80, 14, 24}, 30, ", x layers 30 deep");
}

// STRATA_IMAGING_TIMELINE=1 (a diagnostic, read when the backend is made): a fused
// boundary-saving run says where its backward steps' time went, each milestone in its
// stream's order within the step (medians keep that order), and changes no bit; without it
// the run says nothing.
TEST(WaveAdjointCuda, ImagingTimelineSaysWhereABackwardStepGoes) {
  REQUIRE_GPU();
  const int steps = 60;  // the marked steps are 20 .. 51 of the backward sweep
  const test::AdjointProblem p = test::adjoint_problem(8, kFiveLayers, steps, {30, 26, 28}, 7);
  std::mt19937_64 rng(40);
  const imaging::Shot shot = test::noisy_shot(p, steps, rng);
  const std::vector<float> v(p.velocity.begin(), p.velocity.end());
  const imaging::GradientOptions bs{.boundary_saving = true};
  const auto off = imaging::misfit_gradient<float>(p.setup, Device::cuda, v, p.dt_over_h, shot, bs);
  ::setenv("STRATA_IMAGING_TIMELINE", "1", 1);
  const auto on = imaging::misfit_gradient<float>(p.setup, Device::cuda, v, p.dt_over_h, shot, bs);
  ::unsetenv("STRATA_IMAGING_TIMELINE");
  EXPECT_TRUE(off.step_timeline_ms.empty());
  ASSERT_TRUE(on.fused_imaging);
  EXPECT_EQ(on.gradient, off.gradient);
  std::vector<std::string> names;
  for (const auto& [name, ms] : on.step_timeline_ms) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"reversed_done", "rest_done", "bulk_done", "back_done",
                                             "step_done"}));
  std::map<std::string, double> t(on.step_timeline_ms.begin(), on.step_timeline_ms.end());
  EXPECT_GT(t["reversed_done"], 0.0);
  EXPECT_LE(t["reversed_done"], t["rest_done"]);
  EXPECT_LE(t["rest_done"], t["step_done"]);
  EXPECT_LE(t["bulk_done"], t["back_done"]);
  EXPECT_LE(t["back_done"], t["step_done"]);
}

// Checkpointing's correlation fused into the adjoint's step back (AdjointCorrelate, the
// sources' points' sums made before it and put back after) gives the bits of the
// correlation's own pass, for the gradient and the image (its illumination summed too), f32
// and f64, radius 1 and 4, with and without a free top, with 3 kept states (states recomputed
// and restored) and every state kept, on 30x26x28 and odd 31x23x27 grids.
TEST(WaveAdjointCuda, CheckpointingFusedImagingConditionIsThePassBitForBit) {
  REQUIRE_GPU();
  std::mt19937_64 rng(2027);
  auto check = [&](auto tag, int order, const std::array<FaceKind, 6>& faces, bool migrate,
                   int checkpoints, Extent shape = {30, 26, 28}) {
    using T = decltype(tag);
    const int steps = 40;
    const test::AdjointProblem p = test::adjoint_problem(order, faces, steps, shape, 7);
    const imaging::Shot shot = test::noisy_shot(p, steps, rng);
    const std::string what =
        case_name<T>(order, faces, migrate) + " " + std::to_string(checkpoints) + " kept";
    const imaging::Gradient a = expect_fused_is_the_pass<T>(
        p, shot, {.checkpoints = checkpoints, .migrate = migrate}, what);
    if (checkpoints > 0) {
      EXPECT_GT(a.forward_steps, steps) << what << ": nothing recomputed";
    }
  };
  // STRATA_TEST_QUICK=1 (the sanitizer runs, which are slow): the migrate case and the odd grid.
  if (!std::getenv("STRATA_TEST_QUICK")) {
    for (int order : {2, 8})
      for (const auto& faces : {kFiveLayers, kAllLayers}) {
        check(float{}, order, faces, false, 3);
        check(double{}, order, faces, false, 3);
      }
    check(double{}, 8, kFiveLayers, false, 0);  // every state kept
  }
  check(float{}, 8, kFiveLayers, true, 3);
  check(float{}, 8, kFiveLayers, false, 5, {31, 23, 27});  // odd sizes: a partial tile everywhere
}

// Where the GPU's interior update starts in x: the interior's x start rounded up to a 32-byte
// sector (CudaBackend::set_shell). The columns before it, inside the interior, the shell's
// low x face box updates.
template <class T>
int interior_update_x0(const wave::Setup& s) {
  const int lo = wave::interior_box(s)[0][0], sector = 32 / int(sizeof(T));
  return (lo + sector - 1) / sector * sector;
}

// Boundary saving's reversed step on the GPU leaves the absorbing layers
// (Backend::step_without_layers): one step from a random state has the whole step's bits in
// the interior box, the columns between its x start and the interior update's included (the
// shell's low x face box updated them: now a box of their own, of that box's kind), and
// writes nothing outside it, psi and zeta left. Those columns are 1, 2, 3 and 7 wide, staged
// (fewer rows than the shell's slabs where narrow) and gathered (layers too deep to stage);
// where the rounding leaves the interior update no points (f32, an interior 4 wide), the
// whole step runs.
TEST(WaveAdjointCuda, ReversedStepWithoutTheLayersIsTheStepInTheInterior) {
  REQUIRE_GPU();
  test::expect_reversed_step_is_the_step_in_the_interior(
      [](auto tag, const wave::Setup& s) { return forward<decltype(tag)>(Memory::device, s); },
      [](auto tag, const wave::Setup& s) {
        return interior_update_x0<decltype(tag)>(s) < wave::interior_box(s)[1][0];
      });
}

// The gradient and the image with boundary saving on the GPU, the reversed steps left off the
// layers (the default) and updating them (GradientOptions::reversed_step_updates_layers), have
// the same bits: fused and unfused, f32 and f64, orders 2 and 8, with and without a free top,
// layers 7 deep (one column between the interior's x start and the interior update's) and 9
// (7 columns in f32, 3 in f64), the gradient not zero in those columns.
TEST(WaveAdjointCuda, BoundarySavingLeavesTheLayersBitForBit) {
  REQUIRE_GPU();
  std::mt19937_64 rng(2040);
  auto check = [&](auto tag, int order, const std::array<FaceKind, 6>& faces, int width,
                   bool fused) {
    using T = decltype(tag);
    const Extent shape{width == 7 ? 30 : 34, 26, 28};
    const test::AdjointProblem p = test::adjoint_problem(order, faces, 50, shape, width);
    const std::string what = std::string(sizeof(T) == 4 ? "f32" : "f64") + " order " +
                             std::to_string(order) + " width " + std::to_string(width) +
                             (faces[4] == FaceKind::free ? " free top" : "") +
                             (fused ? " fused" : " unfused");
    const imaging::Gradient a = test::expect_layers_left_with_the_same_bits<T>(
        p, Device::cuda, fused, order == 8 && faces == kFiveLayers, rng, what);
    EXPECT_EQ(a.fused_imaging, fused) << what;
    // The columns, inside the interior's y and z: compared above, and not all zero.
    const auto box = wave::interior_box(p.setup);
    const int x0 = interior_update_x0<T>(p.setup);
    ASSERT_LT(box[0][0], x0) << what << ": no columns";
    std::size_t columns = 0;
    for (int z = box[0][2]; z < box[1][2]; ++z)
      for (int y = box[0][1]; y < box[1][1]; ++y)
        for (int x = box[0][0]; x < x0; ++x)
          columns += a.gradient[(std::size_t(z) * std::size_t(p.n.ny) + std::size_t(y)) *
                                    std::size_t(p.n.nx) +
                                std::size_t(x)] != 0.0;
    EXPECT_GT(columns, 0u) << what;
  };
  // STRATA_TEST_QUICK=1 (the sanitizer runs): order 8 with five layers, f32 at width 9 (7
  // columns) and f64 at width 7, fused and not.
  const bool quick = std::getenv("STRATA_TEST_QUICK") != nullptr;
  for (bool fused : {true, false})
    for (int width : {7, 9})
      for (int order : {2, 8})
        for (const auto& faces : {kFiveLayers, kAllLayers}) {
          if (quick && (order != 8 || faces != kFiveLayers)) continue;
          if (!quick || width == 9) check(float{}, order, faces, width, fused);
          if (!quick || width == 7) check(double{}, order, faces, width, fused);
        }
}

TEST(WaveAdjointCuda, BornAgreesWithTheCpu) {
  REQUIRE_GPU();
  const int steps = 60;
  const test::AdjointProblem p = test::adjoint_problem(8, kFiveLayers, steps);
  imaging::Shot shot;
  shot.steps = steps;
  for (int n = 0; n < steps; ++n)
    for (std::size_t j = 0; j < p.setup.sources.size(); ++j)
      shot.wavelets.push_back(std::cos(0.2 * n) * (1.0 + j));
  std::vector<double> dm(p.velocity.size());
  for (std::size_t i = 0; i < dm.size(); ++i) dm[i] = 0.1 * std::sin(0.37 * double(i));
  const auto cpu = imaging::born<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, dm);
  const auto gpu = imaging::born<double>(p.setup, Device::cuda, p.velocity, p.dt_over_h, shot, dm);
  ASSERT_EQ(cpu.size(), gpu.size());
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    err = std::max(err, std::fabs(gpu[i] - cpu[i]));
    scale = std::max(scale, std::fabs(cpu[i]));
  }
  std::printf("Born, GPU against CPU: %.2e of its largest value\n", err / scale);
  EXPECT_GT(scale, 0.0);
  EXPECT_LT(err / scale, 1e-10);
}
