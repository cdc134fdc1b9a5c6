// The fft Poisson solver on the CPU (KissFFT, src/cpu/fft.cpp): it inverts the periodic
// 7-point operator that the stencil pass applies, on odd, even and tiny shapes in both
// precisions; it agrees with a multigrid solve to tight tolerance; its error against the
// manufactured solution is the discretisation error, falling 4x per halving of h; with the
// defaults it converges in both precisions as a direct solve; other problems are refused.
// These skip, saying why, in a build without the CPU's FFT, where the solver must refuse
// host fields naming the package to install.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "common/error_of.hpp"
#include "common/require_gpu.hpp"
#include "common/test_util.hpp"
#include "dispatch/fft.hpp"
#include "strata/apply.hpp"
#include "strata/error.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"
#include "strata/manufactured.hpp"

using namespace strata;

namespace {

template <class T>
double interior_mean(const Field<T>& f) {
  const Extent n = f.extent();
  double s = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) s += f(x, y, z);
  return s / double(n.points());
}

// Largest over smallest non-zero eigenvalue of the periodic 7-point operator on n: the
// factor by which A^-1 may amplify the rounding of f.
double condition(Extent n) {
  auto low = [](int m) {
    return m > 1 ? 4 * std::pow(std::sin(std::numbers::pi / m), 2) : HUGE_VAL;
  };
  return 12.0 / std::min({low(n.nx), low(n.ny), low(n.nz)});
}

struct Worst {
  double err = 0;
  int x = -1, y = -1, z = -1;
};

// max |got - want| over the interior, where it is; NaN counts as infinitely wrong.
template <class T>
Worst worst_difference(const Field<T>& got, const Field<T>& want) {
  Worst w;
  const Extent n = want.extent();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const double d = std::fabs(double(got(x, y, z)) - double(want(x, y, z)));
        const double e = d == d ? d : std::numeric_limits<double>::infinity();
        if (e > w.err || w.x < 0) w = {e, x, y, z};
      }
  return w;
}

// f = A u for a random zero-mean u, A applied by the library's stencil pass (periodic
// ghosts): the FFT solve must give u back, to rounding amplified by A's condition number.
template <class T>
void expect_inverts(Extent n, std::uint64_t seed) {
  const double h = 1.0 / n.nx;
  Field<T> exact(n, 1), f(n, 1), u(n, 1);
  test::fill_random(exact, seed);
  const T mean = T(interior_mean(exact));
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) exact(x, y, z) -= mean;
  apply(poisson_stencil(PoissonOperator::fd7, h), exact, f, Boundary::periodic());
  test::poison(u);  // every point must be written
  poisson::fft_solve(h, f, u, Stream{});
  const double eps = std::numeric_limits<T>::epsilon();
  const double umax = std::max(1.0, double(max_abs(exact)));
  const double tol = 16 * std::log2(double(n.points()) + 2) * eps * condition(n) * umax;
  const Worst w = worst_difference(u, exact);
  EXPECT_LE(w.err, tol) << n.str() << " " << (sizeof(T) == 4 ? "f32" : "f64") << ": worst at ("
                        << w.x << ", " << w.y << ", " << w.z << ")";
  EXPECT_LT(std::fabs(interior_mean(u)), tol) << n.str() << ": u must have zero mean";

  // u may be f itself: the same values in place.
  Field<T> g(n, 1);
  copy(f, g);
  poisson::fft_solve(h, g, g, Stream{});
  EXPECT_LE(worst_difference(g, u).err, 0.0) << n.str() << ": in place differs";
}

PoissonOptions periodic(PoissonMethod m, double rtol) {
  PoissonOptions o;
  o.bc = Boundary::periodic();
  o.op = PoissonOperator::fd7;
  o.method = m;
  o.rtol = rtol;
  o.max_iter = 200;
  return o;
}

}  // namespace

