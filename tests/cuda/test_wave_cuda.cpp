// The CUDA wave solver against the CPU reference: the fused update kernel (every compiled
// variant, odd shapes, poisoned outputs, in place), whole runs with CPML, a free surface,
// a layered model and several sources (traces and wavefields agree within a stated bound),
// bit-identical restart on the GPU, spatial convergence and the Green's function on the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>

#include "common/require_gpu.hpp"
#include "common/test_util.hpp"
#include "common/wave_cases.hpp"
#include "strata/device.hpp"
#include "strata/stencil.hpp"
#if STRATA_HAVE_CUDA
#include "verify/wave_check.hpp"
#include "cuda/wave/update.hpp"
#endif
#include "solvers/wave/solver.hpp"

using namespace strata;

namespace {

// A run exercising every piece: 5 CPML faces, free top, two layers, two off-grid sources
// (one delayed, negative), a receiver line and points, sampled every 2 steps.
wave::Config mixed_case(int order, Precision p, const std::string& device) {
  wave::Config c = test::wave_config({45, 38, 41}, order, p, device);
  for (auto& f : c.faces) f = wave::FaceKind::pml;
  c.faces[wave::zmin] = wave::FaceKind::free;
  c.pml_width = 10;
  c.model = wave::ModelKind::layered;
  c.layers = {{0.0, 1.0}, {18.0, 1.4}};
  c.sources = {{{22.3, 19.1, 12.6}, 0.06, 1.0, std::nullopt}, {{17.0, 21.5, 27.2}, 0.05, -0.7, 25.0}};
  c.receiver_lines = {{{11.5, 19.0, 3.5}, {33.5, 19.0, 3.5}, 12}};
  c.receiver_points = {{22.5, 19.5, 33.5}, {12.2, 12.7, 20.1}};
  c.receiver_every = 2;
  c.steps = 240;
  return c;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::fabs(a[i] - b[i]);
    m = std::isnan(d) ? INFINITY : std::max(m, d);
  }
  return m;
}

}  // namespace

#if STRATA_HAVE_CUDA

