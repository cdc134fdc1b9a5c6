// When solve_poisson stops and what its report claims (issue 11, points 2-4): CG is not
// stopped on its ordinary plateaus; "converged" is decided on the residual of the returned
// solution recomputed from scratch; the defaults converge in each precision; atol is
// PETSc's absolute tolerance; the floor hint never tells a double run to use double.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/test_util.hpp"
#include "strata/manufactured.hpp"
#include "strata/apply.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"

using namespace strata;

namespace {

template <class T>
void fill_interior(Field<T>& u, double v) {
  const Extent n = u.extent();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) u(x, y, z) = T(v);
}

// ||f - A u|| / ||f|| with the user's boundary values, computed here in double from the
// returned solution (f's mean removed on null spaces, as the solver does).
template <class T>
double recomputed(const PoissonOptions& o, const Field<T>& f, const Field<T>& u) {
  const Extent n = f.extent();
  Field<double> fd(n, 1), ud(n, 1), au(n, 1);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) fd(x, y, z) = f(x, y, z), ud(x, y, z) = u(x, y, z);
  if (o.bc.kind != BoundaryKind::dirichlet) {
    const double m = sum(fd) / double(n.points());
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) fd(x, y, z) -= m;
  }
  apply(poisson_stencil(o.op, o.h > 0 ? o.h : poisson_spacing(o.bc, n.nx)), ud, au, o.bc);
  double r = 0, fn = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const double d = fd(x, y, z) - au(x, y, z);
        r += d * d;
        fn += fd(x, y, z) * fd(x, y, z);
      }
  return std::sqrt(r / fn);
}

}  // namespace

// CG's residual is not monotone: the rule that stopped it after five iterations each above
// 0.99 of the previous ended these runs at 2.2e-1 after 43 iterations, blaming the
// arithmetic. They reach 1e-10.
TEST(PoissonStopping, ConjugateGradientsIsNotStoppedOnAPlateau) {
  for (const Extent& n : {Extent{96, 5, 3}, Extent{30, 30, 30}}) {
    PoissonOptions o;
    o.bc = Boundary::neumann();
    o.method = PoissonMethod::cg;
    o.rtol = 1e-10;
    o.max_iter = 5000;
    Field<double> f(n, 1), u(n, 1);
    test::fill_random(f, 12345);
    const PoissonReport r = solve_poisson(o, f, u);
    EXPECT_TRUE(r.converged) << n.str() << ": " << r.message;
    EXPECT_LE(r.rel_residual, 1e-10) << n.str();
  }
}

// "converged" holds only when the solution's residual, recomputed here independently,
// meets the tolerance. The cases the issue found claiming convergence on a residual that
// was not the final one: f32 mgcg (recursive 7e-8, recomputed 4.7e-5 at 63^3) and a large
// Dirichlet value in f64 (9e-13 in the iteration, 6e-10 recomputed).
TEST(PoissonStopping, ConvergedIsDecidedOnTheRecomputedResidual) {
  {
    PoissonOptions o;
    o.method = PoissonMethod::mgcg;
    o.rtol = 1e-6;
    const Extent n{31, 31, 31};
    o.h = poisson_spacing(o.bc, n.nx);
    Field<float> f(n, 1), u(n, 1);
    poisson::manufactured<float>(o.bc, o.h, f, nullptr);
    const PoissonReport r = solve_poisson(o, f, u);
    const double true_rel = recomputed(o, f, u);
    EXPECT_NEAR(r.rel_residual, true_rel, 0.05 * true_rel);
    EXPECT_EQ(r.converged, true_rel <= 1e-6) << "recomputed " << true_rel << ": " << r.message;
    if (!r.converged) {
      EXPECT_NE(r.message.find("--precision f64"), std::string::npos) << r.message;
    }
  }
  {
    PoissonOptions o;
    o.bc = Boundary::dirichlet(1000.0);
    o.method = PoissonMethod::mg;
    o.rtol = 1e-12;
    const Extent n{24, 20, 16};
    Field<double> f(n, 1), u(n, 1);
    test::fill_random(f, 12345);
    fill_interior(u, 1000.0);
    const PoissonReport r = solve_poisson(o, f, u);
    const double true_rel = recomputed(o, f, u);
    EXPECT_NEAR(r.rel_residual, true_rel, 0.05 * true_rel);
    EXPECT_EQ(r.converged, true_rel <= 1e-12) << "recomputed " << true_rel << ": " << r.message;
    EXPECT_FALSE(r.converged) << "|u| ~ 1000 leaves a rounding floor far above 1e-12";
    EXPECT_NE(r.message.find("rounding floor of fp64"), std::string::npos) << r.message;
    EXPECT_EQ(r.message.find("--precision f64"), std::string::npos) << "an f64 run told to use f64: " << r.message;
  }
}