TEST(PoissonFftCpu, InvertsThePeriodicSevenPointStencilPass) {
  REQUIRE_CPU_FFT();
  std::uint64_t seed = 11;
  for (const Extent& n : {Extent{16, 16, 16}, Extent{33, 17, 25}, Extent{48, 20, 9},
                          Extent{2, 3, 5}, Extent{2, 2, 2}, Extent{7, 64, 3}}) {
    expect_inverts<double>(n, ++seed);
    expect_inverts<float>(n, ++seed);
  }
}

// The same problem solved by multigrid to 1e-11 (an independent method on the same operator),
// on an even and an odd shape, as the GPU test does for cuFFT.
TEST(PoissonFftCpu, MatchesMultigridToTightTolerance) {
  REQUIRE_CPU_FFT();
  for (const Extent& n : {Extent{64, 32, 48}, Extent{33, 17, 25}}) {
    PoissonOptions o = periodic(PoissonMethod::mg, 1e-11);
    o.h = poisson_spacing(o.bc, n.nx);
    Field<double> f(n, 1), u_mg(n, 1), u_fft(n, 1);
    poisson::manufactured<double>(o.bc, o.h, f, nullptr);
    const PoissonReport rm = solve_poisson(o, f, u_mg);
    ASSERT_TRUE(rm.converged) << rm.message;
    o.method = PoissonMethod::fft;
    const PoissonReport r = solve_poisson(o, f, u_fft);
    EXPECT_TRUE(r.converged && r.direct) << r.message;
    EXPECT_LT(r.rel_residual, 1e-11) << r.message;
    EXPECT_EQ(r.message.rfind("direct solve", 0), 0u) << r.message;
    EXPECT_GE(r.iterations, 1);
    const double umax = max_abs(u_mg);
    const Worst w = worst_difference(u_fft, u_mg);
    EXPECT_LT(w.err, 1e-9 * umax) << n.str() << " at (" << w.x << ", " << w.y << ", " << w.z << ")";
  }
}

// Against the manufactured continuum solution: the error is second order (4x per halving),
// and the f32 solve's error is the f64 solve's (rounding is far below it).
TEST(PoissonFftCpu, ErrorIsTheDiscretisationErrorAtSecondOrder) {
  REQUIRE_CPU_FFT();
  std::vector<double> e;
  for (int m : {16, 32, 64}) {
    PoissonOptions o = periodic(PoissonMethod::fft, 1e-10);
    o.h = poisson_spacing(o.bc, m);
    Field<double> f(Extent{m, m, m}, 1), u(Extent{m, m, m}, 1);
    poisson::manufactured<double>(o.bc, o.h, f, nullptr);
    const PoissonReport r = solve_poisson(o, f, u);
    ASSERT_TRUE(r.converged) << r.message;
    e.push_back(poisson::manufactured_error(o.bc, o.h, u).rel_l2);
    if (m == 32) {
      PoissonOptions d = periodic(PoissonMethod::fft, -1);
      d.h = o.h;
      Field<float> ff(Extent{m, m, m}, 1), uf(Extent{m, m, m}, 1);
      poisson::manufactured<float>(d.bc, d.h, ff, nullptr);
      const PoissonReport rf = solve_poisson(d, ff, uf);
      EXPECT_TRUE(rf.converged && rf.direct) << rf.message;
      const double ef = poisson::manufactured_error(d.bc, d.h, uf).rel_l2;
      EXPECT_NEAR(ef, e.back(), 0.01 * e.back()) << "f32 against f64 error at 32^3";
    }
  }
  for (std::size_t i = 1; i < e.size(); ++i) {
    const double ratio = e[i - 1] / e[i];
    EXPECT_GT(ratio, 3.4) << "errors " << e[i - 1] << " -> " << e[i];
    EXPECT_LT(ratio, 4.6) << "errors " << e[i - 1] << " -> " << e[i];
  }
}