template <class T>
void check_variants() {
  std::vector<Extent> shapes = {{1, 1, 1}, {67, 9, 33}, {130, 7, 33}, {7, 65, 1}, {33, 1, 130}};
  if (std::getenv("STRATA_TEST_QUICK")) shapes = {{1, 1, 1}, {67, 9, 33}};
  const auto& variants = cuda::wave_update_variants<T>();
  int candidates = 0;
  for (const auto& v : variants) {
    candidates += v.candidate;
    const Stencil lap = Stencil::laplacian(2 * v.radius, 1.0);
    const std::vector<double> star(lap.coeffs().begin(), lap.coeffs().end());
    for (const Extent& n : shapes) {
      const std::string what = v.name + " radius " + std::to_string(v.radius) + " " + n.str() + " " +
                               to_string(precision_of<T>);
      Field<T> u(n, v.radius), up(n, v.radius), c2(n, v.radius), poisoned(n, v.radius), got(n, v.radius);
      // Random everywhere, ghosts included: the kernel must read exactly the star.
      std::mt19937_64 rng(7 + n.nx);
      std::uniform_real_distribution<double> d(-1, 1), c(0.05, 0.3);
      for (std::size_t i = 0; i < u.layout().size; ++i)
        u.data()[i] = T(d(rng)), up.data()[i] = T(d(rng)), c2.data()[i] = T(c(rng));
      test::poison(poisoned);
      Field<T> du(n, v.radius, Memory::device), dup(n, v.radius, Memory::device), dc2(n, v.radius, Memory::device),
          dout(n, v.radius, Memory::device);
      copy(u, du), copy(up, dup), copy(c2, dc2), copy(poisoned, dout);
      v.launch(star, du, dup, dc2, dout, nullptr, 0, {});
      device_synchronize();
      copy(dout, got);
      const auto m = cpu::check_leapfrog<T>(star, u, up, c2, got);
      EXPECT_TRUE(m.ok()) << what << ": " << m.str();
      EXPECT_EQ(test::outside_interior_diffs(got, poisoned), 0u) << what << ": wrote outside the interior";

      // A tuning candidate gives its policy's bits: the shape tuning picks never changes a run.
      if (v.candidate && !v.is_default) {
        const auto& policy = *std::find_if(variants.begin(), variants.end(), [&](const auto& p) {
          return p.is_default && p.radius == v.radius;
        });
        copy(poisoned, dout);
        policy.launch(star, du, dup, dc2, dout, nullptr, 0, {});
        device_synchronize();
        Field<T> want(n, v.radius);
        copy(dout, want);
        EXPECT_EQ(test::interior_bit_diffs(want, got), "")
            << what << " against the policy " << policy.name;
      }

      // In place over u_prev, as the solver runs it: same values, ghosts of u_prev untouched.
      v.launch(star, du, dup, dc2, dup, nullptr, 0, {});
      device_synchronize();
      Field<T> inplace(n, v.radius);
      copy(dup, inplace);
      const auto mi = cpu::check_leapfrog<T>(star, u, up, c2, inplace);
      EXPECT_TRUE(mi.ok()) << what << " in place: " << mi.str();
      EXPECT_EQ(test::outside_interior_diffs(inplace, up), 0u) << what << " in place: wrote outside the interior";

      // On a region of the interior (the solver's box inside the absorbing layers): the
      // whole-grid values inside it, bit for bit, and nothing written outside it.
      if (n.nx >= 12 && n.ny >= 4 && n.nz >= 6) {
        const cuda::Region r{8, 2, 3, n.nx - 11, n.ny - 3, n.nz - 5};
        copy(up, dup), copy(poisoned, dout);
        v.launch(star, du, dup, dc2, dout, nullptr, 0, r);
        device_synchronize();
        Field<T> part(n, v.radius);
        copy(dout, part);
        std::size_t wrong = 0;
        for (int z = 0; z < n.nz; ++z)
          for (int y = 0; y < n.ny; ++y)
            for (int x = 0; x < n.nx; ++x) {
              const bool in = x >= r.x0 && x < r.x0 + r.nx && y >= r.y0 && y < r.y0 + r.ny && z >= r.z0 &&
                              z < r.z0 + r.nz;
              const T want = in ? got(x, y, z) : poisoned(x, y, z);
              wrong += std::memcmp(&want, &part(x, y, z), sizeof(T)) != 0;
            }
        EXPECT_EQ(wrong, 0u) << what << " on region " << r.x0 << "," << r.y0 << "," << r.z0 << " + " << r.nx
                             << "x" << r.ny << "x" << r.nz;
        EXPECT_EQ(test::outside_interior_diffs(part, poisoned), 0u) << what << " on a region: wrote a ghost";
      }
    }
  }
  EXPECT_GE(candidates, 3) << "the radius-4 tuning candidates are registered";
}

TEST(WaveCuda, FusedUpdateMatchesReferenceOnOddShapes) {
  REQUIRE_GPU();
  check_variants<float>();
  check_variants<double>();
}

