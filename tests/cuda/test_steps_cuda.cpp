// Repeated stencil steps on the GPU: against the CPU's steps for every stencil kind,
// boundary, precision and update on odd shapes; `repeat` against that many device passes
// bit for bit; an odd step count leaves the result in the caller's field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>

#include "common/require_gpu.hpp"
#include "backend/stencil.hpp"
#include "common/test_util.hpp"
#include "dispatch/backend.hpp"
#include "strata/apply.hpp"
#include "strata/steps.hpp"
#include "verify/stencil_check.hpp"

namespace strata {
namespace {

template <class T>
void against_host(const Stencil& s, const Boundary& bc, Extent n, int steps, StepOptions o, std::uint64_t seed) {
  Field<T> h(n);
  test::fill_random(h, seed);
  Field<T> d(n, h.ghost(), Memory::device), back(n, h.ghost());
  copy(h, d);
  apply_steps(s, h, bc, steps, o);
  apply_steps(s, d, bc, steps, o);
  copy(d, back);
  const double tol = verify::steps_bound(s, o, steps, double(std::numeric_limits<T>::epsilon()));
  const double worst = verify::worst_relative(back, h);
  EXPECT_LE(worst, tol) << s.describe() << " " << bc.describe() << " " << n.str() << " steps " << steps
                        << (o.update == StepUpdate::relax ? " relax" : " repeat");
}

TEST(StepsCuda, MatchTheCpuForEveryKindBoundaryAndUpdate) {
  REQUIRE_GPU();
  std::uint64_t seed = 5;
  for (Extent n : {Extent{67, 45, 37}, Extent{130, 9, 17}})
    for (const Boundary& bc : {Boundary::dirichlet(-0.5), Boundary::neumann(), Boundary::periodic()})
      for (int steps : {1, 4, 7}) {
        for (int r = 1; r <= 4; ++r) {
          const Stencil s = Stencil::laplacian(2 * r, 1.0);
          against_host<float>(s, bc, n, steps, {StepUpdate::relax, 0.05}, ++seed);
          against_host<double>(s, bc, n, steps, {StepUpdate::relax, 0.05}, ++seed);
        }
        const Stencil box = test::random_stencil(StencilKind::box27, 1, ++seed);
        against_host<float>(box, bc, n, steps, {StepUpdate::repeat, 0}, seed);
        against_host<double>(Stencil::fe27(), bc, n, steps, {StepUpdate::relax, 0.01}, ++seed);
      }
}

TEST(StepsCuda, RepeatIsThatManyDevicePassesBitForBit) {
  REQUIRE_GPU();
  const Extent n{45, 19, 23};
  const Stencil s = test::random_stencil(StencilKind::star, 3, 17);
  Field<float> h(n);
  test::fill_random(h, 2);
  Field<float> a(n, h.ghost(), Memory::device), b(n, h.ghost(), Memory::device), tmp(n, h.ghost(), Memory::device);
  copy(h, a);
  copy(h, b);
  apply_steps(s, a, Boundary::periodic(), 5, {StepUpdate::repeat, 0});
  for (int t = 0; t < 5; ++t) {
    apply(s, b, tmp, Boundary::periodic());
    copy(tmp, b);
  }
  Field<float> ha(n, h.ghost()), hb(n, h.ghost());
  copy(a, ha);
  copy(b, hb);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        ASSERT_EQ(std::memcmp(&ha(x, y, z), &hb(x, y, z), sizeof(float)), 0) << x << " " << y << " " << z;
}

// The temporal-blocking passes against single steps on the device, bit for bit: stars of
// radius 1..4 and both 27-point stencils, k = 2..4 (and step counts that leave a
// remainder), both updates, every boundary rule, shapes with partial tiles in every axis
// and axes shorter than the halo. 150 x 121 holds, for every pass's window (up to 64 x 64),
// blocks whose window lies inside the domain in x and y: the kernel's instance of the step
// without ghost rules, which a shape under 116 points in y never runs.
template <class T>
void fused_against_single(const Stencil& s, const Boundary& bc, Extent n, int steps, int fuse, StepOptions o,
                          std::uint64_t seed) {
  const int ghost = 8;  // periodic passes of k steps need k R ghost layers
  Field<T> h(n, ghost);
  test::fill_random(h, seed);
  Field<T> a(n, ghost, Memory::device), b(n, ghost, Memory::device);
  copy(h, a);
  copy(h, b);
  StepOptions single = o, fused = o;
  single.fuse = 1;
  fused.fuse = fuse;
  apply_steps(s, a, bc, steps, single);
  apply_steps(s, b, bc, steps, fused);
  Field<T> ha(n, ghost), hb(n, ghost);
  copy(a, ha);
  copy(b, hb);
  EXPECT_EQ(test::interior_bit_diffs(ha, hb), "")
      << s.describe() << " " << bc.describe() << " " << n.str() << " steps " << steps << " fuse " << fuse
      << (o.update == StepUpdate::relax ? " relax" : " repeat") << ": fused against single steps";
}

TEST(StepsCuda, FusedPassesAreTheSingleStepsBitForBit) {
  REQUIRE_GPU();
  std::uint64_t seed = 21;
  for (Extent n : {Extent{150, 121, 37}, Extent{33, 5, 3}, Extent{7, 40, 66}})
    for (const Boundary& bc : {Boundary::dirichlet(0.5), Boundary::neumann(), Boundary::periodic()})
      for (int r = 1; r <= 4; ++r)
        for (int fuse = 2; fuse <= 4; ++fuse) {
          const Stencil s = Stencil::laplacian(2 * r, 1.0);
          fused_against_single<float>(s, bc, n, 2 * fuse + 1, fuse, {StepUpdate::relax, 0.04}, ++seed);
          fused_against_single<double>(s, bc, n, fuse, fuse, {StepUpdate::relax, 0.04}, ++seed);
          const Stencil rnd = test::random_stencil(StencilKind::star, r, ++seed);
          fused_against_single<float>(rnd, bc, n, fuse, fuse, {StepUpdate::repeat, 0}, seed);
        }
  for (Extent n : {Extent{150, 121, 37}, Extent{33, 5, 3}})
    for (const Boundary& bc : {Boundary::dirichlet(0.5), Boundary::neumann(), Boundary::periodic()})
      for (int fuse = 2; fuse <= 4; ++fuse) {
        fused_against_single<float>(Stencil::fe27(), bc, n, fuse + 1, fuse, {StepUpdate::relax, 0.02}, ++seed);
        seed += 2;
        fused_against_single<double>(test::random_stencil(StencilKind::box27, 1, seed), bc, n, fuse, fuse,
                                     {StepUpdate::repeat, 0}, seed);
        fused_against_single<float>(test::random_stencil(StencilKind::sym27, 1, seed + 1), bc, n, fuse, fuse,
                                    {StepUpdate::relax, -0.03}, seed + 1);
      }
}

// fuse = 0 takes the measured table (src/cuda/tuning/steps_policy.hpp) and gives the bits
// of single steps, periodic faces included (ghosts for the chosen k, or fewer: then k is capped).
TEST(StepsCuda, AutomaticFuseIsTheTableAndTheSingleStepsBits) {
  REQUIRE_GPU();
  EXPECT_EQ(auto_fuse<float>(Stencil::laplacian(2), Memory::device), 3);
  EXPECT_EQ(auto_fuse<double>(Stencil::laplacian(2), Memory::device), 3);
  EXPECT_EQ(auto_fuse<float>(Stencil::laplacian(4), Memory::device), 2);
  EXPECT_EQ(auto_fuse<double>(Stencil::laplacian(4), Memory::device), 1);
  EXPECT_EQ(auto_fuse<float>(Stencil::laplacian(8), Memory::device), 1);
  EXPECT_EQ(auto_fuse<float>(Stencil::fe27(), Memory::device), 1);
  std::uint64_t seed = 77;
  for (const Boundary& bc : {Boundary::dirichlet(0.5), Boundary::neumann(), Boundary::periodic()}) {
    fused_against_single<float>(Stencil::laplacian(2), bc, {70, 45, 29}, 8, 0, {StepUpdate::relax, 0.05}, ++seed);
    fused_against_single<double>(Stencil::laplacian(2), bc, {33, 60, 17}, 7, 0, {StepUpdate::repeat, 0}, ++seed);
    fused_against_single<float>(Stencil::laplacian(4), bc, {40, 21, 30}, 5, 0, {StepUpdate::relax, 0.02}, ++seed);
  }
}

// Dirichlet ghosts are filled once per field and again after a fused pass wrote it, not
// before every step: u with NaN ghosts and a scratch of NaN give, for every step count and
// fuse request (passes the stencil has, lacks, and remainders after them), the bits of that
// many device passes of apply (which fills before each).
TEST(StepsCuda, DirichletGhostsAreFilledBeforeEachFieldsFirstSingleStep) {
  REQUIRE_GPU();
  const Extent n{37, 29, 21};
  const int ghost = 8;
  const Boundary bc = Boundary::dirichlet(-0.75);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::uint64_t seed = 90;
  for (const Stencil& s : {Stencil::laplacian(2), Stencil::laplacian(8), Stencil::fe27(),
                           test::random_stencil(StencilKind::box27, 1, 4)})
    for (int fuse = 1; fuse <= 4; ++fuse)
      for (int steps = 1; steps <= 7; ++steps) {
        Field<float> h(n, ghost), nans(n, ghost);
        std::fill(h.data(), h.data() + h.layout().size, nan);
        std::fill(nans.data(), nans.data() + nans.layout().size, nan);
        test::fill_random(h, ++seed);
        Field<float> u(n, ghost, Memory::device), scratch(n, ghost, Memory::device);
        Field<float> ref(n, ghost, Memory::device), tmp(n, ghost, Memory::device);
        copy(h, u);
        copy(h, ref);
        copy(nans, scratch);
        copy(nans, tmp);
        apply_steps(s, u, scratch, bc, steps, {StepUpdate::repeat, 0, fuse});
        for (int t = 0; t < steps; ++t) {
          apply(s, ref, tmp, bc);
          copy(tmp, ref);
        }
        Field<float> got(n, ghost), want(n, ghost);
        copy(u, got);
        copy(ref, want);
        const std::string what = s.describe() + " fuse " + std::to_string(fuse) + " steps " + std::to_string(steps);
        EXPECT_EQ(test::interior_bit_diffs(want, got), "") << what;
      }
}

// The relaxation pass on regions that tile the interior (as the distributed steps' interior
// and shell do: x cuts on 16 bytes, y and z anywhere) gives the whole pass's bits, and one
// region's pass writes nothing outside it; every stencil family, both precisions.
template <class T>
void relax_by_regions(const Stencil& s, std::uint64_t seed) {
  const Extent n{70, 37, 45};
  Field<T> h(n, 4), nans(n, 4);
  test::fill_random(h, seed);
  std::fill(nans.data(), nans.data() + nans.layout().size, std::numeric_limits<T>::quiet_NaN());
  Field<T> in(n, 4, Memory::device), whole(n, 4, Memory::device), parts(n, 4, Memory::device);
  copy(h, in);
  copy(nans, parts);
  fill_ghosts(in, Boundary::neumann(), s.radius());
  const auto relax = [&](Field<T>& out, Region r) {  // the seam's pass, on the fields' backend
    on_backend(in.memory(), [&](auto tag) { relax_interior(tag, s, 0.05, in, out, nullptr, r); });
  };
  relax(whole, {});
  const int x16 = 16 / int(sizeof(T));
  const int xs[3] = {0, 2 * x16, n.nx}, ys[3] = {0, 5, n.ny}, zs[4] = {0, 3, 41, n.nz};
  const std::string what = s.describe() + (sizeof(T) == 4 ? " f32" : " f64");
  Field<T> b(n, 4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) {
        const Region r{xs[i], ys[j], zs[k], xs[i + 1] - xs[i], ys[j + 1] - ys[j], zs[k + 1] - zs[k]};
        relax(parts, r);
        if (i + j + k > 0) continue;
        copy(parts, b);  // after the first region: nothing else written
        long outside = 0;
        for (int z = 0; z < n.nz; ++z)
          for (int y = 0; y < n.ny; ++y)
            for (int x = 0; x < n.nx; ++x)
              outside += !std::isnan(b(x, y, z)) && !(x < r.nx && y < r.ny && z < r.nz);
        EXPECT_EQ(outside, 0) << what << ": a region's pass wrote outside it";
      }
  Field<T> a(n, 4);
  copy(whole, a);
  copy(parts, b);
  EXPECT_EQ(test::interior_bit_diffs(a, b), "") << what;
}

TEST(StepsCuda, RelaxationOnRegionsIsTheWholePassBitForBit) {
  REQUIRE_GPU();
  // Each case its own seed, taken before the call (an argument list does not order `++seed`
  // against a second read of it).
  std::uint64_t seed = 300;
  const auto next = [&seed] { return ++seed; };
  for (int r = 1; r <= 4; ++r) {
    const std::uint64_t s32 = next(), s64 = next();
    relax_by_regions<float>(test::random_stencil(StencilKind::star, r, s32), s32);
    relax_by_regions<double>(test::random_stencil(StencilKind::star, r, s64), s64);
  }
  for (StencilKind k : {StencilKind::sym27, StencilKind::box27}) {
    const std::uint64_t s32 = next(), s64 = next();
    relax_by_regions<float>(test::random_stencil(k, 1, s32), s32);
    relax_by_regions<double>(test::random_stencil(k, 1, s64), s64);
  }
}

}  // namespace
}  // namespace strata