// The defaults (rtol: 1e-6 or the precision's floor) converge as a direct solve in both
// precisions, on a right-hand side with a mean (removed, with the warning every solver gives
// on a periodic grid: the compatible problem).
TEST(PoissonFftCpu, DefaultsConvergeInBothPrecisions) {
  REQUIRE_CPU_FFT();
  const Extent n{40, 24, 30};
  PoissonOptions o = periodic(PoissonMethod::fft, -1);
  Field<float> ff(n, 1), uf(n, 1);
  Field<double> fd(n, 1), ud(n, 1);
  poisson::random_rhs(ff, 5);
  poisson::random_rhs(fd, 5);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) ff(x, y, z) += 0.25f, fd(x, y, z) += 0.25;
  const PoissonReport rf = solve_poisson(o, ff, uf);
  const PoissonReport rd = solve_poisson(o, fd, ud);
  EXPECT_TRUE(rf.converged && rf.direct) << rf.message;
  EXPECT_TRUE(rd.converged && rd.direct) << rd.message;
  EXPECT_LT(rd.rel_residual, 1e-12) << rd.message;
  EXPECT_LT(std::fabs(interior_mean(ud)), 1e-12);
  EXPECT_EQ(rf.warnings.size(), 1u);
  ASSERT_EQ(rd.warnings.size(), 1u);
  EXPECT_EQ(rd.warnings[0].rfind("f has mean", 0), 0u) << rd.warnings[0];
  EXPECT_NEAR(rd.rhs_mean, interior_mean(fd), 1e-12);
}

TEST(PoissonFftCpu, OtherProblemsAreRefusedNamingTheOneItSolves) {
  const Extent n{8, 8, 8};
  Field<double> f(n, 1), u(n, 1), v(Extent{8, 8, 9}, 1);
  for (const Boundary& bc : {Boundary::dirichlet(0.0), Boundary::neumann()}) {
    PoissonOptions o = periodic(PoissonMethod::fft, -1);
    o.bc = bc;
    const std::string m = test::error_of([&] { solve_poisson(o, f, u); });
    EXPECT_NE(m.find("periodic 7-point"), std::string::npos) << m;
  }
  PoissonOptions o = periodic(PoissonMethod::fft, -1);
  o.op = PoissonOperator::fe27;
  const std::string m = test::error_of([&] { solve_poisson(o, f, u); });
  EXPECT_NE(m.find("--operator fd7"), std::string::npos) << m;
  EXPECT_THROW(poisson::fft_solve(1.0, f, v, Stream{}), Error);
}

// Without the CPU's FFT the solver refuses host fields before any work, naming the package
// to install: the option checks a verb makes before it reads anything, the solver and the
// seam alike. Device fields are not the CPU's concern there.
TEST(PoissonFftCpu, WithoutTheCpuFftHostFieldsAreRefusedNamingThePackage) {
  if (build_info().cpu_fft) {
    EXPECT_NO_THROW(check_poisson_options(periodic(PoissonMethod::fft, -1), Extent{8, 8, 8}, Memory::host));
    GTEST_SKIP() << "built with the CPU's FFT: the tests above run";
  }
  const Extent n{8, 8, 8};
  const std::string checked = test::error_of(
      [&] { check_poisson_options(periodic(PoissonMethod::fft, -1), n, Memory::host); });
  EXPECT_NE(checked.find("libkissfft-dev"), std::string::npos) << checked;
  EXPECT_NO_THROW(check_poisson_options(periodic(PoissonMethod::fft, -1), n, Memory::device));
  Field<double> f(n, 1), u(n, 1);
  const std::string m =
      test::error_of([&] { solve_poisson(periodic(PoissonMethod::fft, -1), f, u); });
  EXPECT_NE(m.find("libkissfft-dev"), std::string::npos) << m;
  EXPECT_NE(m.find("CPU"), std::string::npos) << m;
  Field<float> g(n, 1);
  EXPECT_NE(test::error_of([&] { poisson::fft_solve(1.0, g, g, Stream{}); }).find("libkissfft-dev"),
            std::string::npos);
}