// The correlating update (the reversed step of a boundary-saving gradient) in every compiled
// shape: u_prev as the plain update stores it and, at each point of the region, the sum (in
// T) gains lambda * ((u_prev - 2 u) + out), lambda = q * (1 / c2), formed in double and
// rounded to T once, the same bits whatever the shape and z cut (the first shape is the one
// the solver runs; its default cut and a finer one), nothing written outside the region. q is
// random with a third of its points +0 or -0, as a backward sweep's is where the adjoint
// wave has not arrived.
template <class T>
void check_correlating_shapes() {
  const int R = 4;
  const Stencil lap = Stencil::laplacian(2 * R, 1.0);
  const std::vector<double> star(lap.coeffs().begin(), lap.coeffs().end());
  std::vector<Extent> shapes = {{67, 45, 37}, {130, 9, 70}};
  if (std::getenv("STRATA_TEST_QUICK")) shapes.resize(1);
  const auto& shapes_run = cuda::wave_correlating_variants<T>();
  ASSERT_GE(shapes_run.size(), 2u);
  EXPECT_TRUE(shapes_run.front().is_default);
  for (const Extent& n : shapes) {
    Field<T> u(n, R), up(n, R), c2(n, R), q(n, R);
    std::mt19937_64 rng(11 + n.nz);
    std::uniform_real_distribution<double> d(-1, 1), c(0.05, 0.3);
    for (std::size_t i = 0; i < u.layout().size; ++i)
      u.data()[i] = T(d(rng)), up.data()[i] = T(d(rng)), c2.data()[i] = T(c(rng)), q.data()[i] = T(d(rng));
    for (std::size_t i = 0; i < q.layout().size; ++i)
      if (rng() % 3 == 0) q.data()[i] = rng() % 2 ? T(0) : -T(0);
    std::vector<T> sums0(u.layout().size);
    for (T& v : sums0) v = T(d(rng));
    const std::ptrdiff_t origin = u.origin() - u.data();
    const cuda::Region region{4, 3, 2, n.nx - 9, n.ny - 5, n.nz - 6};
    std::vector<T> want_u;
    std::vector<T> want_sums;
    for (const auto& v : shapes_run)
      for (int z : {0, 7}) {
        const std::string what = v.name + "/z" + std::to_string(z) + " " + n.str() + " " + to_string(precision_of<T>);
        Field<T> du(n, R, Memory::device), dup(n, R, Memory::device), dc2(n, R, Memory::device),
            dq(n, R, Memory::device);
        copy(u, du), copy(up, dup), copy(c2, dc2), copy(q, dq);
        // The sums: a row of T indexed like the fields.
        const Extent row{int(sums0.size()), 1, 1};
        Field<T> hsums(row, 0), dsums(row, 0, Memory::device);
        std::copy(sums0.begin(), sums0.end(), hsums.data());
        copy(hsums, dsums);
        v.launch(star, du, dup, dc2, dup, dq.origin(), dsums.data() + origin, nullptr, z, region);
        device_synchronize();
        Field<T> got(n, R);
        copy(dup, got);
        copy(dsums, hsums);
        const std::vector<T> sums(hsums.data(), hsums.data() + sums0.size());
        if (want_u.empty()) {  // the first: its u_prev against the CPU's update, its sums by formula
          Field<T> whole(n, R);
          Field<T> dwhole(n, R, Memory::device), dup2(n, R, Memory::device);
          copy(up, dup2);
          cuda::wave_update<T>(star, du, dup2, dc2, dwhole, nullptr);
          device_synchronize();
          copy(dwhole, whole);
          EXPECT_TRUE(cpu::check_leapfrog<T>(star, u, up, c2, whole).ok()) << what;
          std::size_t wrong = 0;
          for (int zz = 0; zz < n.nz; ++zz)
            for (int y = 0; y < n.ny; ++y)
              for (int x = 0; x < n.nx; ++x) {
                const bool in = x >= region.x0 && x < region.x0 + region.nx && y >= region.y0 &&
                                y < region.y0 + region.ny && zz >= region.z0 && zz < region.z0 + region.nz;
                const std::size_t o = u.layout().index(x, y, zz);
                const T out = in ? whole(x, y, zz) : up(x, y, zz);
                wrong += std::memcmp(&out, &got(x, y, zz), sizeof(T)) != 0;
                T s = sums0[o];
                if (in) {
                  // lambda as kernels::lambda_of forms it: q times c2's reciprocal, each
                  // rounded (__drcp_rn and __dmul_rn).
                  const volatile double reciprocal = 1.0 / double(c2.data()[o]);
                  const volatile double lambda = double(q.data()[o]) * reciprocal;
                  // Rounded apart, as the kernel's __dmul_rn and __dadd_rn are (a host
                  // compiler may fuse a * b + c into one rounding where FMA is baseline).
                  const volatile double product =
                      lambda * ((double(up.data()[o]) - 2.0 * double(u.data()[o])) + double(out));
                  const volatile double sum = double(s) + product;
                  s = T(sum);
                }
                wrong += std::memcmp(&s, &sums[o], sizeof(T)) != 0;
              }
          EXPECT_EQ(wrong, 0u) << what << ": values or sums unlike the plain update's and the formula's";
          want_u.assign(got.data(), got.data() + got.layout().size);
          want_sums = sums;
        } else {
          EXPECT_EQ(std::memcmp(want_u.data(), got.data(), want_u.size() * sizeof(T)), 0)
              << what << ": u_prev differs from " << shapes_run.front().name;
          EXPECT_EQ(std::memcmp(want_sums.data(), sums.data(), sums.size() * sizeof(T)), 0)
              << what << ": the sums differ from " << shapes_run.front().name;
        }
      }
  }
}