// Over every method, both precisions and tolerances reachable or not: the report never
// claims more than the solution has. converged implies the recomputed residual meets the
// tolerance, or (default tolerance only) the rounding floor was reached below the estimate.
TEST(PoissonStopping, TheReportNeverClaimsWhatWasNotReached) {
  const Extent n{19, 16, 13};
  for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::fmg, PoissonMethod::mgcg, PoissonMethod::cg,
                          PoissonMethod::jacobi})
    for (double rtol : {-1.0, 1e-5, 1e-9})
      for (const Boundary& bc : {Boundary::dirichlet(3.0), Boundary::periodic()}) {
        PoissonOptions o;
        o.method = m;
        o.bc = bc;
        o.rtol = rtol;
        o.max_iter = m == PoissonMethod::jacobi ? 400 : 60;
        Field<float> f(n, 1), u(n, 1);
        test::fill_random(f, 7);
        const PoissonReport r = solve_poisson(o, f, u);
        const double true_rel = recomputed(o, f, u);
        const std::string what = std::string(to_string(m)) + " " + bc.describe() + " rtol " + std::to_string(rtol);
        EXPECT_NEAR(r.rel_residual, true_rel, 0.05 * true_rel) << what;
        if (r.converged && !(rtol < 0 && r.at_floor)) {
          EXPECT_LE(true_rel, r.rtol * 1.0001) << what << ": " << r.message;
        }
        if (rtol >= 0) {
          EXPECT_FALSE(r.at_floor && r.converged) << what;
        }
        EXPECT_EQ(r.message.rfind("converged", 0) == 0, r.converged && r.iterations > 0) << what << ": " << r.message;
      }
}

// With the defaults each precision converges, fp32 at its rounding floor where 1e-6 is
// below it, and the solution has the discretisation error of the converged double one.
// Before issue 11 the fp32 default rtol 1e-6 ended these runs with exit code 3.
TEST(PoissonStopping, DefaultsConvergeInEachPrecision) {
  const Extent n{31, 31, 31};
  PoissonOptions o;
  o.h = poisson_spacing(o.bc, n.nx);
  Field<double> fd(n, 1), exact(n, 1), ud(n, 1);
  poisson::manufactured(o.bc, o.h, fd, &exact);
  o.rtol = 1e-12;
  ASSERT_TRUE(solve_poisson(o, fd, ud).converged);
  const double e_disc = poisson::solution_error(o.bc, ud, exact).rel_l2;
  for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::fmg, PoissonMethod::mgcg, PoissonMethod::cg}) {
    PoissonOptions d;  // the defaults
    d.method = m;
    Field<float> f(n, 1), ex(n, 1), u(n, 1);
    poisson::manufactured(d.bc, o.h, f, &ex);
    const PoissonReport r = solve_poisson(d, f, u);
    EXPECT_TRUE(r.converged) << to_string(m) << ": " << r.message;
    EXPECT_TRUE(r.rtol_default);
    EXPECT_NEAR(poisson::solution_error(d.bc, u, ex).rel_l2, e_disc, 0.05 * e_disc) << to_string(m) << ": " << r.message;
    Field<double> u64(n, 1);
    const PoissonReport r64 = solve_poisson(d, fd, u64);
    EXPECT_TRUE(r64.converged && !r64.at_floor && r64.rel_residual <= 1e-6) << to_string(m) << ": " << r64.message;
  }
}

// PETSc's rule: converged when ||r|| <= max(rtol ||f||, atol).
TEST(PoissonStopping, AtolIsAnAbsoluteTolerance) {
  const Extent n{20, 20, 20};
  Field<double> f(n, 1), u(n, 1), v(n, 1);
  test::fill_random(f, 3);
  const double fnorm = norm2(f);
  PoissonOptions o;
  o.rtol = 0;
  o.atol = 1e-4 * fnorm;
  const PoissonReport r = solve_poisson(o, f, u);
  EXPECT_TRUE(r.converged) << r.message;
  EXPECT_LE(r.rel_residual * fnorm, o.atol);
  EXPECT_GT(r.rel_residual, 1e-6) << "stopped well past atol";
  o.rtol = 1e-12;  // the larger of the two decides
  const PoissonReport s = solve_poisson(o, f, v);
  EXPECT_TRUE(s.converged) << s.message;
  EXPECT_EQ(s.iterations, r.iterations);
  EXPECT_NE(s.message.find("atol"), std::string::npos) << s.message;
}

// At the fp32 floor the residual is rounding noise while multigrid's smooth error still
// falls: the default run goes on until the residual's smooth part stalls too. Against the
// discrete solution itself (the manufactured sine is an eigenvector of the 7-point
// operator, so u_h = (k^2 / lambda_h) u*), the algebraic error of the default fp32 mg and
// fmg runs at 127^3 is below 5% of the discretisation error; stopped at the first stalled
// cycle it was 34% (mg, 6 cycles instead of 8).
TEST(PoissonStopping, DefaultFloatMultigridReachesTheDiscreteSolution) {
  const int m = 127;
  const Extent n{m, m, m};
  const Boundary bc = Boundary::dirichlet(0.0);
  const double h = poisson_spacing(bc, m), pi = std::acos(-1.0), k = pi / ((m + 1) * h);
  const double lambda_h = 3 * (2 - 2 * std::cos(k * h)) / (h * h), scale = 3 * k * k / lambda_h;
  const double e_disc = std::fabs(scale - 1);
  Field<float> f(n, 1), exact(n, 1), u(n, 1);
  poisson::manufactured(bc, h, f, &exact);
  for (PoissonMethod method : {PoissonMethod::mg, PoissonMethod::fmg}) {
    PoissonOptions o;  // the defaults
    o.method = method;
    fill_interior(u, 0.0);
    const PoissonReport r = solve_poisson(o, f, u);
    EXPECT_TRUE(r.converged && r.at_floor) << r.message;
    double num = 0, den = 0;
    for (int z = 0; z < m; ++z)
      for (int y = 0; y < m; ++y)
        for (int x = 0; x < m; ++x) {
          const double uh = scale * exact(x, y, z);
          num += (u(x, y, z) - uh) * (u(x, y, z) - uh);
          den += uh * uh;
        }
    EXPECT_LT(std::sqrt(num / den), 0.05 * e_disc) << to_string(method) << ", " << r.iterations << " iterations";
  }
}
