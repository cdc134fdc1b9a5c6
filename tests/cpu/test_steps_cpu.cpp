// Repeated stencil steps on the CPU: apply_steps equals that many single passes, for every
// stencil kind, boundary, precision and both updates, on odd shapes; refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/test_util.hpp"
#include "strata/apply.hpp"
#include "strata/steps.hpp"
#include "verify/stencil_check.hpp"

namespace strata {
namespace {

template <class T>
void by_single_passes(const Stencil& s, Field<T>& u, const Boundary& bc, int steps, const StepOptions& o) {
  Field<T> v(u.extent(), u.ghost());
  for (int t = 0; t < steps; ++t) {
    apply(s, u, v, bc);
    const Extent n = u.extent();
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x)
          u(x, y, z) = o.update == StepUpdate::repeat ? v(x, y, z) : T(double(u(x, y, z)) + o.c * double(v(x, y, z)));
  }
}

template <class T>
void check_case(const Stencil& s, const Boundary& bc, Extent n, int steps, StepOptions o, std::uint64_t seed) {
  Field<T> u(n), want(n);
  test::fill_random(u, seed);
  copy(u, want);
  apply_steps(s, u, bc, steps, o);
  by_single_passes(s, want, bc, steps, o);
  const std::string what = s.describe() + " " + bc.describe() + " " + n.str() + " steps " + std::to_string(steps) +
                           (o.update == StepUpdate::relax ? " relax" : " repeat");
  const double worst = verify::worst_relative(u, want);
  // relax: the reference rounds A u to T before the update, apply_steps does not: a few
  // roundings apart per step, carried on by each later step's gain g = 1 + |c| sum|a_k|;
  // repeat: the same passes, bit for bit.
  const double tol = o.update == StepUpdate::repeat
                         ? 0.0
                         : 4 * verify::steps_carried(s, o, steps) * double(std::numeric_limits<T>::epsilon());
  EXPECT_LE(worst, tol) << what;
}

TEST(StepsCpu, EqualSinglePassesForEveryKindBoundaryAndUpdate) {
  std::uint64_t seed = 3;
  for (Extent n : {Extent{13, 7, 5}, Extent{6, 11, 9}})
    for (const Boundary& bc : {Boundary::dirichlet(0.25), Boundary::neumann(), Boundary::periodic()})
      for (int steps : {1, 2, 5}) {
        for (int r = 1; r <= 4; ++r) {
          const Stencil s = test::random_stencil(StencilKind::star, r, ++seed);
          check_case<float>(s, bc, n, steps, {StepUpdate::repeat, 0}, seed);
          check_case<double>(s, bc, n, steps, {StepUpdate::relax, 0.05}, seed);
        }
        for (StencilKind k : {StencilKind::sym27, StencilKind::box27}) {
          const Stencil s = test::random_stencil(k, 1, ++seed);
          check_case<double>(s, bc, n, steps, {StepUpdate::repeat, 0}, seed);
          check_case<float>(s, bc, n, steps, {StepUpdate::relax, -0.02}, seed);
        }
      }
}

TEST(StepsCpu, HeatStepsKeepAConstantAndDecayAMode) {
  // u <- u + c Lap u with Neumann faces keeps a constant field; a periodic sine mode decays
  // by (1 - 4 c sin^2(pi k / n) / h^2)^steps per axis: the update is the explicit heat step.
  const Extent n{16, 16, 16};
  Field<double> u(n);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) u(x, y, z) = 3.5;
  apply_steps(Stencil::laplacian(2), u, Boundary::neumann(), 7, {StepUpdate::relax, 0.1});
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) ASSERT_NEAR(u(x, y, z), 3.5, 1e-13);
  const double pi = std::acos(-1.0), c = 0.1;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) u(x, y, z) = std::sin(2 * pi * x / n.nx);
  const int steps = 9;
  apply_steps(Stencil::laplacian(2), u, Boundary::periodic(), steps, {StepUpdate::relax, c});
  const double g = std::pow(1 - 4 * c * std::pow(std::sin(pi / n.nx), 2), steps);
  for (int x = 0; x < n.nx; ++x) EXPECT_NEAR(u(x, 3, 5), g * std::sin(2 * pi * x / n.nx), 1e-12) << x;
}