TEST(WaveCuda, CorrelatingShapesGiveTheSameBits) {
  REQUIRE_GPU();
  check_correlating_shapes<float>();
  check_correlating_shapes<double>();
}

#endif  // STRATA_HAVE_CUDA

// CPU (double sums, one rounding per value) and GPU (T arithmetic, fused multiply-adds) do
// not round alike; over 240 steps the difference stays below 2e-4 (f32) / 1e-10 (f64) of the
// peak, traces and final wavefield alike.
TEST(WaveCuda, TracesAndWavefieldAgreeWithCpu) {
  REQUIRE_GPU();
  for (Precision p : {Precision::f32, Precision::f64})
    for (int order : {2, 4, 8}) {
      const double tol = p == Precision::f32 ? 2e-4 : 1e-10;
      wave::Solver cpu(mixed_case(order, p, "cpu")), gpu(mixed_case(order, p, "cuda"));
      cpu.advance(240);
      gpu.advance(240);
      const auto tc = cpu.traces(), tg = gpu.traces();
      const auto uc = cpu.wavefield(), ug = gpu.wavefield();
      const double et = max_diff(tc, tg) / max_abs(tc), eu = max_diff(uc, ug) / max_abs(uc);
      std::printf("%s order %d: traces differ by %.3e, wavefield by %.3e of the peak\n", to_string(p), order, et, eu);
      EXPECT_GT(max_abs(tc), 0.0);
      EXPECT_LT(et, tol) << to_string(p) << " order " << order;
      EXPECT_LT(eu, tol) << to_string(p) << " order " << order;
    }
}

// The absorbing layers are folded into the fused pass (kernels/wave_cpml.cuh): 24-point
// layers that straddle tile boundaries in x (the high layer spans 126-149 across tiles of 64
// or 128) and y (tiles of 16 or 32 rows), run over several z chunks in the layer-aware block
// order. Same bounds as above.
TEST(WaveCuda, CpmlLayersAcrossTilesAgreeWithCpu) {
  REQUIRE_GPU();
  for (Precision p : {Precision::f32, Precision::f64})
    for (int order : {2, 8}) {
      wave::Config c = test::wave_config({150, 60, 70}, order, p, "cpu");
      for (auto& f : c.faces) f = wave::FaceKind::pml;
      c.faces[wave::zmin] = wave::FaceKind::rigid;
      c.pml_width = 24;
      c.model = wave::ModelKind::layered;
      c.layers = {{0.0, 1.0}, {30.0, 1.3}};
      c.sources = {{{119.3, 30.2, 30.6}, 0.06, 1.0, std::nullopt}, {{30.5, 29.5, 20.5}, 0.05, -0.5, 20.0}};
      c.receiver_lines = {{{100.5, 5.5, 60.5}, {148.5, 55.5, 5.5}, 25}};
      c.steps = 240;
      const double tol = p == Precision::f32 ? 2e-4 : 1e-10;
      wave::Solver cpu(c);
      c.device = Device::cuda;
      wave::Solver gpu(c);
      cpu.advance(240);
      gpu.advance(240);
      const auto tc = cpu.traces(), tg = gpu.traces();
      const auto uc = cpu.wavefield(), ug = gpu.wavefield();
      const double et = max_diff(tc, tg) / max_abs(tc), eu = max_diff(uc, ug) / max_abs(uc);
      std::printf("%s order %d, wide layers: traces differ by %.3e, wavefield by %.3e of the peak\n", to_string(p),
                  order, et, eu);
      EXPECT_GT(max_abs(tc), 0.0);
      EXPECT_LT(et, tol) << to_string(p) << " order " << order;
      EXPECT_LT(eu, tol) << to_string(p) << " order " << order;
    }
}

// The GPU splits the grid into an interior box (plain fused update) and a shell of up to
// six boxes around it (update with the CPML terms; x slabs staged in shared memory when
// their width allows, else gathered per point). Layouts that stress the split: layers on
// some faces only, beside rigid, free and periodic faces; a width that is not a multiple of
// the x alignment; a grid whose layers leave no interior; a grid thinner than the tiles;
// x slabs too wide and too narrow to stage.
TEST(WaveCuda, CpmlShellLayoutsAgreeWithCpu) {
  REQUIRE_GPU();
  using wave::FaceKind;
  using Layout = test::LayersLayout;
  const FaceKind P = FaceKind::pml, G = FaceKind::rigid, F = FaceKind::free, W = FaceKind::periodic;
  const Layout layouts[] = {
      {"x and z high only", {37, 29, 31}, 7, {G, P, G, G, F, P}},
      {"periodic y", {33, 24, 30}, 6, {P, P, W, W, P, P}},
      {"no interior (f32), 2 wide (f64)", {24, 25, 28}, 10, {P, P, P, P, P, P}},
      {"thin y", {40, 5, 26}, 6, {P, P, G, G, F, P}},
      {"x slabs too wide to stage", {150, 20, 22}, 70, {P, P, G, G, F, G}},
      {"x slab too narrow to stage", {30, 26, 24}, 2, {G, P, P, G, G, P}},
  };
  for (const Layout& l : layouts)
    for (Precision p : {Precision::f32, Precision::f64}) {
      wave::Config c = test::wave_config(l.n, 8, p, "cpu");
      c.faces = l.faces;
      c.pml_width = l.width;
      const wave::Vec3 centre{0.5 * l.n.nx + 0.3, 0.5 * l.n.ny - 0.2, 0.5 * l.n.nz + 0.1};
      c.sources = {{centre, 0.08, 1.0, std::nullopt}};
      c.receiver_points = {{1.5, 0.5 * l.n.ny, 0.5 * l.n.nz}, {l.n.nx - 1.5, 1.5, l.n.nz - 1.5}};
      c.steps = 150;
      wave::Solver cpu(c);
      c.device = Device::cuda;
      wave::Solver gpu(c);
      // Errors are measured against the pulse's peak at step 60, while it is whole: by step
      // 150 the layers have absorbed most of it, and the final field's own peak says little.
      cpu.advance(60);
      const double peak = max_abs(cpu.wavefield());
      cpu.advance(90);
      gpu.advance(150);
      const auto uc = cpu.wavefield(), ug = gpu.wavefield();
      const auto tc = cpu.traces(), tg = gpu.traces();
      const double tol = p == Precision::f32 ? 2e-4 : 1e-10;
      EXPECT_GT(peak, 0.0) << l.name;
      EXPECT_LT(max_diff(uc, ug) / peak, tol) << l.name << " " << to_string(p) << ": wavefield";
      EXPECT_LT(max_diff(tc, tg) / max_abs(tc), tol) << l.name << " " << to_string(p) << ": traces";
      std::printf("%s %s: wavefield differs by %.3e, traces by %.3e of the peak\n", l.name, to_string(p),
                  max_diff(uc, ug) / peak, max_diff(tc, tg) / max_abs(tc));
    }
}

TEST(WaveCuda, RestartIsBitIdentical) {
  REQUIRE_GPU();
  test::TempDir dir("wave-cuda-restart");
  for (Precision p : {Precision::f32, Precision::f64}) {
    const wave::Config c = mixed_case(8, p, "cuda");
    wave::Solver whole(c);
    whole.advance(240);
    wave::Solver first(c);
    first.advance(97);
    first.save_checkpoint(dir / "ck.strata");
    wave::Solver resumed(c);
    resumed.load_checkpoint(dir / "ck.strata");
    resumed.advance(143);
    const auto a = whole.wavefield(), b = resumed.wavefield();
    const auto ta = whole.traces(), tb = resumed.traces();
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << to_string(p) << ": wavefield";
    ASSERT_EQ(ta.size(), tb.size());
    EXPECT_EQ(std::memcmp(ta.data(), tb.data(), ta.size() * sizeof(double)), 0) << to_string(p) << ": traces";
    // A CPU checkpoint continues on the GPU (same digest: the device is not physics).
    wave::Solver on_cpu(mixed_case(8, p, "cpu"));
    on_cpu.advance(40);
    on_cpu.save_checkpoint(dir / "cpu.strata");
    wave::Solver gpu_from_cpu(c);
    EXPECT_NO_THROW(gpu_from_cpu.load_checkpoint(dir / "cpu.strata"));
  }
}