TEST(StepsCpu, ZeroStepsLeaveTheFieldAndBadRequestsAreRefused) {
  Field<float> u({5, 4, 3});
  test::fill_random(u, 9);
  Field<float> before({5, 4, 3});
  copy(u, before);
  apply_steps(Stencil::laplacian(2), u, Boundary::neumann(), 0);
  EXPECT_EQ(std::memcmp(u.data(), before.data(), u.layout().bytes()), 0);
  EXPECT_THROW(apply_steps(Stencil::laplacian(2), u, Boundary::neumann(), -1), Error);
  EXPECT_THROW(apply_steps(Stencil::laplacian(2), u, Boundary::neumann(), 2, {StepUpdate::relax, std::nan("")}), Error);
  EXPECT_THROW(apply_steps(Stencil::laplacian(2), u, Boundary::neumann(), 2, {StepUpdate::relax, 0.1, -1}), Error);
  // No fused pass on the host: strata's choice there is a pass per step.
  for (const Stencil& s : {Stencil::laplacian(2), Stencil::laplacian(8), Stencil::fe27()})
    EXPECT_EQ(auto_fuse<float>(s, Memory::host), 1) << s.describe();
  Field<float> thin({5, 4, 3}, 1);
  EXPECT_THROW(apply_steps(Stencil::laplacian(8), thin, Boundary::neumann(), 1), Error);
}

TEST(StepsCpu, CallersScratchGivesTheSameBitsAndAWrongOneIsRefused) {
  const Extent n{9, 7, 5};
  for (int steps : {1, 2, 3}) {  // odd counts end in the scratch and are copied back
    Field<double> u(n), v(n), scratch(n);
    test::fill_random(u, 21);
    copy(u, v);
    test::fill_random(scratch, 5);  // its contents must not matter
    const StepOptions o{StepUpdate::relax, 0.1};
    apply_steps(Stencil::laplacian(2), u, Boundary::dirichlet(0.5), steps, o);
    apply_steps(Stencil::laplacian(2), v, scratch, Boundary::dirichlet(0.5), steps, o);
    EXPECT_EQ(std::memcmp(u.data(), v.data(), u.layout().bytes()), 0) << steps << " steps";
  }
  Field<double> u(n), other({9, 7, 4}), thin(n, 1), device_like(n);
  EXPECT_THROW(apply_steps(Stencil::laplacian(2), u, other, Boundary::neumann(), 1), Error);
  EXPECT_THROW(apply_steps(Stencil::laplacian(2), u, thin, Boundary::neumann(), 1), Error);
  EXPECT_THROW(apply_steps(Stencil::laplacian(2), u, u, Boundary::neumann(), 1), Error);
  apply_steps(Stencil::laplacian(2), u, device_like, Boundary::neumann(), 1);  // a right one is taken
}

// Dirichlet ghosts are filled once per field, not before every step: a field whose ghosts
// and a scratch whose every point start as NaN give the single passes' bits for every step
// count (the scratch first used at step 2; odd counts copied back).
TEST(StepsCpu, DirichletGhostsStartingAsNaNAreFilledBeforeTheirFirstUse) {
  const Extent n{11, 6, 7};
  const Boundary bc = Boundary::dirichlet(0.75);
  for (const Stencil& s : {Stencil::laplacian(2), test::random_stencil(StencilKind::star, 3, 8), Stencil::fe27()})
    for (int steps = 1; steps <= 5; ++steps) {
      Field<double> u(n, 3), scratch(n, 3), want(n, 3);
      std::fill(u.data(), u.data() + u.layout().size, std::nan(""));
      std::fill(scratch.data(), scratch.data() + scratch.layout().size, std::nan(""));
      test::fill_random(u, 40 + steps);
      copy(u, want);
      apply_steps(s, u, scratch, bc, steps, {StepUpdate::repeat, 0});
      by_single_passes(s, want, bc, steps, {StepUpdate::repeat, 0});
      const std::string what = s.describe() + " steps " + std::to_string(steps);
      EXPECT_EQ(test::interior_bit_diffs(want, u), "") << what;
    }
}

}  // namespace
}  // namespace strata