TEST(WaveCuda, StandingWaveConvergesAtTheOrder) {
  REQUIRE_GPU();
  for (int order : {2, 4, 8}) {
    const int n0 = order == 8 ? 12 : 16;
    const double e1 = test::standing_wave_error(n0, order, Precision::f64, "cuda");
    const double e2 = test::standing_wave_error(2 * n0, order, Precision::f64, "cuda");
    const double c1 = test::standing_wave_error(n0, order, Precision::f64, "cpu");
    std::printf("cuda order %d: error %.3e -> %.3e, observed order %.2f (cpu %.3e)\n", order, e1, e2,
                std::log2(e1 / e2), c1);
    EXPECT_NEAR(std::log2(e1 / e2), order, 0.35);
    EXPECT_NEAR(e1, c1, 1e-9 + 1e-6 * c1) << "GPU and CPU errors differ";
  }
}

TEST(WaveCuda, GreensFunctionInFloat) {
  REQUIRE_GPU();
  wave::Config c = test::wave_config({64, 64, 64}, 8, Precision::f32, "cuda");
  for (auto& f : c.faces) f = wave::FaceKind::pml;
  c.pml_width = 10;
  c.cfl_safety = 0.5;
  const wave::Vec3 s{32.5, 32.5, 32.5};
  c.sources = {{s, 0.05, 1.0, std::nullopt}};
  for (double r : {6.0, 10.0, 14.0}) c.receiver_points.push_back({s.x + r, s.y, s.z});
  c.steps = 1;
  c.steps = int(76.0 / wave::Solver(c).plan().dt);
  wave::Solver sv(c);
  sv.advance(c.steps);
  const auto err = test::green_errors(sv);
  for (std::size_t k = 0; k < err.size(); ++k) {
    std::printf("cuda f32 receiver %zu: max error / max amplitude %.3e\n", k, err[k]);
    EXPECT_LT(err[k], 5e-3);
  }
}

TEST(WaveCuda, RunWritesOutputsAndReportsTheCopyRatio) {
  REQUIRE_GPU();
  test::TempDir dir("wave-cuda-run");
  wave::Config c = mixed_case(8, Precision::f32, "cuda");
  c.out_dir = dir / "out";
  c.snapshot_every = 120;
  c.checkpoint_every = 120;
  c.seismogram_png = true;  // the shared test configuration turns it off for speed
  wave::RunOptions opt;
  const wave::Report r = wave::run(c, opt);
  EXPECT_EQ(r.device, Device::cuda);
  EXPECT_GT(r.copy_gb_per_s, 0.0);
  EXPECT_GT(r.ratio_to_copy, 0.0);
  for (const char* f : {"seismogram.npy", "seismogram.png", "snapshots/u_000240.vti", "snapshots/u_000120.png",
                        "checkpoint.strata", "report.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / (std::string("out/") + f))) << f;
}

// STRATA_WAVE_TIMELINE=1: a GPU run's step milestones, in order and within the step; the CPU
// and a run without the setting report none.
TEST(WaveCuda, StepTimelineIsReportedWhenAskedAndOrdered) {
  struct Env {
    Env() { ::setenv("STRATA_WAVE_TIMELINE", "1", 1); }
    ~Env() { ::unsetenv("STRATA_WAVE_TIMELINE"); }
  };
  {
    const Env on;
    wave::SolverT<float> cpu(mixed_case(8, Precision::f32, "cpu"));
    cpu.advance(60);
    EXPECT_TRUE(cpu.step_timeline().empty());
  }
  REQUIRE_GPU();
  {
    wave::SolverT<float> off(mixed_case(8, Precision::f32, "cuda"));
    off.advance(60);
    EXPECT_TRUE(off.step_timeline().empty());
  }
  const Env on;
  wave::SolverT<float> gpu(mixed_case(8, Precision::f32, "cuda"));
  gpu.advance(19);  // the marked steps (20-51) not reached yet
  EXPECT_TRUE(gpu.step_timeline().empty());
  gpu.advance(61);
  std::map<std::string, double> t;
  for (const auto& [name, ms] : gpu.step_timeline()) t[name] = ms;
  ASSERT_TRUE(t.count("far_interior_done") && t.count("step_done")) << t.size();
  EXPECT_EQ(t.count("halo_done"), 0u);  // one process: no exchange
  EXPECT_GT(t["far_interior_done"], 0.0);
  EXPECT_LE(t["far_interior_done"], t["step_done"]);
  if (t.count("shell_joined")) {
    EXPECT_LE(t["shell_joined"], t["step_done"]);
  }
}
